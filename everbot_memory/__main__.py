"""``python -m everbot_memory``: the same as the ``everbot-memory`` command."""

from .faces.entry import run

run()
