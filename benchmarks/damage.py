"""Damaged memory texts: what a stored memory must never look like, whatever it says.

Used by ``eval_corpus.py``: each new memory is checked against what the user said. A text is
damaged when

- two words the user said apart run together ("nurseon" from "a nurse on nights");
- it was cut at a dot inside a name, a host or a version ("staging." from "staging.acme.io"),
  or after an abbreviation ("at St.");
- it ends on a word that cannot end a sentence ("..., and.", "...the.", "...因为。");
- it is half rewritten: "the user" with a verb left in the first person ("the user keep",
  "the user works at Acme and live in Leeds"), an adverb inflected as a verb ("the user
  genuinelies can't"), or the user's "I"/"my"/"我" beside "the user"/"用户" outside a
  quotation;
- nothing is left of it but a redacted secret;
- a todo keeps the request made to the assistant ("remind me to...", "帮我...").
"""

from __future__ import annotations

import re

__all__ = ["damage"]

_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|「[^」]*」|(?<!\w)'[^']{12,}'(?!\w)")
_DATE_NOTE = re.compile(r"\s*[(（]\d{4}-\d{2}-\d{2}[)）]\s*$")
_ABBREVIATIONS = frozenset(
    [
        "st",
        "dr",
        "mr",
        "mrs",
        "ms",
        "jr",
        "sr",
        "prof",
        "mt",
        "ft",
        "vs",
        "etc",
        "approx",
        "no",
        "dept",
        "inc",
        "ltd",
        "co",
        "corp",
        "e.g",
        "i.e",
    ]
)
# (A preposition may end one: "the one thing the user keeps reaching for.")
_CANNOT_END = re.compile(
    r"\b(?:and|but|or|the|a|an|my|your|their|our|because|although)[.!]?$"
    r"|(?:和|跟|与|把|被|因为|但是|而且|所以)[。！]?$",
    re.I,
)
_FIRST_PERSON_VERB = re.compile(
    r"\bthe user (?:keep|have|are|am|were|do|don't|doesn't care|go|want|need|think|love|"
    r"hate|live|work"
    # "like" before a quantity is no verb: "it took the user like two weeks".
    r"|like(?!\s+(?:a|an|\d+|two|three|four|five|six|seven|eight|nine|ten|half|several)\b))\b",
    re.I,
)
_ENGLISH_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself)\b")
_ZH_SELF = re.compile(r"我(?!们)")
_REQUEST = re.compile(
    r"\b(?:remind me|can you|could you|would you|please|pls|help me)\b"
    r"|帮我|提醒我|你帮|麻烦你|给我提个醒",
    re.I,
)
_REDACTED = re.compile(r"\[redacted[^\]]*\]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_FILLER = frozenset(
    [
        "the",
        "user",
        "user's",
        "users",
        "is",
        "was",
        "are",
        "has",
        "have",
        "their",
        "them",
        "they",
        "a",
        "an",
        "and",
        "of",
        "to",
        "in",
        "at",
        "on",
        "for",
        "with",
        "his",
        "her",
        "its",
        "this",
        "that",
        "it",
    ]
)


def _said_words(said: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(said)}


# Verbs that end in -ly ("relies", "applies" are right); any other "-lies" after the user is
# an adverb made a verb ("the user genuinelies can't").
_VERBS_IN_LY = frozenset(
    [
        "rely",
        "apply",
        "reapply",
        "reply",
        "supply",
        "imply",
        "comply",
        "multiply",
        "rally",
        "tally",
        "bully",
        "ally",
        "fly",
    ]
)
# "the user works at Acme and live in Leeds": the second verb of the same subject.
_SECOND_VERB_BARE = re.compile(
    r"\bthe user (?:is|has|\w+s)\b(?:(?! to |[,;.!?]).)*? and (?:live|work|love|like|hate|meet|"
    r"use|need|want|teach|write|play|study|drive|own|speak|prefer|enjoy|cook|manage|spend)\b",
    re.I,
)


def damage(content: str, said: str, category: str = "") -> str | None:
    """Why ``content`` (a stored memory) is damaged against ``said`` (the user's words), or
    None."""
    text = _DATE_NOTE.sub("", content).strip()
    bare = _QUOTED.sub(" ", text)
    lowered_said = said.casefold()
    words = _said_words(said)
    # Words run together.
    for word in _WORD.findall(bare):
        w = word.casefold()
        if len(w) < 6 or w in words or w.rstrip("s") in words:
            continue
        for cut in range(2, len(w) - 1):
            a, b = w[:cut], w[cut:]
            if (
                a in words
                and b in words
                and re.search(rf"\b{re.escape(a)}[\s\W]+{re.escape(b)}\b", lowered_said)
            ):
                return f"words run together: {word!r}"
    # Cut at a dot.
    end = re.search(r"([\w-]+)\.$", text)
    if end:
        last = end.group(1)
        if last.casefold() in _ABBREVIATIONS:
            return f"cut after the abbreviation {last!r}."
        inside = re.search(rf"(?<![\w.]){re.escape(last)}\.[A-Za-z0-9]", said)
        if inside and not re.search(rf"(?<![\w.]){re.escape(last)}\.(?:\s|$)", said):
            return f"cut at the dot inside {said[inside.start() : inside.end() + 12]!r}"
    if _CANNOT_END.search(text):
        return "ends on a word that cannot end it"
    if _FIRST_PERSON_VERB.search(bare):
        return "half rewritten: a first-person verb after 'the user'"
    for word in re.findall(r"\b[a-z]{4,}lies\b", bare):
        if word[:-3] + "y" not in _VERBS_IN_LY and word not in lowered_said:
            return f"an adverb inflected as a verb: {word!r}"
    if _SECOND_VERB_BARE.search(bare):
        return "half rewritten: a second verb of 'the user' left uninflected"
    if re.search(r"\bthe user\b", bare, re.I) and _ENGLISH_SELF.search(bare):
        return "half rewritten: 'the user' beside the user's own 'I'/'my'"
    if "用户" in bare and _ZH_SELF.search(bare):
        return "half rewritten: 用户 beside the user's own 我"
    rest = _REDACTED.sub(" ", text)
    if rest != text:
        latin = [w for w in _WORD.findall(rest) if w.casefold() not in _FILLER and len(w) > 2]
        cjk = re.findall(r"[\u4e00-\u9fff]", rest.replace("用户", ""))
        if len(latin) < 2 and len(cjk) < 3:
            return "nothing but a redacted secret"
    if category == "todo" and _REQUEST.search(bare):
        return "a todo that keeps the request to the assistant"
    return None
