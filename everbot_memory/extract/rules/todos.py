"""Todos in what the user said: plans with a day, lists of things to do, requests to be
reminded; and what looks like one but is not (a habit, a state until a day, someone else's
appointment, a story of the past).

A todo keeps its day written out when the user named it relatively ("tomorrow", "下周三"),
and expires after it.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from ...core.candidate import Candidate
from ...core.redaction import redact
from ...core.rules import TODO_DEFAULT_DAYS
from ...core.scoring import expiry_after
from ...core.text import CJK_RE
from .dates import CJK_DATE_SPACE, LEAD, resolve_date
from .statements import (
    ASKS,
    HYPOTHETICAL,
    TASK_FOR_ASSISTANT,
    clean,
    own_taste,
    past,
    statement,
    too_short,
    without_request,
)
from .wording import about_the_user

__all__ = [
    "MEANS_TO",
    "MUST",
    "RECURRING",
    "TASK_LIST",
    "dated",
    "lasting",
    "lead_from_before",
    "others_task",
    "plan_of",
    "plans_of",
    "points_back_only",
    "things_to_do",
    "to_do_on",
    "todo_of",
]

# Where one thing to do ends and the next begins in a sentence that lists several, each
# with its day ("book the venue by friday, and the grant report is due the 14th", "下周三牙医
# 复诊 然后月底前还得续签房租合同").
_NEXT_TODO = re.compile(
    r"[;；]\s*|[,，]\s*(?:and (?:then )?|then |also |plus )?(?=\S)|\s+(?:and then|then)\s+"
    r"|\s*(?:然后|还有|另外|再就是)\s*"
    # In Chinese typed with spaces for commas, a space before the next day said ("明天上午
    # 十点跟客户开会 周五之前还得把报价单发出去").
    r"|(?<=[\u4e00-\u9fff])\s+(?=(?:这|下|本)?(?:周|星期|礼拜)[一二三四五六日天]|明天|后天|今晚|"
    r"月底|月初|年底|\d{1,2}[号日]|\d{1,2}月)"
)


def things_to_do(said: str, today: date) -> list[str]:
    """``said`` cut into the things to do it lists, when each names a day of its own to come;
    else ``said`` whole."""
    cuts = [m for m in _NEXT_TODO.finditer(said) if m.start() > 0]
    if not cuts or not _RELATIVE_DAY.search(said):
        return [said]
    # A text given to work on ("翻译成日语：周三开会，周五交报告") is not the user's list, and a
    # day taken back ("周五要交房租，哦不是周五，是月底前交") is one thing said twice.
    if TASK_FOR_ASSISTANT.search(said) or re.search(
        r"不是|不对|哦不|啊不|(?:no wait|sorry|i mean|i meant|actually)", said, re.I
    ):
        return [said]
    parts, start = [], 0
    for cut in cuts:
        parts.append(said[start : cut.start()])
        start = cut.end()
    parts.append(said[start:])
    days = [resolve_date(part, today) for part in parts]
    dated = [(part, day) for part, day in zip(parts, days, strict=True) if day is not None]
    if (
        len(dated) < 2
        or len({day for _, day in dated}) < 2
        or any(day < today for _, day in dated)
        or any(
            # Three words, or in Chinese five characters ("下周三体检 月底交房租" is two things
            # to do; "月底前交" names no thing).
            len(CJK_RE.findall(part)) < 5
            if CJK_RE.search(part)
            else len(re.findall(r"[A-Za-z0-9]+", part)) < 3
            for part, _ in dated
        )
    ):
        return [said]
    # A part with no day of its own belongs to the thing before it ("Dentist Wednesday at
    # 4:15, bring the forms").
    kept: list[str] = []
    joiner = "，" if CJK_RE.search(said) else ", "
    for part, day in zip(parts, days, strict=True):
        if day is None and kept:
            kept[-1] = f"{kept[-1]}{joiner}{part}"
        else:
            kept.append(part)
    return [part.strip() for part in kept if part.strip()]


# A thing asked for or still to do: a reminder, a need, a plan.
_TO_COME = re.compile(
    r"\b(?:remind|ping|nudge|tell me|text me|need to|have to|must|should|will|gonna|going to)\b"
    r"|'ll\b|提醒|要|得|需要|记得|准备|打算",
    re.I,
)


def lead_from_before(said_by_message: list[list[str]], today: date) -> list[list[str]]:
    """Each message's sentences, each that asks for a thing some time before a day it does
    not name ("remind me a week before to order the cake") given the day the sentence said
    before it names ("mum's 60th is on july 25th"), in its message or the one before: the day
    it means, written after the lead."""
    out: list[list[str]] = []
    before = ""
    for saids in said_by_message:
        kept: list[str] = []
        for said in saids:
            lead = LEAD.search(said)
            if lead and not _TO_COME.search(said):
                lead = None  # "I started revising three weeks before": done, not to do
            day = resolve_date(before, today) if before and lead else None
            if lead and day is not None and resolve_date(said, today) is None:
                named = (
                    f"{day.month}月{day.day}号"
                    if CJK_RE.search(said)
                    else f"{day:%B} {day.day}, {day.year}"
                )
                # "two weeks before that": the day said in place of the word pointing to it.
                rest = re.sub(r"^\s*(?:that|it|this|then)\b", "", said[lead.end() :])
                said = f"{said[: lead.end()]} {named} {rest.lstrip()}"
            kept.append(said)
            before = said
        out.append(kept)
    return out


# A day named from today ("tomorrow", "next Wednesday", "this Friday", "下周三", "大后天").
_RELATIVE_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|next \w+|this (?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|weekend|week|month)|on (?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|in \w+ (?:days?|weeks?|months?)|(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)|end of (?:the |this )?(?:week|month)|eod|the \d{1,2}(?:st|nd|rd|th)|"
    r"tmrw|tmr|this weekend|next weekend|in a couple (?:of )?days|in a fortnight|"
    r"\w+ weeks? from (?:today|now))\b"
    r"|今天|今晚|明天|明早|明晚|明儿|后天|大后天|过两天|下周|下个?月|这周|本周|周[一二三四五六日天]"
    r"|星期[一二三四五六日天]|礼拜[一二三四五六日天]|月初|半个月后"
    r"|[一二两三四五六七八九十\d]+(?:天|个?星期|个?周|个月)后|月底|\d+[号日]",
    re.I,
)


# Something to do or attend: with a coming day, a todo.
_PLAN = re.compile(
    r"\b(?:need|needs|have to|has to|got to|gotta|must|should|remind|appointment|booked|"
    r"book|meeting|meet|flight|flying|fly|train|test|exam|interview|deadline|due|starts?|"
    r"visiting|coming|wedding|birthday|party|conference|trip|away|leaving|driving|moving|"
    r"renew|renewed|file|submit|pick up|call|doctor|dentist|surgery|hosting|host|taking|"
    r"going|seeing|giving|i'll|i will|we'll|we're|i'm)\b"
    r"|要|得|需要|打算|准备|约了|预约|航班|高铁|飞|去|开会|见|面试|考试|复查|到期|结婚|生日|搬|交|"
    r"提醒|记得|出发|回老家|开工|面签"
    # Events on a day: the day is the user's to keep.
    r"|\b(?:race|marathon|concert|gig|recital|ceremony|graduation|checkup|check-up|vet|"
    # Appointments and gatherings named as events ("Lunch with Sarah next Tuesday", "jury duty
    # on Monday", "passport renewal by end of month", "周五晚上和老同学吃饭").
    r"lunch|dinner|brunch|breakfast|drinks|date night|playdate|sleepover|reunion|shower|"
    r"jury duty|appt|renewal|physio|therapy|therapist|counsel(?:l)?ing|lesson|class|practice|"
    r"rehearsal|tournament|match|game|meetup|1:1|one-on-one|sync|standup|workshop|webinar|"
    r"training|orientation|open house|viewing|pickup|drop-off|dropoff|delivery|install|"
    r"repair|service|oil change|mot|inspection|play|show|recital|funeral|christening|"
    r"baptism|bar mitzvah|bat mitzvah|anniversary|hackathon|retreat|offsite|call with|"
    r"check-in|appointment)\b"
    r"|吃饭|约饭|聚会|打疫苗|疫苗|上课|补课|培训|考试|看病|医院|看牙|洗牙|拔牙|体检|复诊|年检|保养|"
    r"婚礼|满月酒|寿宴|家长会|开学|报到|入职|述职|答辩|路演|团建|年会"
    r"|\b(?:race|marathon|concert|gig|recital|ceremony|graduation|checkup|check-up|vet|"
    r"haircut|defen[cs]e|presentation|demo|launch|review|reservation|closing|move-in|"
    r"inspection|hearing|court|shift|on call|on-call)\b"
    r"|比赛|马拉松|演唱会|音乐会|聚会|聚餐|体检|手术|答辩|汇报|上线|发布会|演出|签约|报名|出差|"
    r"回国|续费|缴费|还款|交房|提车|看房|搬家|拔牙|产检|值班|签合同|签字|办手续|过户|家长会|"
    r"复查|挂号|取快递|寄快递",
    re.I,
)


# The words of a time and of asking to be reminded: what is left is the thing to do.
_TIME_AND_ASKING = re.compile(
    rf"{_RELATIVE_DAY.pattern}|提醒(?:我|一下)*|remind me|[上下中]午|晚上|早上|凌晨|\d+\s*点半?"
    r"|\d{1,2}(?::\d\d)?\s?(?:am|pm)|[吧啊哈呀]",
    re.I,
)


# A question asked without a question mark ("今晚谁去吃火锅", "几点出发").
_QUESTION_ZH = re.compile(
    r"谁|哪天|几点|什么时候|啥时候|多少钱|怎么办|咋办|要不要|是不是|吗$|有什么|有啥|有没有"
)


# Something done again and again is a habit, not a todo ("every Tuesday", "每个月25号之前").
RECURRING = re.compile(
    r"\b(?:every|each|weekly|daily|monthly|nightly|twice a|once a|\w+ times a|from now on|"
    r"going forward|starting (?:next|this|from))\b|从[^，。]{1,6}起(?!床)"
    # "今年开始我吃素", "下个月起": so from then on.
    r"|(?:今天|今年|明天|下周|下个?月|明年|这个?月|本月|现在|今后|以后)(?:开始|起)(?!床|来)"
    # Weekdays in the plural, or a weekday's part of the day ("Sunday nights I batch cook",
    # "mondays are reheating", "mon to wed mornings", "weeknights").
    r"|\b(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekdays|weeknights|"
    r"weekends|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday) (?:nights|mornings|"
    r"evenings|afternoons)|on weekends|(?:mon|tue|wed|thu|fri|sat|sun)\w* (?:to|through|-) "
    r"(?:mon|tue|wed|thu|fri|sat|sun)\w*)\b"
    r"|每(?:天|周|个?月|年|晚|早|次|个?星期)|一周[一二两三四五六七\d]次|[一二三四五六日](?:[一二三四五六日]){1,2}(?:上午|下午|晚上)"
    # Two weekdays or both ends of the month named together, not as next week's ("上线都放在
    # 周二和周四", "月底月初忙成狗").
    r"|(?<![下这本上])周[一二三四五六日天](?:和|、|跟|或)?周[一二三四五六日天]|月底月初|月初月底"
    r"|(?<![下这本上])周[一二三四五六日天](?:、[一二三四五六日天])+(?![^，,。]{0,12}(?:这周|下周|本周))"
    # Weekdays listed by their short names ("mon/wed/fri", "tue+thu"): a schedule, unless
    # of one week ("exams mon/wed/fri next week").
    r"|\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:\s*[/+&]\s*(?:mon|tue|tues|wed|thu|thur|"
    r"thurs|fri|sat|sun)\b)+(?![^,.;]{0,20}\b(?:this|next|coming) week)",
    re.I,
)


# Words that say something is to be done, whatever the day: on the day itself ("today",
# "tonight"), a todo needs one of these; an event of today is being lived, not planned
# ("PASSED my motorcycle test today", "Today I'm just sleeping").
MUST = re.compile(
    r"\b(?:need to|needs to|have to|has to|got to|gotta|must|remind|don't forget|deadline|due|"
    r"appointment|appt)\b|提醒|记得|别忘|必须|得去|要去|要交|截止|到期"
    # "周五之前" is a deadline; "我之前只写过" is "before now", "之前的" "the last one".
    r"|(?<![我你他她它们])之前(?!的)",
    re.I,
)


# A time of day: an event of today at a set time is still to come ("今晚九点半开会").
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s?(?:am|pm)\b|\b\d{1,2}:\d\d\b|\bat (?:noon|\d{1,2})\b"
    r"|[\d一二两三四五六七八九十]{1,3}点",
    re.I,
)


# A state said with the day it ends ("in the shop till next tuesday", "stuck in Singapore
# until end of April", "住到月底"): it lasts until then, nothing is to be done on that day.
_LASTS_UNTIL = re.compile(r"\b(?:till|until|til|untill|thru)\b|一直到|住到|待到|呆到", re.I)


# Something due by a day, beside such a state ("needs the documents by Jan 5 and I'm in
# holiday mode until then"): still to do.
_DUE_BY = re.compile(
    r"\bneeds?\b|\bby (?:then|the|next|this|end|\d|(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|"
    r"apr|may|jun|jul|aug|sep|oct|nov|dec)\w*)\b",
    re.I,
)


# Saying what one means to do ("planning to sign up next month", "明年打算去考个证").
MEANS_TO = re.compile(
    r"\b(?:plan(?:ning)? to|going to|gonna|intend to|hoping to|aim(?:ing)? to)\b|打算|准备|计划|想去|要去",
    re.I,
)


# A list of things to do, by what opens it ("brain dump before i forget: ...", "errands
# today: ...", "待办：..."), and where its items part.
TASK_LIST = re.compile(
    r"^(?:(?:ok|okay|so|right|alright)[,.]?\s+)*(?:(?:my |a )?(?:brain ?dump|to-?do(?: list)?|"
    r"todos|errands|chores|things (?:i need )?to do|task list|list for (?:today|tomorrow|the "
    r"weekend|this week))\b[^:：\n]{0,40}|(?:今天|明天|这周|周末)?(?:的)?(?:待办|要做的事|要办的事|"
    r"要干的事|清单))\s*[:：]\s*",
    re.I,
)


_LIST_ITEM = re.compile(
    r"\s*(?:[,，;；、]|\n)\s*(?:and\s+|also\s+|还有|然后)?|\s+and\s+(?=\w+\b)", re.I
)


# An item of a list told as done ("called the bank", "bought milk", "已经交了水电费"), or by
# someone else ("the kids did the dishes"), or an afterthought ("or maybe not").
_DONE_ITEM = re.compile(
    r"^(?:(?:i|we|(?:the|my|our) \w+)\s+)?(?:already\s+)?(?:[a-z]{2,}[^e\W]ed|did|bought|sent|paid|got|"
    r"took|went|made|gave|wrote|told|sold|found|met|left|brought|caught)\b(?! to\b)"
    r"|^(?:or|but|maybe)\b|^(?:我)?(?:已经|刚)|了$",
    re.I,
)


# Where a clause that may tell a plan of its own begins: after a comma or a semicolon, or
# "also"; in Chinese typed without punctuation, a space.
_TASK_CLAUSE = re.compile(
    r"[,;，；]\s*(?:and\s+|also\s+|plus\s+)?|\.\s+(?=also\b)|\s+also\s+"
    r"|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])",
    re.I,
)


# Someone else as the one a plan is for ("my roommate has her driving test friday", "老公周一
# 要去出差", "同事下周要去面试"), with nothing the user is to do in it.
_OTHERS_FIRST = re.compile(
    r"^(?:(?:lol|omg|ugh|so|and|also|btw|oh)[, ]+)*(?:(?:my|our|the) )?(?:roommate|flatmate|"
    r"housemate|coworker|co-worker|colleague|boss|manager|husband|wife|partner|boyfriend|"
    r"girlfriend|bf|gf|friend|buddy|bestie|sister|brother|sis|bro|neighbou?r|cousin|"
    r"teammate)s?\b(?!'s|’s|\s*[,，:])"
    r"|^(?:我|我的|我们)?(?:老公|老婆|对象|男朋友|女朋友|男票|女票|同事|领导|老板|室友|舍友|朋友|闺蜜|"
    r"哥们|表[哥姐弟妹]|堂[哥姐弟妹]|邻居)(?![,，:：]|的?(?:婚礼|生日|婚宴|喜酒|满月|寿宴|毕业典礼|葬礼))",
    re.I,
)


# Saying that something has to be done, in words :data:`MUST` does not read ("supposed to",
# "还要去", "得交").
_OBLIGED = re.compile(r"\bsupposed to\b|还要|还得|得交", re.I)


# A clause that asks the assistant something ("can you turn that into a list").
_ASKING_CLAUSE = re.compile(
    r"(?:can|could|would|will) you\b|(?:please|pls|plz)\b|(?:你|请你?|麻烦你?)?帮(?:我|忙)|你(?:能|可以)",
    re.I,
)


_USERS_PART = re.compile(
    r"\b(?:i|i'll|i'm|i've|i'd|me|we|we'll|we're)\b|我(?!们?的?(?:老公|老婆|同事|朋友))", re.I
)


def others_task(said: str) -> bool:
    """True when a plan said in ``said`` is someone else's: its subject is another person,
    and the user has no part in it."""
    said = said.strip()
    first = _OTHERS_FIRST.match(said)
    return first is not None and not _USERS_PART.search(said[first.end() :])


def _own_part(said: str) -> bool:
    """True when a clause of ``said`` gives the user something to do ("i need to finish the
    slides", "我得去接她"), not only a word ("any tips i can pass along", "(I know)")."""
    return any(
        _USERS_PART.search(c)
        and (_OBLIGED.search(c) or MUST.search(c) or MEANS_TO.search(c) or _WILL.search(c))
        for c in _TASK_CLAUSE.split(said)
    )


_WILL = re.compile(r"\b(?:i'll|i will|we'll|we will|i'm going|we're going)\b|我(?:要|会)", re.I)


def lasting(said: str) -> bool:
    """True when ``said`` tells of a state until a day, and of nothing to do by then."""
    return (
        bool(_LASTS_UNTIL.search(said))
        and not MUST.search(said)
        and not _DUE_BY.search(said)
        and not re.search(r"\bremember\b|记得|别忘", said, re.I)
    )


def to_do_on(day: date | None, today: date, said: str) -> bool:
    """True when ``day`` is one a todo can be for: a day to come, or today with something
    still to be done or a time set."""
    if day is None:
        return False
    return day > today or (day == today and bool(MUST.search(said) or _CLOCK.search(said)))


# Words that name nothing to do ("remind me at 3", "周五中午提醒一下吧" leave only these).
_NO_THING = frozenset(
    [
        "me",
        "at",
        "on",
        "in",
        "the",
        "a",
        "an",
        "is",
        "by",
        "for",
        "to",
        "and",
        "or",
        "my",
        "it",
        "that",
        "this",
        "then",
        "so",
        "ok",
        "okay",
        "pls",
        "please",
    ]
)


# A todo whose thing to do is only a word pointing back ("fine I'll buy one this weekend",
# "ok I'll do it tomorrow", "那我下周一去办"): what it points at was said before, or by the
# assistant, and the memory alone names nothing to do.
_POINTING = frozenset(["it", "one", "ones", "that", "this", "them", "those", "these"])


_NOT_THE_THING = frozenset(
    [
        *_NO_THING,
        "the",
        "user",
        "user's",
        "needs",
        "need",
        "will",
        "has",
        "have",
        "is",
        "going",
        "gonna",
        "fine",
        "over",
        "up",
        "out",
        "off",
        "back",
        "done",
        "away",
        "just",
        "also",
        "i",
        "we",
        "next",
        "tomorrow",
        "tonight",
        "today",
        "weekend",
        "week",
        "month",
        "morning",
        "afternoon",
        "evening",
        "night",
        "am",
        "pm",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)


def points_back_only(content: str) -> bool:
    """True when a todo's only object is a word pointing back ("buy one", "do it", "去办")."""
    if CJK_RE.search(content):
        left = re.sub(r"（\d{4}-\d\d-\d\d）|用户", "", content)
        left = _TIME_AND_ASKING.sub("", left)
        rest = re.sub(
            r"[就去要得了会吧也还都我的呢啊呀再先做来走那这它把一下个办弄搞处理掉完。！!，,\s]",
            "",
            left,
        )
        return rest == "" and bool(re.search(r"办|弄|搞|处理", left))
    words = [
        w
        for w in re.findall(r"[a-z']+", re.sub(r"\(\d{4}-\d\d-\d\d\)", "", content.lower()))
        if w in _POINTING or w not in _NOT_THE_THING
    ]
    pointing = [w for w in words if w in _POINTING]
    return bool(pointing) and len(words) - len(pointing) <= 1


def dated(content: str, said: str, day: date | None) -> str:
    """The memory with its day written out when the user named it relatively ("tomorrow",
    "next Wednesday", "下周三"): a day later, "tomorrow" would be read wrong."""
    if day is None or not _RELATIVE_DAY.search(CJK_DATE_SPACE.sub("", said)):
        return content
    if CJK_RE.search(content):
        return f"{content.rstrip('。')}（{day.isoformat()}）"
    return f"{content.rstrip('.')} ({day.isoformat()})."


def todo_of(said: str, today: date, *, item: bool = False) -> Candidate | None:
    """A todo of ``said``, which the user asked to put on their list; ``item``: one item
    of a list of things to do, short by nature ("book a haircut" is whole)."""
    content = about_the_user(clean(statement(said)))
    if not content or redact(content).only_secret or (too_short(said) and not item):
        return None
    day = resolve_date(said, today)
    if day is not None and day < today:
        day = None
    return Candidate(
        content=dated(content, said, day),
        category="todo",
        importance="medium",
        expires_at=expiry_after(day or today + timedelta(days=TODO_DEFAULT_DAYS)),
    )


def plans_of(said: str, today: date, listing: bool = False) -> list[Candidate]:
    """The todos of ``said``: its items when it lists things to do ("brain dump: pick up
    dry cleaning, call the insurance guy, ..."), else the plan it tells, else those of
    its clauses, each of its own ("老公周一要去出差 我得一个人送娃 还要周三去开家长会",
    "flight to lisbon is saturday, also must drop the dog at my sister's friday"); never
    a task of someone else's ("my roommate has her driving test friday"). ``listing``:
    ``said`` follows the opening of such a list, as one more of its items."""
    if listing:
        item = _listed(re.sub(r"^(?:and|also|then)\s+", "", said), today)
        return [] if item is None else [item]
    listed = TASK_LIST.match(said)
    if listed:
        items = [i for i in _LIST_ITEM.split(said[listed.end() :]) if i.strip()]
        if len(items) >= 2:
            todos = [_listed(item.strip(" .。!！"), today) for item in items]
            return [t for t in todos if t is not None]
    others_first = bool(_OTHERS_FIRST.match(said.strip()))
    if not others_first:
        whole = plan_of(said, today)
        if whole is not None:
            return [whole]
    clause_plans = _clause_plans(said, today)
    if clause_plans or not others_first or not _own_part(said):
        return clause_plans
    # "my boss wants the report by friday, i need to finish the slides": the user's part
    # of a plan whose day is said of someone else's.
    whole = plan_of(said, today)
    return [] if whole is None else [whole]


def _clause_plans(said: str, today: date) -> list[Candidate]:
    """The plans the clauses of ``said`` tell, each alone (see :func:`plans`)."""
    if re.search(r"[()（）\"“”]", said):
        return []  # a clause cut out of a remark or a quotation is no plan
    if RECURRING.search(said) or HYPOTHETICAL.search(said) or lasting(said):
        return []  # what the whole says of every clause: a habit, a supposition, a state
    clauses = [c.strip(" ,，;；") for c in _TASK_CLAUSE.split(said)]
    clauses = [c for c in clauses if len(c) >= 4]
    if len(clauses) < 2:
        return []
    # A clause alone says it is a plan in words of its own: something to do, or a time.
    plans = [
        plan_of(c, today)
        for c in clauses
        if not (others_task(c) or _ASKING_CLAUSE.match(c) or ASKS.search(c))
        and (MUST.search(c) or _CLOCK.search(c) or MEANS_TO.search(c) or _OBLIGED.search(c))
    ]
    return [p for p in plans if p is not None]


def _listed(item: str, today: date) -> Candidate | None:
    """A todo of one item of a list of things to do, with its day when it names one."""
    if len(item) < 4 or past(item) or _ASKING_CLAUSE.match(item) or ASKS.search(item):
        return None
    if _DONE_ITEM.match(item) or others_task(item) or "?" in item or "？" in item:
        return None  # "called the bank", "the kids did the dishes": done, or not the user's
    words = re.findall(r"[A-Za-z]{2,}", item)
    if len(words) < 2 and len(CJK_RE.findall(item)) < 3:
        return None
    return todo_of(item, today, item=True)


def plan_of(said: str, today: date) -> Candidate | None:
    """A todo from a sentence that names a coming day and something to do or attend."""
    asked = statement(without_request(said))
    # "提醒我下周一给房东转房租": asking to be reminded says there is something to do.
    reminder = bool(re.search(r"提醒|remind", said) and not re.search(r"提醒|remind", asked))
    # "明早七点提醒我给我妈打电话": the request after the time, taken out where it stands.
    inside = re.search(r"(?:记得|请你?|麻烦你?|你)?提醒(?:我|一下)(?:一下)?[，,]?", asked)
    if inside and re.fullmatch(
        r"[今明后天早晚上中下午周星期礼拜一二三四五六日点半刻分钟号月\d:：\s]*",
        asked[: inside.start()],
    ):
        asked, reminder = asked[: inside.start()] + asked[inside.end() :], True
    said = asked
    day = resolve_date(said, today)
    if (
        not (reminder or _PLAN.search(said))
        or ASKS.search(said)
        or _QUESTION_ZH.search(said)
        or RECURRING.search(said)
        or (past(said) and not reminder)
    ):
        return None
    left = _TIME_AND_ASKING.sub(" ", said)
    words = [w for w in re.findall(r"[A-Za-z]{2,}", left) if w.lower() not in _NO_THING]
    # "搬家" is a thing to do; "就去", "要做" are not.
    things = CJK_RE.findall(re.sub(r"[就去要得了会吧也还都我的呢啊呀再先用户做来走]", "", left))
    if len(words) + len(things) // 2 < 1:
        return None  # "周五中午提醒一下吧", "remind me tomorrow": when, but nothing to do
    if not to_do_on(day, today, said) and not reminder:
        return None
    if lasting(said) and not reminder:
        return None  # "conference till thursday": a state until then, nothing to do then
    if day is None or day < today:
        return None
    # A taste said with a day ("国庆想出去玩，我最讨厌人挤人") is the taste.
    if own_taste(said) and not MUST.search(said):
        return None
    content = about_the_user(clean(said))
    if not content or redact(content).only_secret:
        return None
    if re.match(r"[他她]", content):
        return None  # "他下周三体检": his, whoever he is
    if CJK_RE.search(content) and "用户" not in content:
        content = "用户" + content
    return Candidate(
        content=dated(content, said, day),
        category="todo",
        importance="medium",
        expires_at=expiry_after(day),
    )
