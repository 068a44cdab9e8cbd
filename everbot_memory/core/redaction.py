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

__all__ = ["Redactable", "Redaction", "redact", "scrub"]

# What follows a label but is not a secret: a mask (****), a variable or template reference
# (${X}, $X, {{x}}, <x>), a call that fetches it (os.getenv(...)), or words in Chinese ("密码是
# 在设置页面里修改的": the password is changed on the settings page).
_NOT_A_VALUE = r"(?![*•xX]{3,}|\$|\{\{|<|[\w.]+\(|[\u3400-\u9fff])"

# (name, pattern). Order matters where one format contains another (sk-ant- before sk-).
_PATTERNS: list[tuple[str, str]] = [
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("aws-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[0-9A-Z]{16}\b"),
    ("aws-secret", r"(?i)(?<=aws_secret_access_key)(\s*[=:]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab-token", r"\bgl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("google-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("google-token", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("twilio-key", r"\bSK[0-9a-f]{32}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("bearer-token", r"(?i)(?<=\bbearer )[A-Za-z0-9._~+/-]{16,}=*"),
    ("url-credentials", r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),
    # A value after a password label is a secret when it has a digit or a symbol, or ends the
    # clause ("the wifi password is sunshine"); "the password is stored in Vault" is not one.
    (
        "password",
        r"(?i)(?<![A-Za-z])(?:password|passwd|passphrase|pwd|密码|口令)"
        r"(?:\s+(?:is|was)|\s*[=:：]|\s*(?:是|为))\s*[\"'“]?(?!\[redacted)"
        + _NOT_A_VALUE
        + r"(?:(?=[^\s\"'”，。,;；]*[0-9_\-/+=.!@#$%^&*])[^\s\"'”，。,;；]{4,}"
        r"|[^\s\"'”，。,;；]{4,}(?=\s*(?:$|[\"'”,.;:!?，。；：！？)])))",
    ),
    # ... after a weaker label only when it looks like one (long, with a digit or a symbol),
    # so that "the secret is patience" stays as it is.
    (
        "secret",
        r"(?i)(?<![A-Za-z])(?:secret|api[ _-]?key|access[ _-]?token|auth[ _-]?token|token|密钥)"
        r"(?:\s+(?:is|was)|\s*[=:：]|\s*(?:是|为))\s*[\"'“]?(?!\[redacted)"
        + _NOT_A_VALUE
        + r"(?=[^\s\"'”，。,;；]*[0-9_\-/+=.])[^\s\"'”，。,;；]{8,}",
    ),
]
_COMPILED = [(name, re.compile(pattern)) for name, pattern in _PATTERNS]
# A cheap first look: every pattern above needs a long token-like run, a URL, a key block or
# one of these words. Most memories have none, and a save runs this on every entry.
_LONG_RUN = re.compile(r"[A-Za-z0-9_./+=-]{16,}|://|-----BEGIN")
_WORDS = ("pass", "pwd", "secret", "token", "key", "bearer", "密码", "口令", "密钥")


def _maybe_secret(text: str) -> bool:
    if _LONG_RUN.search(text):
        return True
    lowered = text.lower()
    return any(word in lowered for word in _WORDS)


_VALUE_AFTER_LABEL = re.compile(r"^(.*?(?:is|was|[=:：]|是|为))(\s*[\"'“]?)(.*)$", re.I | re.S)
_PLACEHOLDER_RE = re.compile(r"\[redacted:[a-z-]+\]")
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


def _replace(name: str, pattern: re.Pattern[str], text: str, found: list[str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        found.append(name)
        if name in ("password", "secret"):
            # Keep the label ("password is"), drop the value.
            parts = _VALUE_AFTER_LABEL.match(match.group(0))
            if parts:
                return f"{parts.group(1)}{parts.group(2)}[redacted:{name}]"
        if name == "aws-secret":
            return f"{match.group(1)}[redacted:{name}]"
        return f"[redacted:{name}]"

    return pattern.sub(substitute, text)


def redact(text: str) -> Redaction:
    """Replace every secret in ``text`` with ``[redacted:<kind>]``."""
    if not _maybe_secret(text):
        return Redaction(text)
    found: list[str] = []
    for name, pattern in _COMPILED:
        text = _replace(name, pattern, text, found)
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
