"""How the rules word a memory: the user's voice turned into a sentence about the user.

"I check the dashboard" said by the user becomes "The user checks the dashboard."; "我的猫" becomes
"用户的猫". Each rule module builds its memories with these helpers.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Rule", "sentence", "third_person", "verb_phrase", "zh_third_person"]

#: A rule: (pattern, category or "explicit", importance, builds the memory from the match).
Rule = tuple[re.Pattern[str], str, str, Any]

# Words after "I" that are not verbs to inflect ("I always ...", "I am ...").
_NOT_VERBS = {
    "is",
    "was",
    "has",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "must",
    "may",
    "might",
    "did",
    "does",
    "always",
    "usually",
    "never",
    "often",
    "also",
    "really",
    "normally",
    "typically",
    "just",
    "still",
    "sometimes",
    "currently",
    "am",
    "are",
    "rarely",
    "frequently",
    "mostly",
    "generally",
    "only",
    "probably",
    "actually",
    "first",
    "definitely",
    "occasionally",
    "regularly",
    "mainly",
    "primarily",
    "then",
    "now",
    "not",
}


def _verb_s(match: re.Match[str]) -> str:
    word = match.group(2)
    lowered = word.lower()
    if lowered in _NOT_VERBS or not word.isalpha():
        return match.group(0)
    if lowered == "have":
        inflected = "has"
    elif lowered.endswith(("s", "sh", "ch", "x", "z", "o")):
        inflected = word + "es"
    elif lowered.endswith("y") and lowered[-2:-1] not in "aeiou":
        inflected = word[:-1] + "ies"
    else:
        inflected = word + "s"
    return match.group(1) + inflected


def verb_phrase(text: str) -> str:
    """'check the dashboard' -> 'checks the dashboard' (the user is the subject)."""
    return re.sub(r"^()([A-Za-z]+)", _verb_s, third_person(text))


def third_person(clause: str) -> str:
    """'I ... my ...' said by the user, as a sentence about the user."""
    clause = clause.strip().rstrip(".!")
    clause = re.sub(r"^(I )(\w+)", _verb_s, clause)
    replacements = [
        (r"\bI am\b", "the user is"),
        (r"\bI'm\b", "the user is"),
        (r"\bI've\b", "the user has"),
        (r"\bI'll\b", "the user will"),
        (r"\bI\b", "the user"),
        (r"\bmy\b", "the user's"),
        (r"\bme\b", "the user"),
        (r"\bmyself\b", "themselves"),
    ]
    for pattern, replacement in replacements:
        clause = re.sub(pattern, replacement, clause, flags=re.I)
    return clause


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a final full stop."""
    text = text.strip()
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def zh_third_person(text: str) -> str:
    """A Chinese clause said by the user, about the user: 我 -> 用户, 我们 -> 团队."""
    text = text.strip().rstrip("。！!.")
    text = re.sub(r"^我们", "团队", text)
    text = re.sub(r"我的", "用户的", text)
    text = re.sub(r"^我", "用户", text)
    return text
