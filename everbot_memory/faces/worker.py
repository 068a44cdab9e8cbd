"""Starting the detached worker that extracts the sessions hooks queued (see
:func:`everbot_memory.facade.hooks.start_worker`)."""

from __future__ import annotations

from ..facade.hooks import start_worker

__all__ = ["start_worker"]
