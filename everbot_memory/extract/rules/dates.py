"""Dates in what people say: "tomorrow", "next Wednesday", "May 12", "the 22nd", "下周三",
"下个月18号", "十天后", from a given day.

English dates the table below does not know go to parsedatetime (a maintained parser of
human-written dates), keeping only what it read from words that name a time ("May 12",
"next Saturday", "EOD friday"), never a bare number ("3.12", "9.30"). Chinese relative dates
come from the table, with Chinese numerals read ("十天后", "过两天", "三个月后").
"""

from __future__ import annotations

import itertools
import re
from datetime import date, datetime, time, timedelta
from typing import Any

from ...core.text import CJK_RE

__all__ = ["CJK_DATE_SPACE", "LEAD", "WEEKDAYS", "WHEN_EN", "WHEN_ZH", "resolve_date"]

WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
WHEN_EN = (
    rf"(?:tomorrow|tonight|next (?:week|month|year|{WEEKDAYS})|this (?:{WEEKDAYS}|weekend|"
    rf"friday)|on (?:{WEEKDAYS})|by (?:{WEEKDAYS}|tomorrow|the end of \w+|next \w+)|"
    rf"in \d+ (?:days|weeks)|before (?:{WEEKDAYS}|the \w+))"
)
WHEN_ZH = r"(?:明天|明早|明晚|这周末|礼拜[一二三四五六日天]|月初|后天|大后天|过两天|[一二两三四五六七八九十\d]+(?:天|个?星期|个?周|个月)后|下个?月\d+[号日]|月底|年底|元旦|\d+[号日]|下周[一二三四五六日天]?|下个?月|下星期[一二三四五六日天]?|这周[一二三四五六日天]|周[一二三四五六日天]|星期[一二三四五六日天]|月底|年底|\d+月\d+[日号])"
_WEEKDAY_EN = {d: i for i, d in enumerate(WEEKDAYS.split("|"))}
_WEEKDAY_ZH = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6}


CJK_DATE_SPACE = re.compile(r"(?<=\d)\s+(?=[月日号点])|(?<=[月周])\s+(?=\d)")


# Where one thing to do ends and another begins ("book the venue by friday, and the grant
# report is due the 14th", "国庆前交签证材料 然后10号之前回房东").
_NEXT_THING = re.compile(r"[,，;；]|\s(?:and then|and|then|also)\s|然后|还有|另外|再就是")


_PAST_DAY = re.compile(
    r"\b(?:was|were|expired|ended|happened|last (?:time|one)|originally|ago|used to be)\b"
    r"|上次|上回|之前|以前|昨天|前天|去年|上周|上个月|原来|本来|原定",
    re.I,
)


# A thing to do some time before a day ("提前三天提醒我订花", "remind me a week before to
# order the cake", "前一天提醒我"): the day it is before may be said in the sentence before.
LEAD = re.compile(
    r"提前(?:[一二两三四五六七八九十\d]+)(?:天|个?星期|个?礼拜|周)"
    r"|\b(?:a|one|two|three|\d+) (?:days?|weeks?) (?:before|ahead|early|earlier)\b"
    # The eve only as the day of a reminder ("前一天提醒我", "remind me the day before"): "前一天
    # 晚上不能吃东西" says what to do then.
    r"|(?:前一天|前一晚|头一天)(?=[^，,。]{0,4}提醒)|提醒我?(?:在)?(?:前一天|前一晚|头一天)"
    r"|\b(?:remind|ping|nudge|text|tell) me (?:\w+ ){0,3}?the (?:day|night|evening) before\b",
    re.I,
)


def resolve_date(text: str, today: date) -> date | None:
    """The day a todo names ("tomorrow", "next Wednesday", "下周三", "3月5日"), from ``today``;
    of several things to do, each with its day, the last day: the memory lasts until all are
    past. A reminder some days before the day ("提前三天提醒我") lasts until the day itself: the
    thing may still be done until then."""
    return _named_day(LEAD.sub(" ", text), today)


def _named_day(text: str, today: date) -> date | None:
    day = _one_date(text, today)
    if day is None:
        return None
    parts = _NEXT_THING.split(text)
    if len(parts) < 2:
        return day
    # A day said of what is past ("last time was on the 2nd", "上次是3号去的") is no day to do.
    later = [
        d
        for part in parts
        if not _PAST_DAY.search(part) and (d := _one_date(part, today)) is not None
    ]
    return max([day, *later])


def _one_date(text: str, today: date) -> date | None:
    """The day ``text`` names, read as one thing to do."""
    # Chinese typed with spaces around the digits ("下个月 3 号", "3 月 8 号", "这个月 20 号")
    # says the same day as without them.
    lowered = _full_weekdays(CJK_DATE_SPACE.sub("", text.lower()))

    def upcoming(weekday: int, next_week: bool) -> date:
        if next_week:
            return today - timedelta(days=today.weekday()) + timedelta(days=7 + weekday)
        return today + timedelta(days=(weekday - today.weekday()) % 7)

    checks: list[tuple[str, Any]] = [
        (r"\bday after tomorrow\b|后天", lambda m: today + timedelta(days=2)),
        (r"\btomorrow\b|明天", lambda m: today + timedelta(days=1)),
        (r"\btonight\b|\btoday\b|今天|今晚", lambda m: today),
        # A day of the month is the more exact ("on Thursday the 19th").
        (
            rf"\b(?:{WEEKDAYS}),? (?:the )?(\d{{1,2}})(?:st|nd|rd|th)\b(?! of)",
            lambda m: _day_of_month(today, int(m.group(1))),
        ),
        # "the 3rd of next month", "first monday of next month", "a week on saturday".
        (
            r"\bthe (\d{1,2})(?:st|nd|rd|th) of next month\b",
            lambda m: _safe_day(_next_month(today), int(m.group(1))),
        ),
        (
            rf"\b(first|second|third|fourth|last) ({WEEKDAYS}) of (?:next|the next) month\b",
            lambda m: _nth_weekday(_next_month(today), m.group(1), _WEEKDAY_EN[m.group(2)]),
        ),
        (
            rf"\ba week (?:on|from) ({WEEKDAYS})\b",
            lambda m: upcoming(_WEEKDAY_EN[m.group(1)], False) + timedelta(days=7),
        ),
        (rf"\bnext ({WEEKDAYS})\b", lambda m: upcoming(_WEEKDAY_EN[m.group(1)], True)),
        # "monday week": the Monday after the coming one.
        (
            rf"\b({WEEKDAYS}) week\b",
            lambda m: upcoming(_WEEKDAY_EN[m.group(1)], False) + timedelta(days=7),
        ),
        (
            rf"\b(?:this|on|by|before) ({WEEKDAYS})\b",
            lambda m: upcoming(_WEEKDAY_EN[m.group(1)], False),
        ),
        (
            r"下(?:周|星期|个星期)([一二三四五六日天])",
            lambda m: upcoming(_WEEKDAY_ZH[m.group(1)], True),
        ),
        (
            # "周天" is Sunday, but "第一周天天" is "every day of the first week".
            r"(?:这|本)?(?:周|星期)([一二三四五六日]|天(?!天))",
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
    checks[:0] = [
        # Spoken and shortened forms first: "下下周三" is two weeks on, "明早" is tomorrow.
        (
            r"下下(?:周|星期|个星期|礼拜)([一二三四五六日天])",
            lambda m: upcoming(_WEEKDAY_ZH[m.group(1)], True) + timedelta(days=7),
        ),
        (
            r"\b(?:tmrw|tmr|tmw|2moro|2mrw)\b|明早|明晚|明儿|明天|明日",
            lambda m: today + timedelta(days=1),
        ),
        (r"\bin a couple (?:of )?days\b", lambda m: today + timedelta(days=2)),
        (r"\bin a fortnight\b", lambda m: today + timedelta(days=14)),
        (
            r"\b(a|one|two|three|\d) weeks? from (?:today|now)\b",
            lambda m: today + timedelta(weeks=_en_number(m.group(1))),
        ),
        (
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)? of ({_MONTHS})[a-z]*\b",
            lambda m: _month_day(today, _MONTHS.split("|").index(m.group(2)) + 1, int(m.group(1))),
        ),
        (r"\bnext weekend\b|下(?:个)?周末", lambda m: upcoming(6, True)),
        # A bare "周末" is as often every weekend ("周末在家做饭") as this one.
        (r"\bthis weekend\b|(?:这|本)周末", lambda m: upcoming(6, False)),
        (
            r"下(?:个)?礼拜([一二三四五六日天])",
            lambda m: upcoming(_WEEKDAY_ZH[m.group(1)], True),
        ),
        (r"礼拜([一二三四五六日天])", lambda m: upcoming(_WEEKDAY_ZH[m.group(1)], False)),
        (r"半个月后", lambda m: today + timedelta(days=15)),
        (r"下个?月初", lambda m: _next_month(today)),
        (r"下个?月中(?:旬)?", lambda m: _next_month(today).replace(day=15)),
        (r"(\d{1,2})月初", lambda m: _month_day(today, int(m.group(1)), 1)),
        (r"(\d{1,2})月中(?:旬)?", lambda m: _month_day(today, int(m.group(1)), 15)),
        (r"(?<!\d)月初", lambda m: _next_month(today)),
        (r"清明", lambda m: _month_day(today, 4, 5)),
        (r"大后天", lambda m: today + timedelta(days=3)),
        (r"过两天", lambda m: today + timedelta(days=2)),
        (
            rf"([{_ZH_DIGITS}\d]+)\s*(天|个?星期|个?周|个月)后",
            lambda m: _after(today, _zh_number(m.group(1)), m.group(2)),
        ),
        (
            r"下个?月(\d{1,2})[号日]",
            lambda m: _month_day(_next_month(today), _next_month(today).month, int(m.group(1))),
        ),
        (r"(?:这个?|本)月(\d{1,2})[号日]", lambda m: _safe_day(today, int(m.group(1)))),
        (r"月底", lambda m: _next_month(today) - timedelta(days=1)),
        (r"年底", lambda m: date(today.year, 12, 31)),
        # A holiday: its day, or the day before it when something is due before it (国庆前,
        # 元旦之前: the holiday itself is off).
        (
            rf"(?:元旦|五一|劳动节|国庆|十一(?=假|长假|黄金周|前|之前|以前)|{_LUNAR_NAMES})"
            r"(?:节|假期|长假|黄金周)?(?:前|之前|以前)",
            lambda m: _day_before(_holiday(today, m.group(0))),
        ),
        (rf"{_LUNAR_NAMES}", lambda m: _holiday(today, m.group(0))),
        (r"元旦", lambda m: date(today.year + 1, 1, 1)),
        # Holidays on a fixed day of the solar calendar (the lunar ones move every year).
        (r"五一|劳动节", lambda m: _month_day(today, 5, 1)),
        (r"国庆", lambda m: _month_day(today, 10, 1)),
        (r"双十一|双11", lambda m: _month_day(today, 11, 11)),
        (r"平安夜", lambda m: _month_day(today, 12, 24)),
        (r"圣诞", lambda m: _month_day(today, 12, 25)),
        (r"情人节", lambda m: _month_day(today, 2, 14)),
    ]
    checks += [
        (r"(?<![\d月])(\d{1,2})[号日]", lambda m: _day_of_month(today, int(m.group(1)))),
        # "on 3/20", "by 12/5": month then day, after a word that says a date follows.
        (
            r"\b(?:on|by|before|due|until|till) (\d{1,2})/(\d{1,2})\b(?!/)",
            lambda m: _month_day(today, int(m.group(1)), int(m.group(2))),
        ),
        (r"\bend of (?:the |this )?month\b", lambda m: _next_month(today) - timedelta(days=1)),
        (rf"\bend of ({_MONTHS})", lambda m: _month_end(today, m.group(1))),
        (
            r"\bend of (?:the |this )?week\b",
            lambda m: today + timedelta(days=(4 - today.weekday()) % 7),
        ),
        (
            r"\b(?:the |on the |by the |before the )(\d{1,2})(?:st|nd|rd|th)\b",
            lambda m: _day_of_month(today, int(m.group(1))),
        ),
    ]
    told = _without_days_gone_by(lowered)
    if told != lowered:
        text = lowered = told
    for pattern, build in checks:
        match = re.search(pattern, lowered)
        if match:
            result: date | None = build(match)
            return result
    if not CJK_RE.search(text):
        return _parsed(text, today) or _mid_month(lowered, today)
    return None


# A weekday named as one gone by: "last Friday", "上周五", "上个礼拜三".
_LAST_WEEKDAY = re.compile(rf"\blast ({WEEKDAYS})\b|上个?(?:周|星期|礼拜)[一二三四五六日天]")
_WEEKDAY = re.compile(rf"\b(?:{WEEKDAYS})\b")
# A verb in the past tense ("was", "went", "deleted", "closed on")...
_PAST_VERB = re.compile(
    r"\b(?:was|were|did|went|came|left|sold|bought|made|took|saw|met|ran|won|lost|found|"
    r"gave|began|quit|\w{2,}ed)\b"
)
# ... unless the clause speaks of what is still to come: an event arranged for the day
# ("booked the dentist for Friday", "moved the call to Monday"), or a verb of the present
# or the future ("it's on Friday", "we'll close Tuesday", "I'm excited for Saturday").
_STILL_TO_COME = re.compile(
    r"\b(?:will|shall|going to|gonna|is|are|am|be|need|needs|have to|has to|must|should|can|"
    r"due|by|before|until|till|this|next|coming|upcoming|tomorrow|booked|scheduled|"
    r"rescheduled|planned|arranged|moved|pushed|postponed|bumped|shifted|changed|promised|"
    r"agreed|decided|registered|signed|invited|asked|confirmed|reserved|supposed|expected|"
    r"told|said|says|heard)\b"
    r"|'(?:ll|s|re|m|d|ve)\b"
)
_CLAUSE_CUT = re.compile(r"[,;:.!?()\n]|\b(?:and|but|so|because)\b")


def _without_days_gone_by(lowered: str) -> str:
    """``lowered`` without the weekdays it names as gone by: "last Friday", "上周五", or a
    weekday in a clause told in the past tense ("we deleted the last file on tuesday", "last
    day was friday"). They are no day for a todo, and the next one would be read from them;
    another day the sentence names still counts ("上周五说好了，下周五交")."""
    lowered = _LAST_WEEKDAY.sub(" ", lowered)
    cuts = [0, *(m.end() for m in _CLAUSE_CUT.finditer(lowered)), len(lowered)]
    kept = []
    for start, end in itertools.pairwise(cuts):
        clause = lowered[start:end]
        if _PAST_VERB.search(clause) and not _STILL_TO_COME.search(clause):
            clause = _WEEKDAY.sub(" ", clause)
        kept.append(clause)
    return "".join(kept)


def _mid_month(lowered: str, today: date) -> date | None:
    """The middle of a month named so ("mid-April"), when no other day is named."""
    match = re.search(rf"\bmid[- ]?({_MONTHS})[a-z]*\b", lowered)
    return _month_day(today, _MONTHS.split("|").index(match.group(1)) + 1, 15) if match else None


_ZH_DIGITS = "一二两三四五六七八九十"
# Words parsedatetime may read a date from; a match without one is a number, not a date.
_DATE_WORDS = re.compile(
    rf"\b(?:{WEEKDAYS}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|jan|feb|mar|apr|may|jun|"
    r"jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|"
    r"october|november|december|tomorrow|tonight|today|next|week|weeks|month|months|days|"
    r"eod|eow|weekend)\b",
    re.I,
)


_SINCE = re.compile(r"\b(?:since|as of|last|back on)\s*$", re.I)
# How often or how long, not when: "3x a week", "for a month", "per day".
_HOW_OFTEN = re.compile(
    r"^\s*(?:a|an|one|per|each|every|the)\s+(?:day|week|month|year)s?\s*$", re.I
)
_MONTH_ONLY = re.compile(
    r"^\s*(?:in |this |of |by |until |since |from )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|"
    r"oct|nov|dec|january|february|march|april|june|july|august|september|october|november|"
    r"december)\.?\s*$",
    re.I,
)


_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"

# How long something lasts or lasted, not when it happens: "for about six weeks (now)", "six
# weeks ago", "after months of".
_LASTING = re.compile(
    r"\b(?:for|past|last|over|within|spent|took|takes|been)\s+(?:(?:about|around|almost|nearly|"
    r"over|like|roughly|the|a|another|just)\s+)*$",
    re.I,
)
_LASTED = re.compile(r"^\s*(?:now|ago|already|of|straight|in a row|so far|earlier|before)\b", re.I)
_BARE_SPAN = re.compile(
    r"^\s*(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+"
    r"(?:days?|weeks?|months?|years?)\s*$",
    re.I,
)
_RATE = re.compile(
    r"\b(?:\w+ (?:times|days|nights|hours|evenings|mornings)|once|twice) (?:a|an|per|each) "
    r"(?:day|week|month|year)\b",
    re.I,
)
_RATE_BEFORE = re.compile(r"(?:\d[\d.,]*k?|\$\S+|times|hours|days|nights)\s*$", re.I)
_FROM_NOW = re.compile(r"^\s*(?:from now|from today|later|out|away|time)\b", re.I)
_SPAN = re.compile(r"^\s*(?:after|for)\s+(?:days|weeks|months|years)\b", re.I)
# Weekdays as people shorten them: the unambiguous ones always, "mon", "wed", "sat" and "sun"
# (words of their own too) only where a day is said ("on sat", "sat morning", "sun at 3").
_SHORT_DAYS = {
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "weds": "wednesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
    "sat": "saturday",
    "sun": "sunday",
}
_SHORT_DAY = re.compile(
    r"\b(tues?|weds|thu(?:rs?)?|fri)\b\.?"
    r"|(?:(?<=\bon )|(?<=\bby )|(?<=\bthis )|(?<=\bnext )|(?<=\buntil )|(?<=\bbefore ))"
    r"(mon|wed|sat|sun)\b\.?"
    r"|\b(mon|wed|sat|sun)\b\.?(?= (?:morning|night|evening|afternoon|at \d|\d{1,2}(?::\d\d)?\s?(?:am|pm)?\b))",
    re.I,
)


def _full_weekdays(text: str) -> str:
    """``text`` with shortened weekdays written out ("dentist thurs 3:30" -> "dentist thursday
    3:30")."""
    return _SHORT_DAY.sub(lambda m: _SHORT_DAYS[next(g for g in m.groups() if g).lower()], text)


def _month_end(today: date, name: str) -> date:
    """The last day of the month named, this year or, once it is past, next year."""
    month = _MONTHS.split("|").index(name[:3].lower()) + 1
    first = date(today.year, month, 1)
    end = _next_month(first) - timedelta(days=1)
    return end if end >= today else _next_month(date(today.year + 1, month, 1)) - timedelta(days=1)


# The lunar holidays' days in the solar calendar (the Spring Festival, Dragon Boat and
# Mid-Autumn days of the Chinese calendar, 2025-2030).
_LUNAR: dict[str, dict[int, tuple[int, int]]] = {
    "春节": {
        2025: (1, 29),
        2026: (2, 17),
        2027: (2, 6),
        2028: (1, 26),
        2029: (2, 13),
        2030: (2, 3),
    },
    "端午": {
        2025: (5, 31),
        2026: (6, 19),
        2027: (6, 9),
        2028: (5, 28),
        2029: (6, 16),
        2030: (6, 5),
    },
    "中秋": {
        2025: (10, 6),
        2026: (9, 25),
        2027: (9, 15),
        2028: (10, 3),
        2029: (9, 22),
        2030: (9, 12),
    },
}
_LUNAR_NAMES = "春节|过年|端午|中秋"


def _day_before(day: date | None) -> date | None:
    return day - timedelta(days=1) if day else None


def _holiday(today: date, said: str) -> date | None:
    """The next day of the holiday ``said`` names, on or after ``today``; None for a lunar
    holiday more than half a year off (this year's is over: "春节去三亚考了个证" is a story)."""
    if "元旦" in said:
        return date(today.year + 1, 1, 1)
    if "五一" in said or "劳动节" in said:
        return _month_day(today, 5, 1) or today
    if "国庆" in said or "十一" in said:
        return _month_day(today, 10, 1) or today
    name = "春节" if "过年" in said else next(n for n in _LUNAR if n in said)
    for year in (today.year, today.year + 1):
        month, day = _LUNAR[name].get(year, (0, 0))
        if month and date(year, month, day) >= today:
            found = date(year, month, day)
            return found if (found - today).days <= 183 else None
    return None


def _en_number(text: str) -> int:
    """A small number written in digits or words ("a", "two")."""
    words = {"a": 1, "one": 1, "two": 2, "three": 3}
    return int(text) if text.isdigit() else words.get(text.lower(), 1)


def _zh_number(text: str) -> int:
    """A small number written in digits or Chinese numerals ("十", "两", "十五")."""
    if text.isdigit():
        return int(text)
    values = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
    if "十" in text:
        tens, _, ones = text.partition("十")
        return values.get(tens, 1) * 10 + values.get(ones, 0)
    return values.get(text, 0)


def _after(today: date, count: int, unit: str) -> date:
    if "月" in unit:
        months = today.month - 1 + count
        return date(today.year + months // 12, months % 12 + 1, min(today.day, 28))
    return today + timedelta(days=count * (7 if ("周" in unit or "星期" in unit) else 1))


def _safe_day(month: date, day: int) -> date | None:
    try:
        return month.replace(day=day)
    except ValueError:
        return None


def _nth_weekday(month: date, which: str, weekday: int) -> date:
    """The first, second... or last ``weekday`` of the month ``month`` is in."""
    first = month.replace(day=1)
    if which == "last":
        end = _next_month(first) - timedelta(days=1)
        return end - timedelta(days=(end.weekday() - weekday) % 7)
    day = first + timedelta(days=(weekday - first.weekday()) % 7)
    order = ["first", "second", "third", "fourth"].index(which)
    return day + timedelta(weeks=order)


def _next_month(today: date) -> date:
    """The first day of the month after ``today``'s."""
    return (today.replace(day=28) + timedelta(days=4)).replace(day=1)


def _day_of_month(today: date, day: int) -> date | None:
    """The next ``day`` of a month on or after ``today`` ("the 22nd", "15号")."""
    if not 1 <= day <= 31:
        return None
    month = today if day >= today.day else _next_month(today)
    try:
        return month.replace(day=day)
    except ValueError:
        return None


def _parsed(text: str, today: date) -> date | None:
    """A date parsedatetime reads from words that name a time, on or after ``today``."""
    import parsedatetime

    calendar = parsedatetime.Calendar(version=parsedatetime.VERSION_CONTEXT_STYLE)
    source = datetime.combine(today, time(12, 0))
    text = _full_weekdays(text)
    for when, _, start, end, said in calendar.nlp(text, sourceTime=source) or ():
        if _SINCE.search(text[:start]):
            continue  # "broken since Monday", "35 as of Tuesday": a day gone by
        if _LASTING.search(text[:start]) or _LASTED.match(text[end:]) or _SPAN.match(said):
            continue  # "for about six weeks now", "after months of": how long, not when
        if _RATE.search(said) or _RATE_BEFORE.search(text[:start]):
            continue  # "4k a month", "three days a week": how often, not when
        if _BARE_SPAN.match(said) and not _FROM_NOW.match(text[end:]):
            continue  # "1 month floor", "4k a month", "three days a week": how long or often
        if said.strip(" .").lower() in ("mon", "wed", "sat", "sun"):
            continue  # "I sat down", "the sun": a word, not a weekday
        # A month alone ("in December", "starts in September") names no day to keep.
        if (
            _DATE_WORDS.search(said)
            and not _MONTH_ONLY.match(said)
            and not _HOW_OFTEN.match(said)
            and when.date() >= today
        ):
            found: date = when.date()
            return found
    return None


def _month_day(today: date, month: int, day: int) -> date | None:
    try:
        when = date(today.year, month, day)
    except ValueError:
        return None
    return when if when >= today else when.replace(year=today.year + 1)
