"""Searching the session notes: "what did we do last Tuesday?", "上周二我们做了什么".

A date in the question (:func:`everbot_memory.recall.days.past_span`) keeps only the sessions
of those days; the rest of the question is matched against each session's note with the same
BM25 and tokens as memory recall, with the same absolute floor. A question that names days but
nothing else to look for ("what did we do yesterday?") gets every session of those days, the
latest first.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ..core import ranking
from ..core.session_note import NoteSection, parse_day
from ..core.text import CJK_RE, search_tokens
from ..storage.notes import NotesFolder
from .days import Span, past_span

__all__ = ["NoteHit", "search_notes"]

# Chinese ways of asking what happened, cut out before the question is tokenized.
_ASKING_ZH = re.compile(r"我们|咱们|你们|做了|干了|聊了|讨论了?|说了|什么|啥|哪些|吗|呢|[?？]")
# Words of a question about what happened, which tell no session apart.
_QUESTION_WORDS = frozenset(
    search_tokens(
        "what did we do work worked on session sessions happen happened talk talked discuss "
        "discussed about 我们 做了 做了什么 干了 干了什么 聊了 讨论 讨论了 会话"
    )
)


@dataclass(frozen=True)
class NoteHit:
    """A session note that answers a question: its day, time and session, its text, and how
    much of the question it matches (1.0 when only its day was asked for)."""

    day: date
    time: str | None
    session: str | None
    text: str
    relevance: float
    open_threads: tuple[str, ...]
    path: Path
    line: int

    def to_json(self) -> dict[str, Any]:
        """The hit as JSON values."""
        return {
            "day": self.day.isoformat(),
            "time": self.time,
            "session": self.session,
            "text": self.text,
            "relevance": round(self.relevance, 4),
            "open_threads": list(self.open_threads),
            "file": str(self.path),
            "line": self.line,
        }


def _units(folder: NotesFolder, span: Span | None) -> list[tuple[date, Path, NoteSection]]:
    units = []
    for day, path in folder.days():
        if span is not None and not span[0] <= day <= span[1]:
            continue
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue  # removed meanwhile
        units += [(day, path, section) for section in parse_day(text) if section.text]
    return units


def search_notes(
    memory_path: str | os.PathLike[str], query: str, k: int, today: date
) -> tuple[list[NoteHit], Span | None]:
    """The ``k`` session notes that best answer ``query`` (asked on ``today``), best first,
    and the days the question named (None: any day)."""
    folder = NotesFolder(memory_path)
    named = past_span(query, today)
    span = named[0] if named else None
    rest = query.replace(named[1], " ") if named else query
    rest = _ASKING_ZH.sub(" ", rest)
    terms = [t for t in search_tokens(rest) if t not in _QUESTION_WORDS]
    units = _units(folder, span)
    if not units:
        return [], span
    if not terms:
        if span is None:
            return [], span
        return [_hit(u, 1.0) for u in _latest_first(units)[:k]], span
    postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
    lengths = []
    for number, (_, _, section) in enumerate(units):
        tokens = search_tokens(f"{section.heading}\n{section.text}")
        lengths.append(len(tokens))
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        for token, count in counts.items():
            postings[token].append((number, count))
    average = sum(lengths) / len(lengths)

    def single(term: str) -> bool:
        return len(term) == 1 and CJK_RE.match(term) is not None

    scores = ranking.bm25(terms, lambda t: postings.get(t, []), lengths, average, single)
    found = [(value, n) for n, value in scores.items() if value >= ranking.RELEVANCE_FLOOR]
    if not found and span is not None:
        # The day was asked for and its notes do not hold the other words (asked in
        # Chinese of a session held in English, "what did we decide" of a day with no
        # decision): that day's sessions are still the answer.
        return [_hit(u, 1.0) for u in _latest_first(units)[:k]], span
    found.sort(key=lambda pair: (-pair[0], -units[pair[1]][0].toordinal(), pair[1]))
    return [_hit(units[n], value) for value, n in found[:k]], span


def _latest_first(
    units: list[tuple[date, Path, NoteSection]],
) -> list[tuple[date, Path, NoteSection]]:
    return sorted(units, key=lambda u: (u[0], u[2].time or "", u[2].line), reverse=True)


def _hit(unit: tuple[date, Path, NoteSection], relevance: float) -> NoteHit:
    from ..core.redaction import redact

    day, path, section = unit
    # A person may have typed a secret into a note: it is never shown.
    return NoteHit(
        day,
        section.time,
        section.session,
        redact(section.text).text,
        relevance,
        tuple(redact(t).text for t in section.open_threads),
        path,
        section.line,
    )
