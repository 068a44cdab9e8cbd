"""The ``everbot-memory`` command (typer): a thin layer over the facade.

:mod:`.app` holds the app and what the commands share; the commands are in :mod:`.changes`,
:mod:`.reading` and :mod:`.services`, registered on the app when they are imported here.
"""

from . import bridge, changes, install, reading, services, sync, web
from .app import app, main

__all__ = ["app", "bridge", "changes", "install", "main", "reading", "services", "sync", "web"]
