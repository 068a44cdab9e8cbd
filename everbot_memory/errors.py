"""The exceptions everbot-memory raises.

Every error the engine reports derives from one base class, so a caller can catch them all::

    EverbotMemoryError
    ├── StoreError            the memory file cannot be read or written
    │   ├── NotTextError      the file is not UTF-8 text (binary, or another encoding)
    │   └── LockTimeoutError  another writer held the lock past the timeout
    ├── EntryNotFoundError    no memory has the id that was asked for
    ├── TranscriptError       a conversation could not be read
    ├── ConfigError           a setting (config file, environment, flag) is not valid
    └── ExtractionError       the extractor failed (API error, rejected key, timeout, the
        │                     SDK or the ``claude`` program missing, the program failing)
        └── AnswerError       the model answered, but not usably (not JSON, not the schema,
                              unknown ids, a refusal, cut short)

Each message is one line a person can act on; the original exception is chained with ``from``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AnswerError",
    "ConfigError",
    "EntryNotFoundError",
    "EverbotMemoryError",
    "ExtractionError",
    "LockTimeoutError",
    "NotTextError",
    "StoreError",
    "TranscriptError",
]


class EverbotMemoryError(Exception):
    """Base class of every error everbot-memory raises on purpose."""


class StoreError(EverbotMemoryError):
    """The memory file could not be read or written; the file on disk is unchanged."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class NotTextError(StoreError):
    """The memory file is not UTF-8 text, so it is not a MEMORY.md the engine may rewrite."""


class LockTimeoutError(StoreError):
    """Another writer held the file's lock for longer than the timeout."""


class EntryNotFoundError(EverbotMemoryError):
    """No memory has the requested id."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"no memory has id {entry_id!r} (see `everbot-memory list`)")
        self.entry_id = entry_id


class ExtractionError(EverbotMemoryError):
    """Extracting memories from a conversation failed; nothing was written, and the session
    is not marked as merged, so closing it again retries."""


class AnswerError(ExtractionError):
    """The model answered, but the answer cannot be used; ``problem`` says why in one line."""

    def __init__(self, problem: str, message: str | None = None) -> None:
        super().__init__(message or problem)
        self.problem = problem


class ConfigError(EverbotMemoryError):
    """A setting is not valid: a config file that is not TOML, an unknown key or value."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class TranscriptError(EverbotMemoryError):
    """A transcript could not be read: missing, not text, or holding no conversation."""
