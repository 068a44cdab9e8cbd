"""Dates in what people say: "tomorrow", "next Wednesday", "下周三", "3月5日", from a given day."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

__all__ = ["WEEKDAYS", "WHEN_EN", "WHEN_ZH", "resolve_date"]

WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
WHEN_EN = (
    rf"(?:tomorrow|tonight|next (?:week|month|year|{WEEKDAYS})|this (?:{WEEKDAYS}|weekend|"
    rf"friday)|on (?:{WEEKDAYS})|by (?:{WEEKDAYS}|tomorrow|the end of \w+|next \w+)|"
    rf"in \d+ (?:days|weeks)|before (?:{WEEKDAYS}|the \w+))"
)
WHEN_ZH = r"(?:明天|后天|下周[一二三四五六日天]?|下个?月|下星期[一二三四五六日天]?|这周[一二三四五六日天]|周[一二三四五六日天]|星期[一二三四五六日天]|月底|年底|\d+月\d+[日号])"
_WEEKDAY_EN = {d: i for i, d in enumerate(WEEKDAYS.split("|"))}
_WEEKDAY_ZH = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6}


def resolve_date(text: str, today: date) -> date | None:
    """The day a todo names ("tomorrow", "next Wednesday", "下周三", "3月5日"), from ``today``."""
    lowered = text.lower()

    def upcoming(weekday: int, next_week: bool) -> date:
        if next_week:
            return today - timedelta(days=today.weekday()) + timedelta(days=7 + weekday)
        return today + timedelta(days=(weekday - today.weekday()) % 7)

    checks: list[tuple[str, Any]] = [
        (r"\bday after tomorrow\b|后天", lambda m: today + timedelta(days=2)),
        (r"\btomorrow\b|明天", lambda m: today + timedelta(days=1)),
        (r"\btonight\b|\btoday\b|今天|今晚", lambda m: today),
        (rf"\bnext ({WEEKDAYS})\b", lambda m: upcoming(_WEEKDAY_EN[m.group(1)], True)),
        (
            rf"\b(?:this|on|by|before) ({WEEKDAYS})\b",
            lambda m: upcoming(_WEEKDAY_EN[m.group(1)], False),
        ),
        (
            r"下(?:周|星期|个星期)([一二三四五六日天])",
            lambda m: upcoming(_WEEKDAY_ZH[m.group(1)], True),
        ),
        (
            r"(?:这|本)?(?:周|星期)([一二三四五六日天])",
            lambda m: upcoming(_WEEKDAY_ZH[m.group(1)], False),
        ),
        (
            r"\bin (\d+) days?\b|(\d+)\s*天后",
            lambda m: today + timedelta(days=int(m.group(1) or m.group(2))),
        ),
        (r"\bin (\d+) weeks?\b", lambda m: today + timedelta(weeks=int(m.group(1)))),
        (r"\bnext week\b|下(?:周|星期|个星期)", lambda m: upcoming(6, True)),
        (
            r"\bnext month\b|下个?月",
            lambda m: (
                (today.replace(day=28) + timedelta(days=35)).replace(day=1) - timedelta(days=1)
            ),
        ),
        (
            r"(\d{1,2})月(\d{1,2})[日号]",
            lambda m: _month_day(today, int(m.group(1)), int(m.group(2))),
        ),
    ]
    for pattern, build in checks:
        match = re.search(pattern, lowered)
        if match:
            result: date | None = build(match)
            return result
    return None


def _month_day(today: date, month: int, day: int) -> date | None:
    try:
        when = date(today.year, month, day)
    except ValueError:
        return None
    return when if when >= today else when.replace(year=today.year + 1)
