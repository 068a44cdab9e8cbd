"""The choices a user makes by name, and which extractor reads a conversation (decided here,
and nowhere else).

The extractor named in the settings (:mod:`.config`) runs: ``anthropic`` (alias ``claude``),
``claude-cli``, ``openai`` or ``rules``. ``auto`` means anthropic when ``ANTHROPIC_API_KEY``
is set and the ``claude`` extra (the anthropic SDK) is installed, else the offline rules; with
a key but no SDK the choice says so in a warning. ``auto`` never picks ``claude-cli`` or
``openai``: a backend that spends the user's usage or reaches a server runs only by name.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..errors import ExtractionError
from ..extract.child import CHILD_ENV
from ..extract.transcripts import FORMATS
from .config import ALIASES, EXTRACTORS, Settings, load_settings

if TYPE_CHECKING:
    from ..extract.base import Extractor

__all__ = [
    "CHILD_ENV",
    "EXTRACTORS",
    "PROMPT_LANGUAGES",
    "SECTIONS",
    "TRANSCRIPT_FORMATS",
    "Choice",
    "choose_extractor",
    "claude_installed",
    "explain_choice",
    "installed",
    "resolve_choice",
]

Section = Literal["active", "archived", "all"]
#: The sections a listing may ask for.
SECTIONS: tuple[str, ...] = ("active", "archived", "all")
#: The languages of the prompt block's heading and framing.
PROMPT_LANGUAGES: tuple[str, ...] = ("en", "zh")
#: The transcript formats a user may name; ``auto`` detects the format.
TRANSCRIPT_FORMATS: tuple[str, ...] = FORMATS

#: How to install what the anthropic extractor needs.
CLAUDE_EXTRA = "pip install -e '.[claude]'"
#: How to install what the openai extractor needs.
OPENAI_EXTRA = "pip install -e '.[openai]'"


@dataclass(frozen=True)
class Choice:
    """An extractor chosen by name: the extractor, its resolved name, why it was chosen, and
    what the user should know about the choice (None: nothing)."""

    extractor: Extractor
    name: str
    warning: str | None = None
    reason: str = ""


def installed(module: str) -> bool:
    """True when ``module`` is installed (looked up, not imported: an SDK takes a second)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # imported already, by a module that left no spec: it is there
        return True


def claude_installed() -> bool:
    """True when the anthropic SDK is installed."""
    return installed("anthropic")


def explain_choice(settings: Settings) -> tuple[str, str]:
    """The backend ``settings`` choose, and why, in words a person reads."""
    name = ALIASES.get(settings.extractor, settings.extractor)
    if name != "auto":
        given = f"extractor = {settings.extractor!r} from {settings.source('extractor')}"
        return name, given
    key = bool(os.environ.get("ANTHROPIC_API_KEY"))
    if key and claude_installed():
        return "anthropic", "auto: ANTHROPIC_API_KEY is set and the anthropic SDK is installed"
    if key:
        return "rules", "auto: ANTHROPIC_API_KEY is set but the 'claude' extra is not installed"
    return "rules", "auto: ANTHROPIC_API_KEY is not set (other backends run only by name)"


def resolve_choice(name: str) -> str:
    """``name`` with its alias and ``auto`` resolved (``anthropic`` when an API key is set and
    the SDK is installed, else ``rules``)."""
    if name not in EXTRACTORS:
        raise ValueError(f"unknown extractor {name!r}; use one of {', '.join(EXTRACTORS)}")
    return explain_choice(Settings(extractor=name))[0]


def choose_extractor(settings: Settings | str = "auto", model: str | None = None) -> Choice:
    """The extractor the settings name (a name alone: with the user's file and the
    environment, ``model`` for its model); :class:`ExtractionError` when the chosen backend
    cannot run here (its SDK or program missing)."""
    if isinstance(settings, str):
        settings = load_settings(None, extractor=settings, model=model)
    name, reason = explain_choice(settings)
    warning = None
    if name == "anthropic":
        if not claude_installed():
            raise ExtractionError(
                f"the anthropic extractor needs the 'claude' extra: {CLAUDE_EXTRA} "
                "(or use --extractor rules)"
            )
        from ..extract.claude import AnthropicExtractor

        extractor: Extractor = AnthropicExtractor(
            model=settings.model, base_url=settings.base_url, timeout=settings.timeout
        )
        return Choice(extractor, name, warning, reason)
    if name == "openai":
        if not installed("openai"):
            raise ExtractionError(
                f"the openai extractor needs the 'openai' extra: {OPENAI_EXTRA} "
                "(or use --extractor rules)"
            )
        from ..extract.openai_chat import OpenAIExtractor

        extractor = OpenAIExtractor(
            model=settings.model, base_url=settings.base_url, timeout=settings.timeout
        )
        return Choice(extractor, name, warning, reason)
    if name == "claude-cli":
        from ..extract.claude_cli import ClaudeCliExtractor, find_program

        find_program()  # missing: say so now, before any work
        if settings.base_url:
            warning = "base_url is set but the claude-cli extractor does not use it"
        return Choice(
            ClaudeCliExtractor(model=settings.model, timeout=settings.timeout),
            name,
            warning,
            reason,
        )
    from ..extract.rules import RuleExtractor

    if settings.extractor == "auto" and os.environ.get("ANTHROPIC_API_KEY"):
        # The user meant Claude to read their sessions: say why it does not, in one line.
        warning = (
            "ANTHROPIC_API_KEY is set but the 'claude' extra is not installed: "
            f"{CLAUDE_EXTRA}; using the offline rules"
        )
    return Choice(RuleExtractor(), name, warning, reason)
