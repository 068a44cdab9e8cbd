"""Extractors: turn a finished conversation into memory candidates.

- :class:`RuleExtractor` is the offline default: deterministic rules, English and Chinese, for
  what people say explicitly about themselves. It reads only the user's lines and prefers a few
  right memories to many doubtful ones.
- :class:`ClaudeExtractor` makes one Messages API call per session (plus a summary call first
  when the conversation is long), with structured output validated by pydantic.

Both return :class:`~everbot_memory.models.Candidate` lists and leave problems worth telling the
user in ``.warnings`` (reset at each call).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from .errors import ExtractionError
from .models import Candidate, Category, Importance
from .rules import utcnow

if TYPE_CHECKING:
    import anthropic

__all__ = [
    "DEFAULT_MODEL",
    "ClaudeExtractor",
    "RuleExtractor",
    "conversation_text",
    "estimate_tokens",
    "resolve_date",
]

DEFAULT_MODEL = "claude-sonnet-5-5"
COMPRESS_ABOVE_TOKENS = 8_000
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def estimate_tokens(text: str) -> int:
    """A rough, offline token count: one per CJK character, one per 4 other characters."""
    cjk = len(_CJK_RE.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text"
        )
    return ""


def conversation_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The conversation as ``User: ...`` / ``Assistant: ...`` lines."""
    names = {"user": "User", "assistant": "Assistant", "context": "Earlier in this session"}
    lines = []
    for message in messages:
        role = str(message.get("role", ""))
        text = _message_text(message).strip()
        if text and role in names:
            lines.append(f"{names[role]}: {text}")
    return "\n\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Offline rules

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")
# Clause boundaries inside a sentence: "..., and I ...", "...: my name is ...", "..., so ...".
_CLAUSE_END = re.compile(
    r"(?:,\s*|\s+)(?:and|but)\s+(?=(?:I|my|we)\b)|[:：]\s*(?=(?:I|my|we)\b)|,\s*(?:so|because|since|but)\s+|，(?=我)",
)
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
_PRONOUN_OBJECTS = {"it", "that", "this", "them", "those", "these", "you", "so", "too"}
_PROFESSIONS = (
    "developer|engineer|designer|scientist|researcher|teacher|student|doctor|nurse|lawyer|"
    "manager|analyst|architect|writer|consultant|founder|programmer|accountant|professor"
)
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_WHEN_EN = (
    rf"(?:tomorrow|tonight|next (?:week|month|year|{_WEEKDAYS})|this (?:{_WEEKDAYS}|weekend|"
    rf"friday)|on (?:{_WEEKDAYS})|by (?:{_WEEKDAYS}|tomorrow|the end of \w+|next \w+)|"
    rf"in \d+ (?:days|weeks)|before (?:{_WEEKDAYS}|the \w+))"
)
_WHEN_ZH = r"(?:明天|后天|下周[一二三四五六日天]?|下个?月|下星期[一二三四五六日天]?|这周[一二三四五六日天]|周[一二三四五六日天]|星期[一二三四五六日天]|月底|年底|\d+月\d+[日号])"


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


def _verb_phrase(text: str) -> str:
    """'check the dashboard' -> 'checks the dashboard' (the user is the subject)."""
    return re.sub(r"^()([A-Za-z]+)", _verb_s, _third_person_en(text))


def _third_person_en(clause: str) -> str:
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


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _zh(text: str) -> str:
    text = text.strip().rstrip("。！!.")
    text = re.sub(r"^我们", "团队", text)
    text = re.sub(r"我的", "用户的", text)
    text = re.sub(r"^我", "用户", text)
    return text


_Rule = tuple[re.Pattern[str], str, str, Any]


def _en_rules() -> list[_Rule]:
    flags = re.I

    def r(pattern: str) -> re.Pattern[str]:
        return re.compile(pattern, flags)

    return [
        (
            r(r"^(?:please )?(?:remember|note|keep in mind) that (.{6,})$"),
            "explicit",
            "high",
            lambda m: _sentence(_third_person_en(m.group(1))),
        ),
        (
            r(r"^my name is ([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"),
            "fact",
            "high",
            lambda m: f"The user's name is {m.group(1)}.",
        ),
        (
            r(r"^(?:I am|I'm) called ([A-Z][\w'-]*)"),
            "fact",
            "high",
            lambda m: f"The user's name is {m.group(1)}.",
        ),
        (
            r(r"^I(?: currently)? work (?:at|for) (.{2,60}?)(?: as ((?:an? )?.{3,40}))?$"),
            "fact",
            "high",
            lambda m: _sentence(
                f"The user works at {m.group(1)}" + (f" as {m.group(2)}" if m.group(2) else "")
            ),
        ),
        (
            r(r"^(?:I am|I'm) (?:severely |very )?allergic to ([\w' -]{2,40})"),
            "fact",
            "high",
            lambda m: _sentence(f"The user is allergic to {m.group(1).strip()}"),
        ),
        (
            r(r"^I(?: currently)? live in (.{2,60})$"),
            "fact",
            "high",
            lambda m: _sentence(f"The user lives in {m.group(1)}"),
        ),
        (
            r(r"^(?:I am|I'm) (?:based|located) in (.{2,60})$"),
            "fact",
            "high",
            lambda m: _sentence(f"The user is based in {m.group(1)}"),
        ),
        (
            r(rf"^(?:I am|I'm) an? ((?:[\w-]+ ){{0,3}}(?:{_PROFESSIONS}))\b(.*)$"),
            "fact",
            "medium",
            lambda m: _sentence(f"The user is a {m.group(1)}{_third_person_en(m.group(2))}"),
        ),
        (
            r(
                r"^my (wife|husband|partner|son|daughter|dog|cat|boss|manager)(?:'s name)? is (?:called |named )?([A-Z][\w'-]*)"
            ),
            "fact",
            "medium",
            lambda m: f"The user's {m.group(1).lower()} is {m.group(2)}.",
        ),
        (
            r(
                r"^(we|I) (?:have |'ve )?decided to (?:use|go with|switch to|adopt|stick with) (.{2,80}?)(?: (?:instead of|rather than|over) (.{2,60}))?$"
            ),
            "decision",
            "high",
            lambda m: _sentence(
                ("The team" if m.group(1).lower() == "we" else "The user")
                + f" decided to use {m.group(2)}"
                + (f" instead of {m.group(3)}" if m.group(3) else "")
            ),
        ),
        (
            r(
                rf"^(?:I need to|I have to|I must|I'm going to|I am going to|I will|I'll|I should|remind me to) (.{{3,80}}? {_WHEN_EN}\b.*)$"
            ),
            "todo",
            "high",
            lambda m: _sentence(f"The user needs to {_third_person_en(m.group(1))}"),
        ),
        (
            r(
                rf"^({_WHEN_EN}),? I (?:need to|have to|must|will|am going to|'m going to|have) (.{{3,80}})$"
            ),
            "todo",
            "high",
            lambda m: _sentence(f"The user needs to {_third_person_en(m.group(2))} {m.group(1)}"),
        ),
        (
            r(
                rf"^(every (?:morning|day|evening|night|week|weekday|weekend|{_WEEKDAYS})|each (?:morning|day|week)),? I (.{{3,100}})$"
            ),
            "workflow",
            "medium",
            lambda m: _sentence(f"{m.group(1)} the user {_verb_phrase(m.group(2))}"),
        ),
        (
            r(r"^I (always|usually|normally|typically) (.{3,100})$"),
            "workflow",
            "medium",
            lambda m: _sentence(f"The user {m.group(1).lower()} {_verb_phrase(m.group(2))}"),
        ),
        (
            r(
                r"^I (?:really |strongly |generally |much |definitely )?(prefer|like|love|enjoy) (.{2,100})$"
            ),
            "preference",
            "medium",
            lambda m: _preference_en(m),
        ),
        (
            r(
                r"^I (?:really )?(hate|dislike|can't stand|cannot stand|don't like|do not like) (.{2,100})$"
            ),
            "preference",
            "medium",
            lambda m: _preference_en(m),
        ),
    ]


def _preference_en(match: re.Match[str]) -> str | None:
    verb, obj = match.group(1).lower(), match.group(2).strip().rstrip(".!")
    first = obj.split()[0].lower()
    if first in _PRONOUN_OBJECTS or (first in ("to", "it's", "that's") and verb != "prefer"):
        return None  # "I like that idea", "I love it": nothing to remember on its own
    verbs = {
        "prefer": "prefers",
        "like": "likes",
        "love": "loves",
        "enjoy": "enjoys",
        "hate": "hates",
        "dislike": "dislikes",
        "can't stand": "can't stand",
        "cannot stand": "can't stand",
        "don't like": "doesn't like",
        "do not like": "doesn't like",
    }
    return _sentence(f"The user {verbs[verb]} {_third_person_en(obj)}")


def _zh_rules() -> list[_Rule]:
    c = re.compile
    return [
        (
            c(r"^(?:请)?(?:记住|记一下|帮我记住)[：:，, ]*(.{3,})$"),
            "explicit",
            "high",
            lambda m: _zh(m.group(1)),
        ),
        (
            c(r"^我(?:的名字)?叫([\u4e00-\u9fffA-Za-z]{1,12})$"),
            "fact",
            "high",
            lambda m: f"用户叫{m.group(1)}",
        ),
        (
            c(r"^我的名字是([\u4e00-\u9fffA-Za-z ]{1,20})$"),
            "fact",
            "high",
            lambda m: f"用户叫{m.group(1).strip()}",
        ),
        (
            c(r"^我(?:现在|目前)?在(.{2,30}?)(?:工作|上班|任职)(.*)$"),
            "fact",
            "high",
            lambda m: f"用户在{m.group(1)}工作{m.group(2).rstrip('。')}",
        ),
        (
            c(r"^(?:我(?:现在|目前)?|现在|目前)住在(.{2,30})$"),
            "fact",
            "high",
            lambda m: f"用户住在{_zh(m.group(1))}",
        ),
        (c(r"^我对(.{1,20}?)过敏"), "fact", "high", lambda m: f"用户对{m.group(1)}过敏"),
        (
            c(
                r"^我是(?:一[名个位])?(.{0,12}(?:工程师|程序员|设计师|学生|老师|医生|产品经理|研究员|分析师|架构师|律师|会计))(.*)$"
            ),
            "fact",
            "medium",
            lambda m: f"用户是{m.group(1)}{_zh(m.group(2))}",
        ),
        (
            c(
                r"^(我们|我)?(?:最后|最终|已经)?决定(?:了)?(?:使用|用|采用|改用)(.{1,40}?)(?:，|,)?(?:而不是|而非|不用)(.{1,30})$"
            ),
            "decision",
            "high",
            lambda m: (
                f"{'团队' if m.group(1) == '我们' else '用户'}决定使用{m.group(2).strip()}而不是{_zh(m.group(3))}"
            ),
        ),
        (
            c(rf"^我?(.{{0,10}}?{_WHEN_ZH}.{{0,6}}?(?:要|需要|得|准备|打算|记得).{{2,40}})$"),
            "todo",
            "high",
            lambda m: "用户" + re.sub(r"我(?=要|需要|得|准备|打算|记得)", "", _zh(m.group(1))),
        ),
        (
            c(r"^我?(每天|每周[一二三四五六日天]?|每个?(?:早上|晚上|周末|月))(.{3,50})$"),
            "workflow",
            "medium",
            lambda m: f"用户{m.group(1)}{_zh(m.group(2))}",
        ),
        (
            c(r"^我(?:一般|通常|总是|习惯)(?:都)?(.{3,50})$"),
            "workflow",
            "medium",
            lambda m: f"用户习惯{_zh(m.group(1))}",
        ),
        (
            c(
                r"^我(?:很|非常|比较|特别|一直|更)?(喜欢|偏好|爱用|更喜欢|倾向于|讨厌|不喜欢|受不了)(.{1,50})$"
            ),
            "preference",
            "medium",
            lambda m: _preference_zh(m),
        ),
    ]


def _preference_zh(match: re.Match[str]) -> str | None:
    verb, obj = match.group(1), match.group(2).strip().rstrip("。！!")
    if obj.startswith(("这", "那", "它", "你")):
        return None  # "我喜欢这个方案": a reaction to the conversation, not a lasting taste
    return f"用户{verb}{obj}"


_EN_RULES = _en_rules()
_ZH_RULES = _zh_rules()

# Words that make a sentence a question or a hypothetical: not a statement about the user.
_FORGET_EN = re.compile(
    r"^(?:please )?(?:forget|stop remembering|don't remember|do not remember)"
    r"(?: (?:that|about|the fact that))? (.{3,})$",
    re.I,
)
_FORGET_ZH = re.compile(r"^(?:请)?(?:忘掉|忘记|别记|不要记|不用记)(?:住)?(?:了)?[：:，, ]*(.{2,})$")
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
            rf"(?:\b{_WHEN_EN}\b|{_WHEN_ZH}).*(?:need|have to|must|will|要|需要|得|准备|打算|记得)"
            rf"|(?:need|have to|must|will|要|需要|得|准备|打算|记得).*(?:\b{_WHEN_EN}\b|{_WHEN_ZH})",
        ),
        ("preference", r"\b(?:prefers?|likes?|loves?|hates?|dislikes?)\b|喜欢|偏好|讨厌"),
        ("decision", r"\bdecided\b|决定"),
        ("workflow", r"\b(?:every|always|usually)\b|每天|每周|习惯"),
    ]
    for category, pattern in checks:
        if re.search(pattern, lowered):
            return category
    return "fact"


_WEEKDAY_EN = {d: i for i, d in enumerate(_WEEKDAYS.split("|"))}
_WEEKDAY_ZH = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6}
#: A todo whose date the rules cannot pin down expires after this many days.
TODO_DEFAULT_DAYS = 14


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
        (rf"\bnext ({_WEEKDAYS})\b", lambda m: upcoming(_WEEKDAY_EN[m.group(1)], True)),
        (
            rf"\b(?:this|on|by|before) ({_WEEKDAYS})\b",
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


def _session_day(messages: Sequence[Mapping[str, Any]]) -> date:
    for message in messages:
        stamp = message.get("timestamp")
        if isinstance(stamp, str):
            with contextlib.suppress(ValueError):
                return datetime.fromisoformat(stamp.replace("Z", "+00:00")).date()
    return utcnow().date()


# A statement that a value changed: (pattern, builds the memory, which group is the old value).
_CHANGES: list[tuple[re.Pattern[str], Any, int]] = [
    (
        re.compile(
            r"^I(?:'ve| have)? (?:just |recently )?moved from (.{2,40}?) to (.{2,40})$", re.I
        ),
        lambda m: _sentence(f"The user lives in {m.group(2)}"),
        1,
    ),
    (
        re.compile(r"^我(?:已经|刚|最近)?从(.{1,20}?)搬(?:到|去)了?(.{1,20})$"),
        lambda m: f"用户住在{_zh(m.group(2))}",
        1,
    ),
    (
        re.compile(
            r"^I (?:no longer|don't|do not) (use|like|live in|work at|work for|eat|drink|play) (.{2,60}?)(?: any ?more)?$",
            re.I,
        ),
        lambda m: (
            None
            if not re.search(r"no longer|any ?more", m.string, re.I)
            else _sentence(f"The user no longer {_verb_phrase(m.group(1))} {m.group(2)}")
        ),
        2,
    ),
    (
        re.compile(
            r"^我(?:已经)?不再(用|使用|喜欢|住在|在)(.{1,20}?)了?(?:[，,]\s*(改用|换成|现在用|改成)(.{1,20}))?$"
        ),
        # The user's own words, about the user: "我不再用 Vue 了，改用 React" -> "用户不再用 Vue，改用 React".
        lambda m: "用户" + re.sub(r"\s*了?\s*([，,])\s*", "，", m.string[1:]).rstrip("了 "),
        2,
    ),
]
# Facts with one value at a time: a new one contradicts the known one with another value.
_SINGLE_VALUED = [
    re.compile(r"^The user (?:lives|is based) in (.+?)\.?$|^用户住在(.+)$"),
    re.compile(r"^The user works (?:at|for) (.+?)(?: as .*)?\.?$|^用户在(.+?)工作"),
]


def _known(summary: str) -> list[tuple[str, str]]:
    """The ``[id] content`` lines of the existing-memory summary."""
    return [
        (match.group(1), match.group(2))
        for line in summary.split("\n")
        if (match := _SUMMARY_LINE.match(line.strip()))
    ]


def _contradicted(
    candidate: Candidate, old_value: str | None, known: list[tuple[str, str]]
) -> tuple[str, ...]:
    """Ids of known memories the candidate replaces."""
    ids = []
    if old_value:
        needle = old_value.strip().casefold()
        ids += [i for i, content in known if needle in content.casefold()]
    for pattern in _SINGLE_VALUED:
        new = pattern.match(candidate.content)
        if not new:
            continue
        value = (new.group(1) or new.group(2)).strip().casefold()
        for entry_id, content in known:
            old = pattern.match(content)
            if old and (old.group(1) or old.group(2)).strip().casefold() != value:
                ids.append(entry_id)
    return tuple(dict.fromkeys(ids))


_LEAD_IN_EN = re.compile(
    r"^(?:(?:also|and|so|oh|btw|by the way|actually|well|ok|okay|hi|hello|hey|big news"
    r"|quick one|fyi)[,:! ]+)+",
    re.I,
)
_LEAD_IN_ZH = re.compile(r"^(?:另外|还有|对了|其实|嗯|你好)[，, ]*")


def _clean(sentence: str) -> str:
    """The sentence without quotes and lead-ins ("Hi, ...", "By the way, ...", "另外，...")."""
    sentence = sentence.strip(" \t\"'“”「」")
    return _LEAD_IN_ZH.sub("", _LEAD_IN_EN.sub("", sentence))


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
        today = _session_day(messages)
        known = _known(existing_summary)
        for message in messages:
            if message.get("role") != "user":
                continue
            clauses = (
                clause
                for sentence in _SENTENCE_END.split(_message_text(message))
                for clause in _CLAUSE_END.split(sentence)
            )
            for clause in clauses:
                candidate, old_value = self._change(clause.strip())
                if candidate is None:
                    candidate = self._match(clause.strip(), today)
                if candidate is not None and known and not candidate.forget:
                    contradicts = _contradicted(candidate, old_value, known)
                    if contradicts:
                        candidate = candidate.model_copy(update={"contradicts": contradicts})
                if candidate is not None and candidate.content.lower() not in seen:
                    seen.add(candidate.content.lower())
                    found.append(candidate)
        return found

    @staticmethod
    def _change(sentence: str) -> tuple[Candidate | None, str | None]:
        """A memory that a value changed ("I moved from X to Y"), with the old value."""
        sentence = _clean(sentence).rstrip(".。!！")
        for pattern, build, old_group in _CHANGES:
            match = pattern.match(sentence)
            if match:
                content = build(match)
                if content:
                    return Candidate(
                        content=content, category="fact", importance="high"
                    ), match.group(old_group)
        return None, None

    @staticmethod
    def _match(sentence: str, today: date) -> Candidate | None:
        sentence = _clean(sentence)
        if len(sentence) < 4 or _NOT_A_STATEMENT.search(sentence.rstrip(".。!！")):
            return None
        forget = _FORGET_EN.match(sentence.rstrip(".。!！")) or _FORGET_ZH.match(
            sentence.rstrip(".。!！")
        )
        if forget:
            said = forget.group(1)
            content = _zh(said) if _CJK_RE.search(said[:4]) else _sentence(_third_person_en(said))
            return Candidate(content=content, forget=True)
        rules = _ZH_RULES if _CJK_RE.search(sentence[:4]) else _EN_RULES
        for pattern, category, importance, build in rules:
            match = pattern.match(sentence.rstrip(".。!！"))
            if not match:
                continue
            content = build(match)
            if not content:
                return None
            if category == "explicit":
                category = _classify(content)
            expires = None
            if category == "todo":
                day = resolve_date(sentence, today) or today + timedelta(days=TODO_DEFAULT_DAYS)
                # A todo lapses the day after its date (UTC midnight).
                expires = datetime.combine(day + timedelta(days=1), time(), timezone.utc)
            return Candidate(
                content=content, category=category, importance=importance, expires_at=expires
            )
        return None


# ---------------------------------------------------------------------------------------------
# Claude

SYSTEM_PROMPT = """You maintain the long-term memory of an AI assistant about its user.
Read the conversation and extract what is worth remembering across sessions: stable
preferences, facts about the user and their work, decisions, habits and workflows, lessons
learned about how to handle recurring problems, how the user uses the assistant, and todos
with their dates.

Rules:
- One short sentence per memory, about the user ("The user prefers ..."), written in the
  language the user said it in (Chinese stays Chinese: "用户喜欢……").
- Only what the conversation supports. No guesses, no small talk, nothing the assistant said
  unless the user confirmed it.
- Never include secrets: API keys, tokens, passwords, private keys.
- importance: high for identity, explicit "remember this" requests, strong preferences and
  decisions; medium for ordinary preferences and habits; low for passing details.
- category: preference, fact, experience, workflow, decision, skill_usage or todo.
- Existing memories are listed as "[id] content". Do not repeat them as new memories: if the
  conversation mentions or confirms one, put its id in confirmed_ids instead. If the user
  asks to forget one ("forget that ...", "忘掉……"), put its id in forget_ids. If a new
  memory replaces an existing one (the user moved, changed a tool or a preference), list the
  old id in that memory's contradicts.
- For a todo or anything that only holds until a date, set expires_on to its last day,
  resolving "tomorrow", "next Wednesday", "下周三" against the date of the conversation.
- If nothing is worth remembering, return empty lists."""

SUMMARY_PROMPT = """Summarize this part of a conversation between a user and an AI assistant
for later memory extraction. Keep every statement the user made about themselves, their
preferences, work, decisions, habits, plans and dates, in the user's own language. Drop code,
tool output and small talk. Plain text, at most 400 words."""


class ExtractedMemory(BaseModel):
    """One memory in the model's answer."""

    content: str = Field(description="One sentence about the user, in the language they used.")
    category: Category
    importance: Importance
    expires_on: date | None = Field(
        default=None,
        description="For todos and other time-limited memories: the last day it holds.",
    )
    contradicts: list[str] = Field(
        default_factory=list,
        description="Ids of existing memories this one replaces (a changed fact or preference).",
    )


class ExtractionAnswer(BaseModel):
    """The structured answer of the extraction call."""

    memories: list[ExtractedMemory] = Field(default_factory=list)
    confirmed_ids: list[str] = Field(
        default_factory=list, description="Ids of existing memories the conversation confirms."
    )
    forget_ids: list[str] = Field(
        default_factory=list,
        description="Ids of existing memories the user explicitly asked to forget.",
    )


_SUMMARY_LINE = re.compile(r"^\[([^\]]+)\] (.*)$")


class ClaudeExtractor:
    """Extraction with one Claude Messages call per session (structured output).

    ``client`` is any ``anthropic.Anthropic`` instance (tests point one at a local server);
    by default one is made from ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``.
    """

    def __init__(
        self,
        client: anthropic.Anthropic | None = None,
        *,
        model: str | None = None,
        max_tokens: int = 2_048,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        self.model = model or os.environ.get("EVERBOT_MEMORY_MODEL") or DEFAULT_MODEL
        self.max_tokens = max_tokens
        self._client = client
        self._timeout = timeout
        self._max_retries = max_retries
        self.warnings: list[str] = []
        self.calls = 0  # API calls made by the last extract()

    @property
    def client(self) -> anthropic.Anthropic:
        """The SDK client (made on first use: importing the SDK takes over a second)."""
        if self._client is None:
            import anthropic

            if not os.environ.get("ANTHROPIC_API_KEY"):
                raise ExtractionError(
                    "ANTHROPIC_API_KEY is not set; set it, or use the offline extractor "
                    "(--extractor rules)"
                )
            self._client = anthropic.Anthropic(timeout=self._timeout, max_retries=self._max_retries)
        return self._client

    def extract(
        self, messages: Sequence[Mapping[str, Any]], existing_summary: str = ""
    ) -> list[Candidate]:
        """Candidates for one finished session; raises :class:`ExtractionError` on API errors.

        A malformed or schema-violating answer is not an error: it leaves a warning and no
        candidates, so nothing is written.
        """
        self.warnings = []
        self.calls = 0
        conversation = conversation_text(messages)
        if not conversation.strip():
            return []
        if estimate_tokens(conversation) > COMPRESS_ABOVE_TOKENS:
            conversation = self._compress(conversation)
        existing_lines = [line for line in existing_summary.split("\n") if line.strip()][:50]
        user_text = (
            f'<conversation date="{_session_day(messages).isoformat()}">\n'
            f"{conversation}\n</conversation>\n\n"
            "<existing_memories>\n"
            + ("\n".join(existing_lines) or "(none)")
            + "\n</existing_memories>"
        )
        response = self._call(
            "parse",
            system=[
                {"type": "text", "text": SYSTEM_PROMPT, "cache_control": {"type": "ephemeral"}}
            ],
            messages=[{"role": "user", "content": user_text}],
            output_format=ExtractionAnswer,
        )
        if response is None:
            return []
        answer = self._answer(response)
        if answer is None:
            return []
        known = dict(_known("\n".join(existing_lines)))
        candidates = []
        for memory in answer.memories:
            try:
                expires = (
                    datetime.combine(memory.expires_on + timedelta(days=1), time(), timezone.utc)
                    if memory.expires_on
                    else None
                )
                candidates.append(
                    Candidate(
                        content=memory.content,
                        category=memory.category,
                        importance=memory.importance,
                        expires_at=expires,
                        contradicts=tuple(i for i in memory.contradicts if i in known),
                    )
                )
            except ValidationError:
                self.warnings.append("skipped an empty memory in the model's answer")
        for entry_id in dict.fromkeys(answer.forget_ids):
            if entry_id in known:
                candidates.append(
                    Candidate(content=known[entry_id], confirms=entry_id, forget=True)
                )
            else:
                self.warnings.append(f"the model asked to forget unknown memory id {entry_id!r}")
        for entry_id in dict.fromkeys(answer.confirmed_ids):
            if entry_id in known:
                candidates.append(Candidate(content=known[entry_id], confirms=entry_id))
            else:
                self.warnings.append(f"the model confirmed unknown memory id {entry_id!r}")
        return candidates

    def _answer(self, response: Any) -> ExtractionAnswer | None:
        parsed = getattr(response, "parsed_output", None)
        if isinstance(parsed, ExtractionAnswer):
            return parsed
        self.warnings.append(
            "the model's answer had no structured result "
            f"(stop reason: {getattr(response, 'stop_reason', None)}); no memories taken"
        )
        return None

    def _compress(self, conversation: str) -> str:
        """The seed's SessionCompressor: summarize a long conversation before extraction."""
        chunks: list[str] = []
        current: list[str] = []
        size = 0
        for turn in conversation.split("\n\n"):
            tokens = estimate_tokens(turn)
            if current and size + tokens > 60_000:
                chunks.append("\n\n".join(current))
                current, size = [], 0
            current.append(turn)
            size += tokens
        chunks.append("\n\n".join(current))
        summaries = []
        for chunk in chunks:
            response = self._call(
                "create",
                system=SUMMARY_PROMPT,
                messages=[{"role": "user", "content": chunk}],
            )
            text = "".join(
                getattr(block, "text", "") for block in getattr(response, "content", [])
            ).strip()
            summaries.append(text)
        return "Earlier in this session (summary): " + "\n\n".join(s for s in summaries if s)

    def _call(self, method: str, **kwargs: Any) -> Any:
        import anthropic

        client = self.client
        self.calls += 1
        call = client.messages.parse if method == "parse" else client.messages.create
        try:
            return call(model=self.model, max_tokens=self.max_tokens, **kwargs)
        except ValidationError as exc:
            # messages.parse validates the model's JSON against the schema; a bad answer is
            # the model's mistake, not the user's: report it and take no memories.
            self.warnings.append(
                f"the model's answer did not match the memory schema ({exc.error_count()} "
                "errors); no memories taken"
            )
            return None
        except anthropic.AuthenticationError as exc:
            raise ExtractionError(
                "the API key was rejected (401); check ANTHROPIC_API_KEY"
            ) from exc
        except anthropic.PermissionDeniedError as exc:
            raise ExtractionError(f"the API refused the request (403): {exc.message}") from exc
        except anthropic.NotFoundError as exc:
            raise ExtractionError(
                f"model {self.model!r} was not found (404); set --model or EVERBOT_MEMORY_MODEL"
            ) from exc
        except anthropic.RateLimitError as exc:
            raise ExtractionError(
                f"rate limited by the API (429) after {self._retries(client)} retries; "
                "try again later"
            ) from exc
        except anthropic.APITimeoutError as exc:
            raise ExtractionError(
                f"the API did not answer in time after {self._retries(client)} retries"
            ) from exc
        except anthropic.APIConnectionError as exc:
            raise ExtractionError(f"cannot reach the API: {exc.message}") from exc
        except anthropic.APIStatusError as exc:
            raise ExtractionError(
                f"the API failed ({exc.status_code}) after {self._retries(client)} retries: "
                f"{exc.message}"
            ) from exc

    @staticmethod
    def _retries(client: Any) -> int:
        return int(getattr(client, "max_retries", 0))
