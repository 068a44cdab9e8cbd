"""A secret format: its kind, the words that let a text skip it, its pattern, and a check."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Rule", "field", "plausible", "token"]


@dataclass(frozen=True)
class Rule:
    """One secret format.

    ``kind`` names the placeholder (``[redacted:<kind>]``). The pattern is tried only on a text
    holding one of ``keywords`` (lowercase, none: any text), and unless the secret may be
    ``short`` (a password), only on a text with a long token-like run. When the pattern has a
    group named ``secret`` only that group is replaced, so a label ("password: ") stays;
    ``check`` may turn a match down (a placeholder, a failed checksum).
    """

    kind: str
    keywords: tuple[str, ...]
    source: str
    check: Callable[[re.Match[str]], bool]
    short: bool = False

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern, compiled on first use: most texts hold no rule's keyword, and
        compiling every rule would cost each process (a hook among them) tens of ms."""
        return re.compile(self.source)


# Placeholders in docs and examples: sk-xxxx, ****, ..., <token>, YOUR_KEY.
_PLACEHOLDER = re.compile(r"(?i)x{4,}|\*{3,}|•{3,}|\.{3}|…|<|>|\$\{|\{\{|your[_-]?")


def plausible(value: str) -> bool:
    """True unless ``value`` is a placeholder or too uniform to be random (0000..., abab...)."""
    return len(set(value)) >= 6 and not _PLACEHOLDER.search(value)


def token(kind: str, keywords: str, pattern: str, check: Callable[[str], bool] = plausible) -> Rule:
    """A token with a shape of its own, matched as a whole word (no letter or digit on either
    side, so a longer identifier that happens to hold the shape is left alone)."""
    bounded = rf"(?<![A-Za-z0-9])(?:{pattern})(?![A-Za-z0-9])"
    return Rule(kind, tuple(keywords.split()), bounded, lambda m: check(m.group(0)))


def field(
    kind: str,
    keywords: str,
    pattern: str,
    check: Callable[[re.Match[str]], bool] = lambda m: plausible(m.group("secret")),
    short: bool = False,
) -> Rule:
    """A value found by what stands around it (a label, a URL's shape); the pattern is used as
    written and names the value ``secret``, which alone is replaced."""
    return Rule(kind, tuple(keywords.split()), pattern, check, short)
