"""everbot-memory: long-term memory for LLM agents, kept in one human-readable MEMORY.md.

The public API is what :data:`__all__` lists: the facade :class:`Memory` (also under the seed's
name, :class:`MemoryManager`), the file (:class:`MemoryStore`, :class:`Document`,
:class:`Problem`), the merger (:class:`MemoryMerger`), the models, the extractors, the
transcript reader, the recall hit, and the errors. Everything else is internal; see
ARCHITECTURE.md for the layers.

Names are imported on first use, so that ``everbot-memory prompt``, which runs at every session
start, does not pay for pydantic or an LLM SDK.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is not imported: see above
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.2.0"

_WHERE = {
    "AnswerError": "errors",
    "AnthropicExtractor": "extract.claude",
    "Candidate": "core.candidate",
    "ClaudeCliExtractor": "extract.claude_cli",
    "ClaudeExtractor": "extract.claude",
    "ConfigError": "errors",
    "Document": "document.model",
    "EntryNotFoundError": "errors",
    "EverbotMemoryError": "errors",
    "ExtractionError": "errors",
    "Extractor": "extract.base",
    "Hit": "recall.index",
    "LockTimeoutError": "errors",
    "Memory": "facade.memory",
    "MemoryEntry": "core.entry",
    "MemoryManager": "facade.memory",
    "MemoryMerger": "core.merge",
    "MemoryStore": "storage.store",
    "MergeResult": "core.merge",
    "MergeStats": "core.merge",
    "Message": "extract.transcripts",
    "NotTextError": "errors",
    "OpenAIExtractor": "extract.openai_chat",
    "Problem": "document.model",
    "RuleExtractor": "extract.rules",
    "StoreError": "errors",
    "Transcript": "extract.transcripts",
    "TranscriptError": "errors",
    "parse_transcript": "extract.transcripts",
    "read_transcript": "extract.transcripts",
    "summarize_existing": "extract.summary",
}

__all__ = [
    "AnswerError",
    "AnthropicExtractor",
    "Candidate",
    "ClaudeCliExtractor",
    "ClaudeExtractor",
    "ConfigError",
    "Document",
    "EntryNotFoundError",
    "EverbotMemoryError",
    "ExtractionError",
    "Extractor",
    "Hit",
    "LockTimeoutError",
    "Memory",
    "MemoryEntry",
    "MemoryManager",
    "MemoryMerger",
    "MemoryStore",
    "MergeResult",
    "MergeStats",
    "Message",
    "NotTextError",
    "OpenAIExtractor",
    "Problem",
    "RuleExtractor",
    "StoreError",
    "Transcript",
    "TranscriptError",
    "__version__",
    "parse_transcript",
    "read_transcript",
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
    from .core.candidate import Candidate
    from .core.entry import MemoryEntry
    from .core.merge import MemoryMerger, MergeResult, MergeStats
    from .document.model import Document, Problem
    from .errors import (
        AnswerError,
        ConfigError,
        EntryNotFoundError,
        EverbotMemoryError,
        ExtractionError,
        LockTimeoutError,
        NotTextError,
        StoreError,
        TranscriptError,
    )
    from .extract.base import Extractor
    from .extract.claude import AnthropicExtractor, ClaudeExtractor
    from .extract.claude_cli import ClaudeCliExtractor
    from .extract.openai_chat import OpenAIExtractor
    from .extract.rules import RuleExtractor
    from .extract.summary import summarize_existing
    from .extract.transcripts import Message, Transcript, parse_transcript, read_transcript
    from .facade.memory import Memory, MemoryManager
    from .recall.index import Hit
