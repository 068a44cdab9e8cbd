"""``python -m everbot_memory``: the same as the ``everbot-memory`` command."""

from .cli import main

main()
