"""Secret redaction: API keys, tokens, passwords and private keys never reach MEMORY.md.

:func:`redact` replaces each secret in a text with a placeholder such as
``[redacted:aws-key]``; :func:`scrub` applies the engine's one policy to a list of memories
(entries or candidates): secrets replaced, a memory that was nothing but a secret dropped, and a
warning for each. Every path into the file goes through :func:`scrub`. Patterns are anchored on
the fixed prefixes and shapes the providers publish, so ordinary text (hex ids, version numbers,
URLs without credentials) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from .secrets import RULES, Rule
from .secrets.fields import LONGEST, VALUE_GOES_ON

__all__ = ["Redactable", "Redaction", "redact", "scrub"]

# A cheap first look. Most rules need a long token-like run (or digit groups, for card
# numbers); the few whose secret may be short (a password) need one of their keywords. Most
# memories hold neither, and a save runs this on every entry.
# Two searches, not one with an alternative: the engine then tries one branch per position.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_./+=~:-]{12}")
_DIGIT_GROUPS = re.compile(r"\d{3,6}[ -]\d{4}")
_SHORT_RULES = tuple(rule for rule in RULES if rule.short)


def _any_of(words: set[str]) -> str:
    """A pattern matching any of ``words``, as a tree of their common beginnings: the engine
    tries one branch per character instead of every word at every position (a save runs the
    first look on every entry, and a long transcript is hundreds of KB). A word another one
    begins with is enough: the longer one is not spelled out."""
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in sorted(words, key=len):
        node = tree
        for char in word:
            if "" in node:
                break  # a shorter word already matches here
            node = node.setdefault(char, {})
        else:
            node.clear()
            node[""] = {}

    def pattern(node: dict) -> str:  # type: ignore[type-arg]
        if "" in node:
            return ""
        branches = [re.escape(char) + pattern(rest) for char, rest in sorted(node.items())]
        return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"

    return pattern(tree) if tree else "(?!)"


_SHORT_KEYWORDS = re.compile(_any_of({k for r in _SHORT_RULES for k in r.keywords}))

_PLACEHOLDER_RE = re.compile(r"\[redacted:[a-z0-9-]+\]")
# Words that say nothing once the secret is gone ("my API key is [redacted]").
_FILLER = re.compile(
    r"(?i)\b(?:the|user'?s?|my|our|your|is|was|are|a|an|for|to|use|uses|this|that|it|here|"
    r"key|keys|api|token|tokens|password|secret|credentials?|private|access|bearer|auth|"
    r"remember|please|new|old|value|=|:)\b|[用户的我是为密码密钥口令请记住这个新旧]"
)


@dataclass(frozen=True)
class Redaction:
    """What :func:`redact` did: the cleaned text, the kinds of secret found, and whether the
    text was nothing but a secret (then it should not be kept at all)."""

    text: str
    found: tuple[str, ...] = ()
    only_secret: bool = False


def _apply(rule: Rule, text: str, found: list[str]) -> str:
    placeholder = f"[redacted:{rule.kind}]"
    partial = "secret" in rule.pattern.groupindex
    # A placeholder an earlier rule left is no secret: a later rule must not eat into it
    # ("https://[redacted:aws-key]@host" read as user "[redacted" with password "aws-key]").
    placeholders = (
        [m.span() for m in _PLACEHOLDER_RE.finditer(text)] if "[redacted:" in text else []
    )
    out: list[str] = []
    done = 0  # text[:done] is in out
    at = 0
    while (match := rule.pattern.search(text, at)) is not None:
        start, end = match.span("secret") if partial else match.span()
        if any(s < end and start < e for s, e in placeholders) or not rule.check(match):
            # Turned down ("API key Secret" is no key): look again one character on, where
            # the real label may start ("Secret 是 ...").
            at = match.start() + 1
            continue
        found.append(rule.kind)
        if partial and end - start == LONGEST:
            # A value read for the most characters a label's value is read: it goes on.
            end = VALUE_GOES_ON.match(text, end).end()  # type: ignore[union-attr]
        # Keep what stands around the value ("password: "), drop the value.
        out += [text[done:start], placeholder]
        done, at = end, max(end, match.end(), match.start() + 1)
    return "".join(out) + text[done:] if out else text


def _rules_for(text: str) -> tuple[Rule, ...]:
    """The rules worth running on ``text``: none for most text (the cheap first look)."""
    # Placeholders from an earlier save are no secrets, and would pass the first look.
    probe = _PLACEHOLDER_RE.sub(" ", text) if "[redacted:" in text else text
    if _TOKEN_RUN.search(probe) or _DIGIT_GROUPS.search(probe):
        return RULES
    if _SHORT_KEYWORDS.search(probe.lower()):
        return _SHORT_RULES
    return ()


def redact(text: str) -> Redaction:
    """Replace every secret in ``text`` with ``[redacted:<kind>]``."""
    rules = _rules_for(text)
    if not rules:
        return Redaction(text)
    probe = _PLACEHOLDER_RE.sub(" ", text) if "[redacted:" in text else text
    lowered = probe.lower()
    found: list[str] = []
    for rule in rules:
        if not rule.keywords or any(keyword in lowered for keyword in rule.keywords):
            text = _apply(rule, text, found)
    if not found:
        return Redaction(text)
    rest = _FILLER.sub(" ", _PLACEHOLDER_RE.sub(" ", text).replace("_", " "))
    meaningful = re.findall(r"[^\W_]{2,}|[\u3400-\u9fff]", rest)
    return Redaction(text, tuple(dict.fromkeys(found)), only_secret=len(meaningful) < 2)


class Redactable(Protocol):
    """A memory whose content may hold a secret (an entry or a candidate)."""

    @property
    def content(self) -> str: ...


R = TypeVar("R", bound=Redactable)


def scrub(
    items: Sequence[R],
    rewrite: Callable[[R, str], R],
    name: Callable[[R], str] = lambda item: "a new memory",
) -> tuple[list[R], list[str]]:
    """The policy every writer applies: secrets in ``items`` replaced by placeholders (through
    ``rewrite(item, text)``), items that were nothing but a secret dropped.

    Returns the items kept and one warning per change, naming each item with ``name(item)``.
    """
    kept: list[R] = []
    warnings: list[str] = []
    for item in items:
        if not _rules_for(item.content):
            # Most memories: nothing to look for. A save runs this on every one of them, so
            # the first look is taken here, without building a result for each.
            kept.append(item)
            continue
        result = redact(item.content)
        kinds = ", ".join(result.found)
        if not result.found:
            kept.append(item)
        elif result.only_secret:
            warnings.append(f"dropped {name(item)}: it held only a secret ({kinds})")
        else:
            warnings.append(f"redacted {kinds} in {name(item)}")
            kept.append(rewrite(item, result.text))
    return kept, warnings
