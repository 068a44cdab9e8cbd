"""everbot-memory: long-term memory for LLM agents, kept in one human-readable MEMORY.md.

The public API: :class:`MemoryManager` (the one entry point), :class:`MemoryStore` (the file),
:class:`MemoryMerger` (scoring), the models, and the error tree in :mod:`everbot_memory.errors`.

Names are imported on first use, so that ``everbot-memory prompt``, which runs at every session
start, does not pay for pydantic or the LLM SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_WHERE = {
    "Candidate": "models",
    "Document": "store",
    "EntryNotFoundError": "errors",
    "EverbotMemoryError": "errors",
    "ExtractionError": "errors",
    "Extractor": "manager",
    "LockTimeoutError": "errors",
    "MemoryEntry": "models",
    "MemoryManager": "manager",
    "MemoryMerger": "merger",
    "MemoryStore": "store",
    "MergeResult": "merger",
    "MergeStats": "merger",
    "NotTextError": "errors",
    "Problem": "store",
    "StoreError": "errors",
    "summarize_existing": "manager",
}

__all__ = [
    "Candidate",
    "Document",
    "EntryNotFoundError",
    "EverbotMemoryError",
    "ExtractionError",
    "Extractor",
    "LockTimeoutError",
    "MemoryEntry",
    "MemoryManager",
    "MemoryMerger",
    "MemoryStore",
    "MergeResult",
    "MergeStats",
    "NotTextError",
    "Problem",
    "StoreError",
    "__version__",
    "summarize_existing",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'everbot_memory' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from .errors import (
        EntryNotFoundError,
        EverbotMemoryError,
        ExtractionError,
        LockTimeoutError,
        NotTextError,
        StoreError,
    )
    from .manager import Extractor, MemoryManager, summarize_existing
    from .merger import MemoryMerger, MergeResult, MergeStats
    from .models import Candidate, MemoryEntry
    from .store import Document, MemoryStore, Problem
