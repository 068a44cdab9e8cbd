"""The choices a user makes by name, and which extractor reads a conversation (decided here,
and nowhere else).

``auto`` means Claude when ``ANTHROPIC_API_KEY`` is set and the ``claude`` extra (the anthropic
SDK) is installed, else the offline rules; with a key but no SDK the choice says so in a
warning. A paid backend is never chosen without a key the user set.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..errors import ExtractionError
from ..extract.transcripts import FORMATS

if TYPE_CHECKING:
    from ..extract.base import Extractor

__all__ = [
    "EXTRACTORS",
    "PROMPT_LANGUAGES",
    "SECTIONS",
    "TRANSCRIPT_FORMATS",
    "Choice",
    "Section",
    "choose_extractor",
    "claude_installed",
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


#: How to install what the Claude extractor needs.
CLAUDE_EXTRA = "pip install -e '.[claude]'"


@dataclass(frozen=True)
class Choice:
    """An extractor chosen by name: the extractor, its resolved name, and what the user should
    know about the choice (None: nothing)."""

    extractor: Extractor
    name: str
    warning: str | None = None


def claude_installed() -> bool:
    """True when the anthropic SDK is installed (looked up, not imported: that takes a second)."""
    try:
        return importlib.util.find_spec("anthropic") is not None
    except ValueError:  # imported already, by a module that left no spec: it is there
        return True


def resolve_choice(name: str) -> str:
    """``name`` with ``auto`` resolved: ``claude`` when an API key is set and the SDK is
    installed, else ``rules``."""
    if name not in EXTRACTORS:
        raise ValueError(f"unknown extractor {name!r}; use one of {', '.join(EXTRACTORS)}")
    if name == "auto":
        use_claude = bool(os.environ.get("ANTHROPIC_API_KEY")) and claude_installed()
        return "claude" if use_claude else "rules"
    return name


def choose_extractor(name: str = "auto", model: str | None = None) -> Choice:
    """The extractor called ``name`` (``model`` for Claude); :class:`ExtractionError` when
    ``claude`` is asked for by name and its SDK is not installed."""
    chosen = resolve_choice(name)
    if chosen == "claude":
        if not claude_installed():
            raise ExtractionError(
                f"the claude extractor needs the 'claude' extra: {CLAUDE_EXTRA} "
                "(or use --extractor rules)"
            )
        from ..extract.claude import ClaudeExtractor

        return Choice(ClaudeExtractor(model=model), chosen)
    from ..extract.rules import RuleExtractor

    warning = None
    if name == "auto" and os.environ.get("ANTHROPIC_API_KEY"):
        # The user meant Claude to read their sessions: say why it does not, in one line.
        warning = (
            "ANTHROPIC_API_KEY is set but the 'claude' extra is not installed: "
            f"{CLAUDE_EXTRA}; using the offline rules"
        )
    return Choice(RuleExtractor(), chosen, warning)
