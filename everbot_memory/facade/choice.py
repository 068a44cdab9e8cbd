"""The choices a user makes by name, and which extractor reads a conversation (decided here,
and nowhere else).

``auto`` means Claude when ``ANTHROPIC_API_KEY`` is set, else the offline rules. A paid
backend is never chosen without a key the user set.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal

from ..extract.transcripts import FORMATS

if TYPE_CHECKING:
    from ..extract.base import Extractor

__all__ = [
    "EXTRACTORS",
    "PROMPT_LANGUAGES",
    "SECTIONS",
    "TRANSCRIPT_FORMATS",
    "Section",
    "choose_extractor",
    "resolve_choice",
]

#: The names a user may give for an extractor.
EXTRACTORS: tuple[str, ...] = ("auto", "claude", "rules")
Section = Literal["active", "archived", "all"]
#: The sections a listing may ask for.
SECTIONS: tuple[str, ...] = ("active", "archived", "all")
#: The languages of the prompt block's heading and framing.
PROMPT_LANGUAGES: tuple[str, ...] = ("en", "zh")
#: The transcript formats a user may name; ``auto`` detects the format.
TRANSCRIPT_FORMATS: tuple[str, ...] = FORMATS


def resolve_choice(name: str) -> str:
    """``name`` with ``auto`` resolved: ``claude`` when an API key is set, else ``rules``."""
    if name not in EXTRACTORS:
        raise ValueError(f"unknown extractor {name!r}; use one of {', '.join(EXTRACTORS)}")
    if name == "auto":
        return "claude" if os.environ.get("ANTHROPIC_API_KEY") else "rules"
    return name


def choose_extractor(name: str = "auto", model: str | None = None) -> tuple[Extractor, str]:
    """The extractor called ``name`` (``model`` for Claude), and its resolved name."""
    chosen = resolve_choice(name)
    if chosen == "claude":
        from ..extract.claude import ClaudeExtractor

        return ClaudeExtractor(model=model), chosen
    from ..extract.rules import RuleExtractor

    return RuleExtractor(), chosen
