"""The days a question about the past names: "yesterday", "last Tuesday", "3 days ago", "last
week", "on March 3", "2026-03-03", "昨天", "上周二", "三天前", "上周", "3月3日".

Used to limit a search of the session notes to those days. English phrases the table does not
know go to parsedatetime (the maintained parser of human-written dates the extractor uses too),
kept only when it read them from words that name a day. Every span is ``(first, last)``,
both included, never after ``today``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta

__all__ = ["Span", "past_span"]

Span = tuple[date, date]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6}
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_ZH_NUMBER = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2, "几": 3}


def _zh_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_NUMBER.get(tens, 1) * 10 + _ZH_NUMBER.get(ones, 0)
    return _ZH_NUMBER.get(text, 0)


def _week_of(day: date) -> Span:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _last_weekday(today: date, weekday: int, last_week: bool) -> date:
    """The most recent ``weekday`` before today ("on Tuesday"), or that day of last week."""
    if last_week:
        return _week_of(today)[0] - timedelta(days=7 - weekday)
    back = (today.weekday() - weekday) % 7 or 7
    return today - timedelta(days=back)


def _month_day(today: date, month: int, day: int) -> Span | None:
    try:
        when = date(today.year, month, day)
    except ValueError:
        return None
    if when > today:
        try:
            when = when.replace(year=today.year - 1)
        except ValueError:
            return None
    return when, when


def _one(day: date) -> Span:
    return day, day


_Rule = tuple[str, Callable[[re.Match[str], date], Span | None]]

# A weekday said alone (see _BARE_WEEKDAYS).
_BARE_WEEKDAY = r"\b(?:on |this past )?(" + "|".join(_WEEKDAYS) + r")\b"
_BARE_WEEKDAY_ZH = r"(?:周|星期|礼拜)([一二三四五六日天])"

_RULES: list[_Rule] = [
    (
        r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b",
        lambda m, t: (
            _month_day(date(int(m.group(1)), 12, 31), int(m.group(2)), int(m.group(3)))
            if 1 <= int(m.group(2)) <= 12
            else None
        ),
    ),
    (r"大前天", lambda m, t: _one(t - timedelta(days=3))),
    (r"\bday before yesterday\b|前天", lambda m, t: _one(t - timedelta(days=2))),
    (r"\byesterday\b|昨天|昨晚|昨日", lambda m, t: _one(t - timedelta(days=1))),
    (r"\btoday\b|\bthis morning\b|今天|今早|今晚", lambda m, t: _one(t)),
    (
        # "Last Tuesday" is the most recent Tuesday before today; "上周二" (below) is the
        # Tuesday of the week before this one, as Chinese says it.
        r"\blast (" + "|".join(_WEEKDAYS) + r")\b",
        lambda m, t: _one(_last_weekday(t, _WEEKDAYS.index(m.group(1).lower()), False)),
    ),
    (
        _BARE_WEEKDAY,
        lambda m, t: _one(_last_weekday(t, _WEEKDAYS.index(m.group(1).lower()), False)),
    ),
    (
        r"上上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])",
        lambda m, t: _one(_last_weekday(t, _WEEKDAYS_ZH[m.group(1)], True) - timedelta(days=7)),
    ),
    (
        r"上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])",
        lambda m, t: _one(_last_weekday(t, _WEEKDAYS_ZH[m.group(1)], True)),
    ),
    (
        # "这周日": that day of this week (today, or later: none yet).
        r"(?:这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])",
        lambda m, t: _one(_week_of(t)[0] + timedelta(days=_WEEKDAYS_ZH[m.group(1)])),
    ),
    (
        _BARE_WEEKDAY_ZH,
        lambda m, t: _one(_last_weekday(t, _WEEKDAYS_ZH[m.group(1)], False)),
    ),
    (
        r"\b(\d+|a|one|two|three|four|five|six|seven) days? ago\b",
        lambda m, t: _one(t - timedelta(days=_count(m.group(1)))),
    ),
    (
        r"([\d一二两三四五六七八九十几]+)\s*天(?:以)?前",
        lambda m, t: _one(t - timedelta(days=_zh_number(m.group(1)))),
    ),
    (r"上上(?:个)?(?:周|星期|礼拜)", lambda m, t: _week_of(t - timedelta(days=14))),
    (r"\blast week\b|上(?:个)?(?:周|星期|礼拜)", lambda m, t: _week_of(t - timedelta(days=7))),
    (r"\bthis week\b|这(?:个)?(?:周|星期|礼拜)|本周", lambda m, t: (_week_of(t)[0], t)),
    (
        r"\blast month\b|上个?月",
        lambda m, t: (
            (t.replace(day=1) - timedelta(days=1)).replace(day=1),
            t.replace(day=1) - timedelta(days=1),
        ),
    ),
    (
        r"(\d{4})年(\d{1,2})月(\d{1,2})[日号]",
        lambda m, t: (
            _month_day(date(int(m.group(1)), 12, 31), int(m.group(2)), int(m.group(3)))
            if 1 <= int(m.group(2)) <= 12
            else None
        ),
    ),
    (
        r"(\d{1,2})月(\d{1,2})[日号]",
        lambda m, t: _month_day(t, int(m.group(1)), int(m.group(2))),
    ),
    (
        r"\b(" + "|".join(_MONTHS) + r"|" + "|".join(m[:3] for m in _MONTHS) + r")\.? (\d{1,2})"
        r"(?:st|nd|rd|th)?\b",
        lambda m, t: _month_day(t, _month_index(m.group(1)), int(m.group(2))),
    ),
    (
        r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(" + "|".join(_MONTHS) + r")\b",
        lambda m, t: _month_day(t, _MONTHS.index(m.group(2).lower()) + 1, int(m.group(1))),
    ),
]
_COMPILED = [(re.compile(pattern, re.I), build) for pattern, build in _RULES]
# A weekday said alone: the last one, unless the question speaks of days to come.
_BARE_WEEKDAYS = {_BARE_WEEKDAY, _BARE_WEEKDAY_ZH}
# A day still to come: no past day is named ("what did we plan for next Tuesday" is searched
# on every day, not on last Tuesday).
_FUTURE = re.compile(
    r"\b(?:next|coming) (?:" + "|".join(_WEEKDAYS) + r"|week|month|year)\b|\btomorrow\b|"
    r"明天|明早|明晚|(?<![之以然最此])后天|下(?:个)?(?:周|星期|礼拜|月)",
    re.I,
)
_NAMES_A_DAY = re.compile(
    r"\b(?:" + "|".join(_WEEKDAYS) + r"|" + "|".join(_MONTHS) + r"|ago|yesterday|week|month)\b",
    re.I,
)


def _count(word: str) -> int:
    words = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
    return int(word) if word.isdigit() else words[word.lower()]


def _month_index(name: str) -> int:
    lowered = name.lower()
    return next(n for n, month in enumerate(_MONTHS, 1) if month.startswith(lowered[:3]))


def past_span(query: str, today: date) -> tuple[Span, str] | None:
    """The days ``query`` asks about and the words that said so, or None when it names none.
    A day after ``today`` ("March 30" asked on March 3) is read as last year's; a day named
    as still to come ("next Tuesday", "下周二", "这周日" asked before Sunday) names none."""
    # The days to come said are left out; a past day said beside them still counts ("what
    # did we decide yesterday about tomorrow's release").
    future = _FUTURE.search(query) is not None
    query = _FUTURE.sub(" ", query)
    for pattern, build in _COMPILED:
        if future and pattern.pattern in _BARE_WEEKDAYS:
            continue  # "Friday next week", "next Tuesday or Wednesday": days to come
        match = pattern.search(query)
        if match is None:
            continue
        span = build(match, today)
        if span is not None and span[0] > today and match.group(0).startswith(("这", "本")):
            return None  # this week's day, still to come
        if span is not None and span[0] <= today:
            return (span[0], min(span[1], today)), match.group(0)
    if future or re.search(r"[\u4e00-\u9fff]", query) or not _NAMES_A_DAY.search(query):
        return None
    return _parsed(query, today)


def _parsed(query: str, today: date) -> tuple[Span, str] | None:
    import parsedatetime

    calendar = parsedatetime.Calendar(version=parsedatetime.VERSION_CONTEXT_STYLE)
    source = datetime.combine(today, time(12, 0))
    for when, _, _, _, said in calendar.nlp(query, sourceTime=source) or ():
        if _NAMES_A_DAY.search(said) and when.date() <= today:
            return _one(when.date()), said
    return None
