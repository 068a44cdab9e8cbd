"""The offline extractor: rules for what people say explicitly, in English and Chinese.

It reads only the user's lines, cuts them into sentences and clauses, and matches each clause
against the rules (:mod:`.english`, :mod:`.chinese`), the statements of change
(:mod:`.changes`) and the requests to forget. It prefers a few right memories to many doubtful
ones. The extractor itself is in :mod:`.extractor`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .extractor import RuleExtractor, judged, statement

__all__ = ["RuleExtractor", "judged", "statement"]


def __getattr__(name: str) -> object:
    # Loaded on first use: ``remember`` imports only the statements of change (.changes),
    # and every command that remembers would otherwise pay for the whole rule set (about
    # 30 ms: the English and Chinese rules, the selector's weights, the sentence splitter).
    if name in __all__:
        from . import extractor

        return getattr(extractor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
