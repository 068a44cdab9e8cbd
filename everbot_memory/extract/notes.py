"""The note of a session, made without an LLM: what the user asked for first, the decisions
and the todos the extractor found. (An LLM backend writes the note in its one extraction call;
see :class:`everbot_memory.extract.contract.ExtractionAnswer`.)

The note is about the session, not the user: "Worked on" is the user's first request as they
put it (secrets already replaced), the topics the names and words the user kept coming back
to, the decisions and open threads the memories of those kinds the session produced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..core.candidate import Candidate
from ..core.session_note import SessionNote
from ..core.text import one_line
from .conversation import Messages, message_text

__all__ = ["TOPICS_MAX", "WORKED_ON_MAX", "rules_note", "topics"]

#: "Worked on" is cut to this many characters.
WORKED_ON_MAX = 160
#: At most this many topics.
TOPICS_MAX = 6


# A sentence that asks for work: what a session was about.
_REQUEST = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|\bhelp me\b|\blet'?s\b|\bi (?:need|want|"
    r"would like|'d like) you to\b|^(?:fix|add|write|make|create|build|refactor|debug|"
    r"review|explain|draft|plan|set up|update|remove|rename|migrate|find|check)\b"
    r"|帮我|请你?|麻烦|能不能|可以帮|我想让你|我要你|给我|咱们来|我们来",
    re.I,
)
# A sentence that only says who the user is ("Hi, I'm Marco", "我叫王小明").
_INTRODUCTION = re.compile(
    r"\b(?:my name is|i'?m called|i am [A-Z]|i'?m [A-Z]\w+[,.]|call me)\b"
    r"|我叫|我的名字|我是[^，。]{0,12}(?:工程师|开发|经理|学生)"
)


def _first_request(messages: Messages) -> str:
    """The user's first request (a sentence that asks for work); else the first sentence
    with some substance that is not the user introducing themselves."""
    from .rules.sentences import sentences

    said = [
        sentence
        for message in messages
        if message.get("role") == "user"
        for sentence in sentences(message_text(message))
        if len(sentence.split()) >= 3 or (len(sentence) >= 6 and not sentence.isascii())
    ]
    for sentence in said:
        if _REQUEST.search(sentence):
            return one_line(sentence, WORKED_ON_MAX)
    for sentence in said:
        if not _INTRODUCTION.search(sentence):
            return one_line(sentence, WORKED_ON_MAX)
    return one_line(said[0], WORKED_ON_MAX) if said else ""


# Words that name no topic, however often they are said.
_PLAIN_WORDS = """about after again also because been before being could does doing done from have
    here into just know like make maybe more much need needs only other please really right
    same should some still sure thanks thank that their them then there these they thing
    things think this those through want wants what when where which while will with would
    your yours help okay fine good great well can't don't it's i'm that's let's"""
_PLAIN = frozenset(_PLAIN_WORDS.split())
_PLACEHOLDER = re.compile(r"\[redacted:[^\]]*\]")
_WORD = re.compile(r"`([^`\n]{2,40})`|[A-Za-z][\w.+#-]*[\w+#]")


def topics(messages: Messages, limit: int = TOPICS_MAX) -> tuple[str, ...]:
    """What the user's messages were about: names and code they wrote (a capital past a
    sentence's start, a digit, a dot, a ``code span``) and words said at least twice, the
    most said first. Latin-script words only; a Chinese session is told by its first request."""
    from .rules.sentences import sentences

    counts: dict[str, int] = {}
    shown: dict[str, str] = {}
    marked: set[str] = set()
    for message in messages:
        if message.get("role") != "user":
            continue
        for said in sentences(message_text(message)):
            sentence = _PLACEHOLDER.sub(" ", said)  # a redacted secret is no topic
            for n, match in enumerate(_WORD.finditer(sentence)):
                word = (match.group(1) or match.group(0)).strip(".")
                key = word.casefold()
                short = len(key) < 3 and not (len(key) == 2 and word.isupper())
                if short or key in _PLAIN or "[redacted" in key:
                    continue
                counts[key] = counts.get(key, 0) + 1
                shown.setdefault(key, word)
                if (
                    match.group(1)
                    or (n and word[0].isupper())
                    or any(c.isdigit() or c in "._" for c in word)
                ):
                    marked.add(key)
    chosen = [k for k in counts if k in marked or (counts[k] >= 2 and len(k) >= 4)]
    chosen.sort(key=lambda k: (-counts[k], k not in marked))
    return tuple(shown[k] for k in chosen[:limit])


def rules_note(
    messages: Messages, candidates: Sequence[Candidate], session_id: str, at: datetime
) -> SessionNote:
    """The note of a session from its messages and the memories extracted from it."""
    decisions = tuple(
        dict.fromkeys(c.content for c in candidates if c.category == "decision" and not c.confirms)
    )
    threads = tuple(
        dict.fromkeys(
            c.content
            for c in candidates
            if c.category == "todo" and not c.forget and not c.confirms
        )
    )
    return SessionNote(
        session_id, at, _first_request(messages), decisions, threads, topics(messages)
    )
