"""everbot-memory: long-term memory for LLM agents, kept in one human-readable MEMORY.md.

The public API: :class:`MemoryManager` (the one entry point), :class:`MemoryStore` (the file),
:class:`MemoryMerger` (scoring), the models, and the error tree in :mod:`everbot_memory.errors`.
"""

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

__version__ = "0.1.0"

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
