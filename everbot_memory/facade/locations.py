"""Where a face finds the memories: the user's, the project's, or one named file; and the mark
of a process an extractor started. Re-exported here so the faces need nothing below the
facade (see :mod:`everbot_memory.storage.locations`)."""

from __future__ import annotations

from ..extract.child import CHILD_ENV
from ..storage.locations import (
    USER_FILE_ENV,
    Place,
    memory_places,
    project_dir,
    user_memory_path,
)

__all__ = [
    "CHILD_ENV",
    "USER_FILE_ENV",
    "Place",
    "memory_places",
    "project_dir",
    "user_memory_path",
]
