"""The mark of a process this engine started: hooks that see it do nothing.

A backend that runs an agent program (``claude -p``) sets :data:`CHILD_ENV` for it, so the
program's hooks, which may be this engine's own, do not extract or queue the extraction's own
conversation. Kept apart so the hook path can read it without loading any extractor.
"""

from __future__ import annotations

__all__ = ["CHILD_ENV"]

#: Set (to any non-empty value) in the environment of a program run by an extractor.
CHILD_ENV = "EVERBOT_MEMORY_CHILD"
