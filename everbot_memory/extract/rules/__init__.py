"""The offline extractor: rules for what people say explicitly, in English and Chinese.

It reads only the user's lines, cuts them into sentences and clauses, and matches each clause
against the rules (:mod:`.english`, :mod:`.chinese`), the statements of change
(:mod:`.changes`) and the requests to forget. It prefers a few right memories to many doubtful
ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from ...core.candidate import Candidate
from ...core.entry import Category
from ...core.rules import TODO_DEFAULT_DAYS
from ...core.scoring import expiry_after
from ...core.text import CJK_RE
from ..conversation import message_text, session_day
from ..summary import parse_summary
from . import chinese, english
from .changes import CHANGES, contradicted
from .dates import WHEN_EN, WHEN_ZH, resolve_date
from .wording import sentence, third_person, zh_third_person

__all__ = ["RuleExtractor"]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")
# Clause boundaries inside a sentence: "..., and I ...", "...: my name is ...", "..., so ...".
_CLAUSE_END = re.compile(
    r"(?:,\s*|\s+)(?:and|but)\s+(?=(?:I|my|we)\b)|[:：]\s*(?=(?:I|my|we)\b)|,\s*(?:so|because|since|but)\s+|，(?=我)",
)

# "Forget that ...": the user asks that a memory be deleted.
_FORGET_EN = re.compile(
    r"^(?:please )?(?:forget|stop remembering|don't remember|do not remember)"
    r"(?: (?:that|about|the fact that))? (.{3,})$",
    re.I,
)
_FORGET_ZH = re.compile(r"^(?:请)?(?:忘掉|忘记|别记|不要记|不用记)(?:住)?(?:了)?[：:，, ]*(.{2,})$")
# Words that make a sentence a question or a hypothetical: not a statement about the user.
_NOT_A_STATEMENT = re.compile(
    r"\?$|？$|^(?:if|when|what|how|why|do|does|can|could|would|should|is|are)\b|^(?:如果|假如|要是)|吗$",
    re.I,
)


def _classify(content: str) -> Category:
    """The category of an explicit "remember that ..." memory, by what it says."""
    lowered = content.lower()
    checks: list[tuple[Category, str]] = [
        # A date alone ("read-only on Fridays") is not a todo; a date and something to do is.
        (
            "todo",
            rf"(?:\b{WHEN_EN}\b|{WHEN_ZH}).*(?:need|have to|must|will|要|需要|得|准备|打算|记得)"
            rf"|(?:need|have to|must|will|要|需要|得|准备|打算|记得).*(?:\b{WHEN_EN}\b|{WHEN_ZH})",
        ),
        ("preference", r"\b(?:prefers?|likes?|loves?|hates?|dislikes?)\b|喜欢|偏好|讨厌"),
        ("decision", r"\bdecided\b|决定"),
        ("workflow", r"\b(?:every|always|usually)\b|每天|每周|习惯"),
    ]
    for category, pattern in checks:
        if re.search(pattern, lowered):
            return category
    return "fact"


_LEAD_IN_EN = re.compile(
    r"^(?:(?:also|and|so|oh|btw|by the way|actually|well|ok|okay|hi|hello|hey|big news"
    r"|quick one|fyi)[,:! ]+)+",
    re.I,
)
_LEAD_IN_ZH = re.compile(r"^(?:另外|还有|对了|其实|嗯|你好)[，, ]*")


def _clean(text: str) -> str:
    """The text without quotes and lead-ins ("Hi, ...", "By the way, ...", "另外，...")."""
    text = text.strip(" \t\"'“”「」")
    return _LEAD_IN_ZH.sub("", _LEAD_IN_EN.sub("", text))


class RuleExtractor:
    """The offline extractor: explicit statements by the user, in English and Chinese."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def extract(
        self, messages: Sequence[Mapping[str, Any]], existing_summary: str = ""
    ) -> list[Candidate]:
        """Candidates from the user's own lines (the assistant's are not facts about the user)."""
        self.warnings = []
        found: list[Candidate] = []
        seen: set[str] = set()
        today = session_day(messages)
        known = parse_summary(existing_summary)
        for message in messages:
            if message.get("role") != "user":
                continue
            clauses = (
                clause
                for part in _SENTENCE_END.split(message_text(message))
                for clause in _CLAUSE_END.split(part)
            )
            for clause in clauses:
                candidate, old_value = self._change(clause.strip())
                if candidate is None:
                    candidate = self._match(clause.strip(), today)
                if candidate is not None and known and not candidate.forget:
                    contradicts = contradicted(candidate, old_value, known)
                    if contradicts:
                        candidate = candidate.replace(contradicts=contradicts)
                if candidate is not None and candidate.content.lower() not in seen:
                    seen.add(candidate.content.lower())
                    found.append(candidate)
        return found

    @staticmethod
    def _change(text: str) -> tuple[Candidate | None, str | None]:
        """A memory that a value changed ("I moved from X to Y"), with the old value."""
        text = _clean(text).rstrip(".。!！")
        for pattern, build, old_group in CHANGES:
            match = pattern.match(text)
            if match:
                content = build(match)
                if content:
                    return Candidate(
                        content=content, category="fact", importance="high"
                    ), match.group(old_group)
        return None, None

    @staticmethod
    def _match(text: str, today: date) -> Candidate | None:
        text = _clean(text)
        if len(text) < 4 or _NOT_A_STATEMENT.search(text.rstrip(".。!！")):
            return None
        forget = _FORGET_EN.match(text.rstrip(".。!！")) or _FORGET_ZH.match(text.rstrip(".。!！"))
        if forget:
            said = forget.group(1)
            content = (
                zh_third_person(said) if CJK_RE.search(said[:4]) else sentence(third_person(said))
            )
            return Candidate(content=content, forget=True)
        rules = chinese.RULES if CJK_RE.search(text[:4]) else english.RULES
        for pattern, category, importance, build in rules:
            match = pattern.match(text.rstrip(".。!！"))
            if not match:
                continue
            content = build(match)
            if not content:
                return None
            if category == "explicit":
                category = _classify(content)
            expires = None
            if category == "todo":
                day = resolve_date(text, today) or today + timedelta(days=TODO_DEFAULT_DAYS)
                expires = expiry_after(day)
            return Candidate(
                content=content, category=category, importance=importance, expires_at=expires
            )
        return None
