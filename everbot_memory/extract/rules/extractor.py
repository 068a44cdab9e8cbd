"""The offline extractor: rules for what people say explicitly, in English and Chinese.

It reads only the user's lines, cuts them into sentences and clauses, and matches each clause
against the rules (:mod:`.english`, :mod:`.chinese`), the statements of change
(:mod:`.changes`) and the requests to forget. It prefers a few right memories to many doubtful
ones.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from ...core.candidate import Candidate
from ...core.entry import Category
from ...core.redaction import redact
from ...core.rules import TODO_DEFAULT_DAYS
from ...core.scoring import expiry_after
from ...core.text import CJK_RE, search_tokens
from ..conversation import message_text, session_day
from ..summary import parse_summary
from .changes import CHANGES, contradicted
from .chinese import RULES as CHINESE_RULES
from .dates import CJK_DATE_SPACE, LEAD, WHEN_EN, WHEN_ZH, resolve_date
from .english import RULES as ENGLISH_RULES
from .kinds import kinds
from .replacing import load_replacing
from .selector import embedder, load_selector
from .sentences import sentences
from .slots import replaced_by, still_named
from .updates import _telling, changed_memories, forget_request
from .wording import (
    about_the_user,
    corrected,
    corrects_before,
    joined_corrections,
    sentence,
    third_person,
    zh_third_person,
)

__all__ = ["RuleExtractor", "judged", "statement"]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")
# Clause boundaries inside a sentence: "..., and I ...", "...: my name is ...", "..., so ...".
_CLAUSE_END = re.compile(
    # Chinese typed in chat puts a space where a comma goes: a new clause about the user
    # after one ("一个人住 懒得做饭 对了我不吃香菜", "我是hr 帮我看看这个候选人").
    r"(?<=[\u4e00-\u9fff])\s+(?=我|对了|另外|还有|顺便)|"
    r"(?:,\s*|\s+)(?:and|but)\s+(?=(?:[Ii]|my|we)\b)|[:：]\s*(?=(?:[Ii]|my|we)\b)"
    r"|,\s*(?:so|because|since|but)\s+|，(?=我)"
    # A request, then the user's reason with no stop between ("nothing with dill pls i
    # genuinely hate dill").
    r"|\s+(?:pls|plz|please|thx|thanks|lol|haha)\s+(?=(?:[Ii]|my|we)\b)"
    # A laugh closes a thought ("count me out of the fondue lol, lactose intolerant remember").
    r"|(?:(?<=\blol)|(?<=\blmao)|(?<=\bhaha))[,.!]\s+",
)

# What may stand before "and I" as one subject with the user ("my wife and I love hiking",
# "Jared and I"): a few words naming someone, no verb.
_WITH_SOMEONE = re.compile(
    r"^(?:(?:so|and|also|btw|well|ok|okay|yesterday|today|recently)\W+)*"
    r"(?:(?:my|our) (?:(?!(?:is|are|was|were|am|has|have|had|do|does|did|name|job)\b)[\w-]+ ){0,2}"
    r"(?!(?:is|are|was|were|am|has|have|had)\b)[\w-]+|(?-i:[A-Z])[a-z]+)$",
    re.I,
)


def _clauses(said: str) -> list[str]:
    """``said`` cut where a new clause about the user begins ("..., and I ...", "...: my name
    is ..."), but not inside a subject the user shares ("my boss and I get along")."""
    parts: list[str] = []
    start = 0
    for match in _CLAUSE_END.finditer(said):
        head = said[start : match.start()].strip()
        if re.match(r"(?:,\s*|\s+)and\s+I\b", match.group(0) + said[match.end() :][:2]) and (
            _WITH_SOMEONE.match(head)
        ):
            continue
        parts.append(said[start : match.start()])
        start = match.end()
    parts.append(said[start:])
    return parts


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


# A statement about the user said unsure, with a question's rising tone ("but I think I'm
# allergic to penicillin?", "我好像对青霉素过敏？"): still a statement, not a question to the
# assistant, unless it asks something ("我是不是…？", "…吗？").
_HEDGED = re.compile(
    r"\b(?:i think|i guess|i believe|pretty sure|i'm pretty sure|apparently)"
    r" (?:i'm|i am|i have|i've|i was|my)\b[^?]*\?+$"
    r"|^(?:我|我们)(?:好像|应该|大概|可能|记得)(?!是不是|要不要|能不能|有没有)[^？?]*?(?<![吗呢么吧])[？?]+$",
    re.I,
)


# The hedge opening such a statement: the rules read what follows ("I think I'm allergic to
# penicillin" -> "I'm allergic to penicillin", "我好像对青霉素过敏" -> "我对青霉素过敏").
_HEDGE_FIRST = re.compile(
    r"^(?:i think|i guess|i believe|pretty sure|i'm pretty sure) (?=(?:i'm|i am|i have|i've)\b)"
    r"|(?<=^我)(?:好像|应该|大概)(?=[对是有在])",
    re.I,
)


# Words that only colour what the user says of themself ("I actually live in Osaka", "I'm
# currently based in Leeds"): the rules read it without them ("just" and "finally" tell news).
_FILLER_FIRST = re.compile(
    r"^((?:i|we)(?:'m|’m|'re|’re| am| are)?) (?:(?:actually|really|honestly|basically|literally|"
    r"currently|officially|now|still|also|kinda) )+",
    re.I,
)


# What the user takes back as a joke: "我宣布我明天就辞职回老家养猪 哈哈哈哈 算了", "I'm moving
# to Bali, jk". What comes after it is said in earnest.
_TAKEN_BACK = re.compile(
    r"^.*?(?:(?:哈{2,}|呵{2,}|嘿{2,}|\blol\b|\blmao\b|\bha(?:ha)+\b|😂|🤣)[\s，,。.!！~～]*"
    r"(?:算了|开玩笑的?|说说而已|(?-i:jk)\b|just kidding)"
    # "jk" or "just kidding" said alone, between the words it takes back and what follows.
    r"|[\s,.!;]+(?-i:jk|j/k)(?=\s*(?:[,.!;]|$|but\b))|[\s,.!;]+(?:just|only) kidding\b"
    r"|(?:^|[，,。！!\s])(?:开玩笑的|开个玩笑|说说而已)(?=[，,。！!\s]|$))[\s，,。.!！~～]*",
    re.I,
)


def _earnest(said: str) -> str:
    """``said`` without what the user took back as a joke."""
    match = _TAKEN_BACK.search(said)
    return said[match.end() :] if match else said


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


def _things_to_do(said: str, today: date) -> list[str]:
    """``said`` cut into the things to do it lists, when each names a day of its own to come;
    else ``said`` whole."""
    cuts = [m for m in _NEXT_TODO.finditer(said) if m.start() > 0]
    if not cuts or not _RELATIVE_DAY.search(said):
        return [said]
    # A text given to work on ("翻译成日语：周三开会，周五交报告") is not the user's list, and a
    # day taken back ("周五要交房租，哦不是周五，是月底前交") is one thing said twice.
    if _TASK_FOR_ASSISTANT.search(said) or re.search(
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


# A reminder asked for, anywhere in a sentence.
_ASKED_TO_REMIND = re.compile(r"提醒我|\bremind me\b", re.I)


def _lead_from_before(said_by_message: list[list[str]], today: date) -> list[list[str]]:
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


def _hedged(said: str) -> str:
    """``said`` as a statement when it is one said unsure, with a question mark."""
    if _HEDGED.search(said):
        return re.sub(r"[?？]+$", "." if said.isascii() else "。", said)
    return said


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
# Not about the user's own life: a hypothetical, or news about someone else.
_HYPOTHETICAL = re.compile(
    # (After words that only lead in: "just thinking out loud, what if...", "随便想想啊，假如...";
    # "the Hartwell one matters, if we miss it..." is a statement first.)
    r"^(?:(?:so|ok|okay|hmm+|well|just|random|honestly|out of curiosity|curious|"
    r"(?:just )?thinking out loud|random (?:thought|question)|hypothetically speaking|"
    r"quick (?:question|one)|dumb question)[,:]\s*)?(?:if|what if|suppose|imagine|hypothetically|say)\b"
    r"|\b(?:did you hear|have you heard)\b"
    # "我就假装自己有五年经验", "pretending I'm a senior dev": not so.
    r"|\bpretend(?:ing)? (?:i'?m|i am|i have|to be)\b|假装|装作"
    r"|^(?:[^，,。！？]{0,5}[啊呀哈吧嘛哦呢]|随便[^，,。！？]{0,3}|突发奇想|瞎想[^，,。！？]{0,2}"
    r"|好奇[^，,。！？]{0,3})?[，,]?\s*(?:如果|假如|要是|万一|假设)",
    re.I,
)
# The user's 我 left in a memory rewritten to 用户, outside a title or a quotation and not
# part of a word ("自我介绍", "忘我", "《我的祖国》").
_USER_VOICE = re.compile(
    r"(《[^》]*》|“[^”]*”|「[^」]*」|\"[^\"]*\")|(?<![自忘本唯])我(?!们|行我素)"
)


# A task given to the assistant, about a text it is given: its days are the text's, not the
# user's ("tl;dr this for me: ...", "翻译成英文：...", "帮我润色一下：...").
def _after_the_task(said: str) -> str:
    """``said``, or when it opens by giving the assistant a task, what follows the task's
    clause ("" when nothing does)."""
    if not _COMMAND.search(said):
        return said
    parts = re.split(r"[,，;；:：]\s*", said, maxsplit=1)
    rest = parts[1].strip() if len(parts) == 2 else ""
    return rest if len(rest.split()) >= 2 or len(CJK_RE.findall(rest)) >= 4 else ""


# A sentence that opens by giving the assistant a task, "please" or "can you" before it or not.
_COMMAND = re.compile(
    r"^(?:(?:ok|okay|so|now|and|also|pls|plz|please|quick(?:ly)?|hey|yo|can you|could you|"
    r"can u|could u|would you|will you)[,!]?\s+)*"
    r"(?:explain|write|draft|compose|make|give|tell|show|list|suggest|recommend|create|generate|"
    r"convert|compare|summari[sz]e|translate|rewrite|reword|proofread|brainstorm|describe|define|"
    r"outline|calculate)\b(?! (?:it|that) down)"
    r"|^(?:请|麻烦|帮我|给我|你帮我|能不能帮我|可以帮我)(?:写|起草|解释|列|推荐|总结|翻译|改写|"
    r"润色|算|讲讲|介绍|出|做|画|生成)",
    re.I,
)
_TASK_FOR_ASSISTANT = re.compile(
    r"^(?:(?:ok|okay|so|and|also|pls|please|can you|could you)[,]?\s+)*(?:(?:tl;? ?dr|summari[sz]e) "
    r"(?:this|it|that|the following)|translate|rewrite|reword|proofread|paraphrase|polish|"
    r"shorten)\b[^:：]{0,40}[:：]"
    r"|^(?:请|麻烦|帮我)(?:总结|概括)[^：:。]{0,12}[：:]"
    r"|^(?:请|麻烦|帮我)?(?:把[^：:。]{1,8}?)?(?:翻译|翻成|润色|改写|缩写|扩写|校对)[^：:。]{0,12}[：:]",
    re.I,
)
# A request to work on a text pasted after it ("translate this into spanish pls, keep it
# formal:", "just give me the 2 sentence version of this:", "帮我把这封邮件翻成中文",
# "这段自我评价怎么改"): what follows it in the message is that text, not the user's words.
_WORK_VERBS = (
    r"translat\w*|summari[sz]\w*|tl;? ?dr|rewrite|reword|proofread|paraphrase|polish|shorten|"
    r"tighten|simplify|edit|fix|improve|check|review|explain|respond to|reply to|answer|turn|"
    r"convert|format|make|clean up|rephrase|condense|sum up|break down|give me"
)
_WORK_ON_TEXT = re.compile(
    # Said as a request: opening the sentence, or after "can you", "please".
    # (One run of non-word characters between the words: a message of "lol lol lol ..." is
    # cut one way only, not tried in every way.)
    r"^[\W_]*(?:(?:ok|okay|so|and|also|anyway|just|now|hey|then|ugh|lol|pls|please)\b[\W_]*)*"
    rf"(?:{_WORK_VERBS})\b[^\n]{{0,60}}?\b(?:this|these|that|it|the following|below|his|her)\b"
    rf"|\b(?:(?:can|could|would) (?:you|u)|please|pls|help me)\b[^\n]{{0,30}}?\b(?:{_WORK_VERBS})\b"
    r"[^\n]{0,60}?\b(?:this|these|the following|below)\b"
    r"|\bversion of (?:this|it)\b"
    r"|(?:帮我?|请|麻烦|给我|能不能|可以)[^\n]{0,15}?(?:翻译|翻成|译成|润色|改写|改一下|改改|缩写|扩写|校对"
    r"|总结|概括|看下|看看|看一下|解释|回复)"
    r"|(?:这段|这封|这篇|这条|下面|以下)[^\n]{0,15}?(?:怎么|如何|帮|翻|改|写|润色|总结)",
    re.I,
)
# A paragraph that is a quotation whole (a text to work on, another's words).
_QUOTED_PARAGRAPH = re.compile(
    r'^\s*["“「『\'].{12,}["”」』\'][.。]?\s*$'
    # A message pasted from a chat, its sender first ("【刘姐】：小王啊 下个月开始房租涨到4500",
    # "王经理：明天的会改到三点").
    r"|^\s*【[^】\n]{1,12}】\s*[:：]"
    r"|^\s*[\u4e00-\u9fff]{1,3}(?:姐|哥|总|老师|经理|阿姨|叔|师傅|老板|主任)\s*[:：]"
    r"(?![^\n]*(?:记住|记一下|记下|帮我记|remember))",
    re.S,
)


# The user's own voice: a paragraph that has it after a request for work is the user
# speaking again ("Translate this:\n\nHola...\n\nAlso, I'm moving to Madrid").
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'll|i'd|my)\b|我", re.I)
# Said after a quotation, it was the user's own ("That's what I posted on LinkedIn today").
_OWN_QUOTE = re.compile(
    r"\b(?:that'?s what i|i (?:just )?(?:posted|wrote|said|told|tweeted|sent))\b|我(?:刚)?(?:发|写|说)的",
    re.I,
)


def _own_words(text: str) -> str:
    """The user's own words of a message: without a pasted text to work on (the paragraphs
    after the one that asks for the work, up to one in the user's voice again) or a
    paragraph quoted whole."""
    paragraphs = re.split(r"\n\s*\n", text)
    kept: list[str] = []
    pasted = False
    for i, paragraph in enumerate(paragraphs):
        after = paragraphs[i + 1] if i + 1 < len(paragraphs) else ""
        if _QUOTED_PARAGRAPH.match(paragraph) and not _OWN_QUOTE.search(after):
            continue
        lines = [line for line in paragraph.split("\n") if line.strip()]
        if lines and all(line.lstrip().startswith(">") for line in lines):
            continue  # quoted as an email quotes, every line after ">"
        if pasted and not (
            _FIRST_PERSON.search(paragraph)
            and not paragraph.lstrip().startswith(("Dear", "Hi ", "Hello"))
        ):
            continue  # still the text given to work on
        pasted = False
        kept.append(paragraph)
        # The request leads into the text: it is the paragraph's last sentence, and ends with
        # a colon or the text after it is not in the user's voice.
        last = re.split(r"(?<=[.!?。！？])\s+|\n", paragraph.strip())[-1]
        # Or the paragraph asks for the work and ends by pointing to the text ("can you help me
        # reply to this? pasted below:").
        pointed = bool(re.search(r"[:：]\s*$", paragraph)) and _WORK_ON_TEXT.search(paragraph)
        if (_WORK_ON_TEXT.search(last) or pointed) and not _OWN_TEXT.search(paragraph):
            pasted = True
    return "\n\n".join(kept)


# A text of the user's own given to work on ("rewrite my bio: ...") says what it says of them.
_OWN_TEXT = re.compile(
    r"\bmy (?:bio|resume|résumé|cv|profile|about me|intro|introduction|linkedin)\b"
    r"|我的(?:简历|自我介绍|个人简介|简介)",
    re.I,
)
# A day that comes every year, said as the user's.
_YEARLY_DAY = re.compile(
    r"(?:生日|纪念日)(?:是|在)|\b(?:birthday|anniversary|name day) (?:is|falls) (?:on )?"
    # A birthday by the age it brings: "Mum's 60th is on July 25th", "my daughter's turning 8
    # next month".
    r"|\b\d{1,3}(?:st|nd|rd|th) (?:birthday )?(?:is|falls) on |\b(?:turning|turns) \d{1,3}\b"
    r"|(?:满|过)\d{1,3}岁生日",
    re.I,
)
# The day a todo is due, as written after it: "（2027-05-21）", " (2027-05-21)".
_DAY_NOTE = re.compile(r"\s*[(（]\d{4}-\d{2}-\d{2}[)）](?=[.。]?$)")
# Said to the assistant, not about the user: a question, a request, an introduction to pasted
# text ("it's from the team's newsletter:"), a reaction. The user's facts are in statements.
_NOT_ABOUT_USER = re.compile(
    r"[?？:：]\s*$|[?？]\s*[^\w\s]*$"
    r"|\b(?:can|could|would|will) (?:you|u)\b|\bhelp me\b|\bplease\b|\bpls\b"
    r"|^(?:(?:ok|okay|so|now|and|also|then|first)[, ]+)?(?:write|plan|make|give|tell|show|find|"
    r"suggest|recommend|explain|translate|draft|summari[sz]e|list|fix|create|generate|convert|"
    r"rewrite|check|review|compare|send|book|add|put|move|shift|set|schedule|quiz|teach)"
    r" (?:me|us|it|this|that|these|a|an|the|my|our|some)\b"
    # A reaction, unless the user's own news follows it ("ok I'm doing a surprise dinner...").
    r"|^(?:lol|haha|ok|okay|cool|nice|great|thanks|thank you|thx|sure|yes|yeah|yep|no|nope|hmm)\b"
    r"(?![\s,.!]*(?:(?:so|and|but|btw|anyway)[\s,]+)?(?:i|i'm|im|i've|i'll|my|we're|we've)\b)"
    r"|帮我|帮忙|麻烦你?|请你?|你能|能不能|可不可以|给我(?![妈爸们家哥姐弟妹老爷奶外婆公儿女])|把这|翻成|推荐|在线等"
    r"|^(?:知道|好的|好吧|行|嗯|哈哈|卧槽|可以了|收到|谢谢|感谢)",
    re.I,
)


# Words a rule's memory must not keep: the speaker's own voice, half turned into "the user".
_FIRST_PERSON_LEFT = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|we|we're|our|us)\b")
_EMPTY_WORDS = frozenset(
    [
        "alway",
        "usual",
        "never",
        "often",
        "sometim",
        "realli",
        "just",
        "also",
        "still",
        "actual",
        "basic",
        "probabl",
    ]
)


# A numbered list's marker left with nothing after it.
_CUT_LIST = re.compile(
    r"(?:^|[\s：:，,])\d{1,2}[.)、](?=\S).*[\s：:，,]\d{1,2}[.)、]\s*[。.!！]?\s*$"
)
# A value said to be the old one, after the new ("reports to Priya now instead of Tom", "it's
# Moreau now, not Turner", "用的是 React，而不是 Vue 了"): the memory keeps the new one alone.
_OLD_VALUE = re.compile(
    r",?\s+(?:instead of|rather than|and not|not)\s+(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)*"
    r"(?=\s*(?:[,;.!\"”]|$))"
    r"|[，,]\s*(?:而)?不是(?:用)?[^，,。！!]{1,12}?了?(?=[，,。！!]|$)",
)


def _without_old_value(content: str) -> str:
    """``content`` without the old value it names as no longer so, beside the one now (a
    choice between two, "decided on Redis instead of Memcached", keeps both)."""
    if not re.search(r"\bnow\b|现在|如今|目前", content, re.I):
        return content
    cut = _OLD_VALUE.sub("", content).strip()
    return cut if len(cut) >= 6 else content


def _whole(candidate: Candidate, said: str) -> Candidate | None:
    """The candidate with its words about the user whole: a memory that still speaks as "I"
    ("The user no longer works at X, I joined Y") is the user's sentence instead, rewritten
    whole or quoted; one that says nothing once the subject is gone is dropped."""
    content = _without_old_value(candidate.content)
    # "用户不吃素了，…医生让我适当吃点鱼": one voice, the user's in the third person, outside a
    # quotation of their words.
    if content.startswith("用户") and not content.startswith("用户说："):
        content = _USER_VOICE.sub(lambda m: m.group(0) if m.group(1) else "用户", content)
    # A list cut at its marker ("本周：1.修复 bug 2.。") is damaged text, not a memory.
    if _CUT_LIST.search(content):
        return None
    if not CJK_RE.search(content) and _FIRST_PERSON_LEFT.search(
        content.replace("The user said:", "")
    ):
        if not said:
            return None
        content = about_the_user(_clean(said))
        if not content:
            return None
    if content.startswith(("The user said:", "用户说：")):
        told = [t for t in search_tokens(content) if t not in _EMPTY_WORDS and t != "said"]
    else:
        told = [t for t in search_tokens(content) if t not in _EMPTY_WORDS]
    # "The user is a nurse." says one thing, and enough; "The user always forgets." nothing.
    # A fixed rule's condition ("The user is dyslexic.") says one thing too.
    one = (
        r"The user is (?:an? )?\w|用户是\w"
        if candidate.importance == "high"
        else r"The user is an? \w|用户是\w"
    )
    if len(told) < (1 if re.match(one, content) else 2):
        return None
    return candidate if content == candidate.content else candidate.replace(content=content)


def _too_long(said: str) -> bool:
    """More than sixty words, or a hundred and twenty Chinese characters: a pasted report or a
    long story, not one thing to remember."""
    return len(re.findall(r"[A-Za-z0-9]+", said)) + len(CJK_RE.findall(said)) // 2 > 60


def _too_short(said: str) -> bool:
    """Fewer than four words, or six Chinese characters: a reply, not a memory."""
    return len(re.findall(r"[A-Za-z0-9]+", said)) + len(CJK_RE.findall(said)) // 2 < 4


# A question asked without a question mark, or one inside a longer sentence ("38k seems high??
# what should I push back on", "有没有办法把长代码从手机发到电脑上").
_ASKS = re.compile(
    r"^(?i:(?:(?:ok|okay|so|now|and|also|then|btw|anyway|hmm|right)[, ]+)*(?:how|what|why|where|"
    r"which|who|any tips|any ideas|anything|any way|any good|simplest way|best way|is there|"
    r"are there)\b)"
    r"|[?？]|^(?:有没有|有啥|怎么|咋|为啥|为什么|是不是|要不要|能否|哪里|哪个|哪家|如何)|(?:吗|么|呢|来着)[。！!~～]?$"
    r"|为啥|为什么|会不会|能不能|是不是|要不要|有没有|咋整|咋办|怎么办|怎么弄|怎么回事"
    r"|多久|多长时间|多远|几个小时|多少钱|哪(?:趟|班|款|种|位|一个|一家|一款)|哪里好|哪儿好|去哪"
    # A question word closing the sentence, with or without its mark ("销户要注意啥。", "35 寸
    # 行李箱多大", "答辩 PPT 有什么要注意的").
    r"|(?:啥|什么|多大|多少|多重|多高|多长|几点|哪些|咋样|怎么样)[的呀啊呢]?[。！!~～]?$"
    r"|有什么(?:要|需要|好|可以|值得|推荐|建议)",
)


def _kind(said: str, fitted: Category) -> Category:
    """The kind of memory ``said`` is: the fitted model's (the words of each kind are among
    its features), except that a decision is said in its own words ("decided", "决定"), and
    a taste too ("I'd rather", "受不了"): the model, fitted on a few hundred sentences, two
    thirds of them facts, says "fact" for most. Habits and past events are left to the
    model: their words ("every day", "last year") come as often with a plain fact."""
    # How the user wants to be answered is a taste, even said as a rule from now on.
    if _HOW_TO_ANSWER.search(said):
        return "preference"
    if "decision" in kinds(said) and not _UNDECIDED.search(said):
        return "decision"
    if fitted in ("fact", "experience", "workflow") and _own_taste(said):
        return "preference"
    # Someone else's taste ("我家柯基最近不爱吃狗粮", "娃也爱吃") says something about the
    # user's household, not what the user likes.
    if fitted == "preference" and _TASTE.search(said) and not _own_taste(said):
        return "fact"
    if fitted in ("fact", "experience", "preference") and _SKILLED.search(said):
        return "skill_usage"
    if fitted in ("fact", "experience") and _OWN_TOOL.search(said):
        return "skill_usage"
    if fitted in ("fact", "experience") and _HABIT.search(said):
        return "workflow"
    return fitted


_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
# A habit said by when it comes round ("sunday nights I batch cook", "every sunday night i
# batch-cook", "sundays I do the big meal prep", "i only do email at 4pm"): a workflow. A
# single day ("Saturday we went to ...") is an event.
_HABIT = re.compile(
    rf"^(?:(?:so|and|also|btw|ok|okay)[, ]+)*(?:every {_DAY}(?: (?:night|morning|evening|"
    rf"afternoon))?|{_DAY}s|{_DAY} (?:nights|mornings|evenings|afternoons)|weekdays|"
    rf"weeknights|weekends|mornings|evenings)(?: (?:nights|mornings|evenings|afternoons))?,?"
    rf" (?:i|we)\b"
    rf"|\b(?:i|we) (?:only |always |usually )?(?:do|check|answer|read|write) [\w ]{{2,20}}"
    rf" (?:at \d|on {_DAY}s)"
    # What the user does each time a period comes round, said after the deed ("I do my grocery
    # run every Sunday morning", "我每天晚上睡前都会背半小时单词", "我平时写周报都是丢给你
    # 润色的"): the user is the subject, the period marks a habit.
    rf"|\b(?:i|we) (?!(?:was|were|had|went|did)\b)[\w' ]{{2,40}}? (?:every|each) (?:day|morning|"
    rf"evening|night|week|weekday|weekend|{_DAY})\b"
    r"|^(?:[^，。,]{0,8}?[，,]\s*)?我(?!们)(?:现在|一般|平时|通常|基本)?(?:每天|每周|每晚|每天早上|每天晚上|"
    r"每个周末|平时|一般)(?:都)?(?:会)?[^，。,]{0,4}?"
    r"(?:起|跑|写|背|看|读|去|练|做|学|听|查|用|先|丢|交|打|健身|锻炼)",
    re.I,
)
# Not a decision: one still to be made ("I still haven't decided whether to renew", "还没想好").
_UNDECIDED = re.compile(
    r"\b(?:haven't|have not|hasn't|not yet|still not|can't|cannot|couldn't) (?:\w+ )?decided?\b"
    r"|\bundecided\b|还没(?:决定|定|想好)|没想好|拿不定",
    re.I,
)
# How well the user knows a tool or a trade ("我对 redis 比较熟", "Excel 我是真的熟", "I'm
# fluent in Go"): a skill, which the model, fitted mostly on facts, calls a fact or a taste.
_SKILLED = re.compile(
    r"\b(?:i'm|i am) (?:\w+ )?(?:fluent|proficient|good|decent|comfortable|experienced) (?:in|at|with)\b"
    r"|\bi know [A-Za-z][\w+#.]* (?:inside out|really well|well)\b"
    r"|我(?:对|跟)[^，。,]{1,12}?(?:比较|很|挺|特别|非常)?熟|我是真的熟|(?:用|写)得(?:很|挺|比较|特别)?熟"
    r"|(?:很|比较|挺)?熟练|精通|一窍不通",
    re.I,
)


# How the user wants to be answered from now on ("以后回答我别那么啰嗦", "以后回复我不要用
# emoji", "going forward keep your answers short"): a taste, whatever else it holds.
_HOW_TO_ANSWER = re.compile(
    r"以后(?:回复|回答|给我|跟我|和我)|以后[^，。,]{0,8}?(?:回复|回答)我"
    r"|\b(?:from now on|going forward|in future)\b.*\b(?:answers?|repl(?:y|ies)|respon(?:d|ses?))\b"
    # The same, the time said after ("can you answer in Spanish from now on"), or what the
    # assistant makes for the user ("I always want type hints in any Python you write for me").
    r"|\b(?:answers?|repl(?:y|ies)|respon(?:d|ses?)|talk|write)\b.*\b(?:from now on|going forward)\b"
    r"|\b(?:any|every|all|the) [\w ]{0,20}?you (?:write|give|send|make|suggest) (?:for |to )?me\b",
    re.I,
)
# The user's own tool, said as the one they use ("I only use Linux at home", "I do all my
# charts in ggplot", "画原型我一直用 Figma", "我 PS 用得挺熟的"): a skill in use, which the
# model, fitted mostly on facts, calls a fact.
_OWN_TOOL = re.compile(
    r"\bi (?:\w+ )?use (?-i:[A-Z])\w+"
    r"|\bi do (?:all|most) (?:of )?my [\w ]{2,20} in \w+"
    r"|我[^，。,]{0,6}?(?:一直|平时|主要|习惯|都)?用(?:的是)?\s*[A-Za-z]"
    r"|我\s*[A-Za-z][\w+#.]*\s*用得",
    re.I,
)


# How people say a taste: a liking, a dislike, a habit of choosing ("I can't stand", "I'd
# rather", "I tend to go for", "受不了", "更愿意", "吃不了").
_TASTE = re.compile(
    r"\b(?:i|we)(?: \w+ly| really| just| kind of| sort of| much| always| never| usually)?"
    r" (?:prefer|like|love|hate|dislike|enjoy|adore|can't stand|cannot stand|can't handle|"
    r"don't like|do not like|don't love|tend to (?:go for|pick|avoid|prefer)|avoid|can't eat|"
    r"can't drink)\b"
    r"|\b(?:i'd|we'd|i would|we would) (?:much |really )?rather\b"
    r"|\b(?:i'm|i am|we're|we are) (?:not )?(?:a (?:big |huge )?fan of|into|obsessed with)\b"
    r"|\b(?:my favou?rite|i'm more of a|more of a \w+ person)\b"
    # A taste said by what the user cannot bear or always picks ("I can't do podcasts longer
    # than 30 minutes", "I'm not big on spicy food", "坐高铁我永远选靠窗", "一口都碰不了").
    r"|\b(?:i|we) (?:just |really |honestly |simply )?(?:can't|cannot) do\b(?!.*\banymore\b)"
    r"|\b(?:i'm|i am|we're|we are) not (?:big on|really into|much of a)\b"
    r"|\b(?:i|we) (?:always|only ever|never) (?:go for|pick|choose|order)\b"
    r"|(?:永远|总是|一律|每次都|只)选|碰不了|一口都不|不想再|不想住|从来不吃|从不吃"
    r"|喜欢|不喜欢|讨厌|偏好|更愿意|宁愿|宁可|受不了|爱吃|爱喝|不爱|最爱|吃不了|喝不了|吃不惯|"
    r"不太想|不想吃|不碰|怕冷|怕热|怕辣|怕吵|偏爱|钟爱|迷上|爱看|爱听|爱玩|不感冒|接受不了|忍不了|"
    r"倾向于|更想",
    re.I,
)


# Where a clause ends: a comma or a stop, or a space between Chinese words (chat marks a pause
# with one: "两周后搬家 找搬家公司要注意啥").
_CLAUSE = re.compile(
    r"(?<=[，,;；。！？])\s*|(?<=[\u4e00-\u9fff]\s)(?=[\u4e00-\u9fff])"
    # A request after a space, whatever stands before it ("生日5月21 帮我推荐个餐厅").
    r"|\s+(?=(?:帮我|请你|请帮|麻烦你?|你能|能不能|可以帮)[\u4e00-\u9fff])"
)
# Asking that something be kept is a request that holds the memory ("帮我记下：下周二…").
_NOTE = re.compile(r"记住|记一下|记下|记着|\bremember\b|\bnote that\b|\bkeep in mind\b", re.I)


# What the user asks of the assistant after "so" ("I don't drink so skip the cocktails").
_SO_ASKING = re.compile(
    r"\s+so\s+(?:please |pls |can you |could you |would you |skip|don'?t|do not|stop|give me|"
    r"keep|avoid|never|no |what|how|which|any )",
    re.I,
)


def statement(said: str) -> str:
    """``said`` without the clauses that ask the assistant something ("帮我改下简历，我做了五年
    的测试" -> "我做了五年的测试"): what the selector judges, and what a memory may keep."""
    asking = _SO_ASKING.search(said)
    if asking and len(re.findall(r"[A-Za-z0-9]+", said[: asking.start()])) >= 3:
        said = said[: asking.start()]
    clauses = _CLAUSE.split(said)
    if len(clauses) == 1:
        return said
    kept = [
        c for c in clauses if _NOTE.search(c) or not (_NOT_ABOUT_USER.search(c) or _ASKS.search(c))
    ]
    if not kept:
        return said
    return (
        " ".join(kept).rstrip(",，;；")
        if not CJK_RE.search(said)
        else "".join(kept).rstrip("，,;；")
    )


# News about someone else in the user's life: their friend, colleague, sibling or boss as the
# subject ("my coworker is quitting", "我妹刚搬去成都了", "我们领导又发火了"). A child's or a
# partner's news is often the user's too, and is judged.
_SOMEONE_ELSE = re.compile(
    r"^(?:(?:lol|omg|ugh|so|and|also|btw)[, ]+)*(?:my|our) (?:\w+ )?(?:friend|friends|coworker|"
    r"co-worker|colleague|boss|manager|brother|sister|cousin|neighbou?r|roommate|flatmate|"
    r"classmate|aunt|uncle|brother-in-law|sister-in-law|teammate|team mate|team lead|tech lead|"
    r"intern|new hire|landlord|landlady|mentor|client|customer)s?\b(?!'s name)"
    r"|^(?:笑死|哈哈+|唉|对了)?[，, ]*(?:我|我们)(?:的)?(?:朋友|同事|领导|老板|上司|妹妹?|姐姐?|哥哥?|弟弟?|"
    r"表[哥姐弟妹]|堂[哥姐弟妹]|室友|邻居|同学|舍友|楼下|隔壁)",
    re.I,
)


# A role to play ("let's do a little roleplay... you're a barista in Madrid, I'm a customer
# who just moved from Tokyo", "来玩个剧本杀 你是侦探 我是…"): what the user says in it is the
# role's, not theirs.
_ROLES = re.compile(
    r"\byou(?:'re| are| play| will be) (?:a|an|the|my) [^.!?]{1,40}\bI(?:'m| am| will be| play|'ll be)"
    r" (?:a|an|the|your)\b|你(?:来)?(?:当|演|是)[^，,。！？]{1,10}[，,\s]+我(?:来)?(?:当|演|是)",
    re.I,
)
_ROLE_PLAY = re.compile(
    r"\b(?:role-?play|roleplay|let'?s pretend|pretend (?:you'?re|to be|i'?m))\b|剧本杀|角色扮演"
    r"|你(?:来)?扮演|你演[^，,。！？\s]{1,8}(?:面试官|客户|老板|医生|老师)",
    re.I,
)


# Leaving a role play ("ok stop the roleplay", "break character", "好了不演了").
_PLAY_OVER = re.compile(
    r"\b(?:stop (?:the )?(?:role-?play|roleplay|playing|pretending)|end (?:the )?(?:role-?play|"
    r"roleplay|game)|break character|out of character|ooc|back to (?:normal|reality)|"
    r"enough|thanks|thank you|thx|ty|that was (?:fun|helpful|great|good|useful)|anyway|"
    r"by the way|btw|real life|for real|irl|that'?s all)\b"
    r"|不演了|不玩了|结束|出戏|说正经的|说回正事|言归正传|好了|谢谢|多谢|对了|说真的",
    re.I,
)
# A role play set up with the assistant ("let's roleplay", "你扮演面试官面我"), not one only
# mentioned ("my kids love roleplay games", "tomorrow I'll pretend I'm sick").
_PLAY_SET_UP = re.compile(
    r"\blet'?s (?:do (?:a |some )?|play (?:a )?)?(?:role-?play|roleplay|pretend)\b"
    r"|\b(?:can|could|shall) we (?:do (?:a |some )?)?(?:role-?play|roleplay)\b"
    r"|\bpretend (?:you'?re|you are|to be my)\b|\byou(?:'re| are| play| will be) (?:a|an|the|my) "
    r"[^.!?]{1,40}\bI(?:'m| am| will be| play|'ll be) (?:a|an|the|your)\b"
    r"|你(?:来)?扮演|你演|你(?:来)?当[^，,。！？\s]{1,8}[，,\s]+我(?:来)?(?:当|演|是)|来玩个?(?:角色扮演|剧本杀)",
    re.I,
)
#: At most this many messages of the user's are read as a play's once it is set up.
_PLAY_LENGTH = 6
# Asking that something be remembered, said in a play or out of it.
_ASKS_TO_REMEMBER = re.compile(
    r"^(?:please |pls |plz )?(?:remember|note|keep in mind)\b|记住|记一下|记下|记着", re.I
)


def judged(said: str) -> bool:
    """True when the selector may judge ``said``: a statement of some length, not a question,
    a hypothetical, a request to the assistant or a reaction. Training sees only these too."""
    return not (
        _NOT_ABOUT_USER.search(said)
        or _HYPOTHETICAL.search(said)
        or _SOMEONE_ELSE.search(said)
        or _too_short(said)
        or _NOT_A_STATEMENT.search(said.rstrip(" .。!！~～"))
        or _ASKS.search(said)
    )


def _classify(content: str, dated: bool = False) -> Category:
    """The category of an explicit "remember that ..." memory, by what it says; ``dated`` when
    it names a coming day ("the car needs its MOT by June 14")."""
    lowered = content.lower()
    if dated and not _RECURRING.search(lowered) and re.search(_TO_DO, lowered):
        return "todo"
    if _HOW_TO_ANSWER.search(content):
        return "preference"  # how the user wants to be answered: a taste
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


# Words of something to do, with a day named: a todo.
_TO_DO = (
    r"\b(?:needs?|have to|has to|must|due|deadline|renew|submit|pay|book|call|pick up|"
    r"appointment|expires?)\b|要|需要|得|记得|到期|截止|交"
    # A time of day with the day: something is to happen then ("下周二晚上8点给我爸打视频").
    r"|\b\d{1,2}(?::\d\d)?\s?(?:am|pm)\b|\d{1,2}点|[上下]午|晚上|早上"
)


_LEAD_IN_EN = re.compile(
    r"^(?:(?:also|and|so|oh|btw|by the way|actually|well|ok|okay|hi|hello|hey|big news"
    r"|quick one|fyi)[,:! ]+)+",
    re.I,
)
_LEAD_IN_ZH = re.compile(r"^(?:另外|还有|对了|顺便(?:说一下|提一句)?|其实|嗯|你好)[，, ]*")


# A request to the assistant tacked on after a comma ("..., please remind me", "，记得提醒我").
_TRAILING_REQUEST = re.compile(
    r"[,;]\s*(?:(?:so |and )?(?:can|could) you |please |pls |and )*(?:remind me|let me know|"
    r"ping me|tell me)\b[^.!?]*[.!?]?$|[，,；]\s*(?:记得|请|麻烦)?(?:你)?提醒(?:我|一下)[^。！？]*[。！？]?$",
    re.I,
)


# The words of a time and of asking to be reminded: what is left is the thing to do.
_TIME_AND_ASKING = re.compile(
    rf"{_RELATIVE_DAY.pattern}|提醒(?:我|一下)*|remind me|[上下中]午|晚上|早上|凌晨|\d+\s*点半?"
    r"|\d{1,2}(?::\d\d)?\s?(?:am|pm)|[吧啊哈呀]",
    re.I,
)
# The user asks that what they just said be kept as something to do.
_ADD_TO_LIST = re.compile(
    r"\b(?:add|put|keep|stick) (?:it|this|that) (?:to|on|in) (?:my|the) (?:list|to-?do|todo|"
    r"reminders?|todo list|to-do list)\b|\bput it on my list\b"
    r"|(?:加到|放到|记到|写到|放进|加进)(?:我的)?(?:待办|清单|todo|提醒)",
    re.I,
)
# A question asked without a question mark ("今晚谁去吃火锅", "几点出发").
_QUESTION_ZH = re.compile(
    r"谁|哪天|几点|什么时候|啥时候|多少钱|怎么办|咋办|要不要|是不是|吗$|有什么|有啥|有没有"
)
# Something done again and again is a habit, not a todo ("every Tuesday", "每个月25号之前").
_RECURRING = re.compile(
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
# A request to the assistant opening a sentence ("帮我列个提纲吧，", "can you draft it, ...",
# "提醒我", "remind me to"): what follows is the user's, the request is not.
_REQUEST_FIRST = re.compile(
    r"^(?:(?:快+|你|请你?|麻烦你?)?帮(?:我|忙)(?!记)[^，,。.!！：:]*[，,。.!！]+\s*"
    # "can you remind me I've got the dentist Wednesday": what follows is the thing itself.
    r"|(?:(?:can|could|would|will) you (?:please |pls |just )?|please |pls )?remind me,?\s+"
    r"(?:that |about |of )?(?=i\b|i'|my\b|the\b|we\b)"
    r"|(?:can|could|would|will) you [^,.!]*[,.!]+\s*|please [^,.!]*[,.!]+\s*"
    r"|(?:记得|请|麻烦你?|你)?提醒(?:我|一下)(?:一下)?[，,]?\s*)",
    re.I,
)


# A story of what already happened names no day to come ("went to my first hackathon this
# weekend", "我上周末去爬山了").
_PAST = re.compile(
    r"^(?:(?:so|and|also|well|omg|lol|btw|ok|okay)[, ]+)*(?:i |we )?(?:just |finally )?"
    r"(?:went|was|were|did|came|had|got back|got home|made|built|ran|finished|visited|saw|tried|"
    r"spent|took|met|won|lost)\b"
    r"|^(?:i|we) (?:just |finally |already )?(?:went|was|were|did|came|had|got back|made|built|"
    r"ran|finished|visited|saw|tried|spent|took|met|won|lost)\b"
    # Any verb in the past after "finally" or "already" ("we finally repainted the nursery on
    # sunday"), except those that arrange what is to come ("I finally booked the dentist").
    r"|^(?:i|we) (?:finally|already) (?!(?:booked|scheduled|arranged|planned|reserved|"
    r"registered|ordered|confirmed|signed)\b)[a-z-]{3,}ed\b"
    r"|上周|昨天|前天|上个月|去年|刚才",
    re.I,
)


# A state the user is in from a day on: a move, a job, a role, a first day somewhere, a school
# start, a birthday ("moved to", "starting at Ramp", "下个月去腾讯报到", "我生日是3月18号").
_NEW_STATE = re.compile(
    r"\b(?:moved|moving|relocated) (?:to|from|up|down|over|across|back)\b|\bclosed on the house\b"
    r"|\b(?:starting|started|start|starts|joining|joined) (?:at|with) (?-i:[A-Z])|\bfirst day (?:at|in)\b"
    r"|\bstarts? (?:kindergarten|school|college|uni|daycare)\b|\bmy birthday\b"
    r"|搬到|搬去|搬回|搬家|离职|入职|报到|转岗|跳槽|调到|生日是|出生",
    re.I,
)


def _past(said: str) -> bool:
    """True when the sentence opens as a story of what happened (its first clause)."""
    return bool(_PAST.search(re.split(r"[,，;；:：]", said, maxsplit=1)[0].strip()))


# Words that say something is to be done, whatever the day: on the day itself ("today",
# "tonight"), a todo needs one of these; an event of today is being lived, not planned
# ("PASSED my motorcycle test today", "Today I'm just sleeping").
_MUST = re.compile(
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
_MEANS_TO = re.compile(
    r"\b(?:plan(?:ning)? to|going to|gonna|intend to|hoping to|aim(?:ing)? to)\b|打算|准备|计划|想去|要去",
    re.I,
)


# What holds now, after what was done ("sold the golf last week, now I drive a Model 3",
# "上个月从美团跑路了 现在在一家创业公司"): the story ends in a state.
_NOW_SO = re.compile(r"\b(?:now|these days|nowadays)\b|现在|目前|如今", re.I)


# A list of things to do, by what opens it ("brain dump before i forget: ...", "errands
# today: ...", "待办：..."), and where its items part.
_TASK_LIST = re.compile(
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
# Saying that something has to be done, in words :data:`_MUST` does not read ("supposed to",
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


def _others_task(said: str) -> bool:
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
        and (_OBLIGED.search(c) or _MUST.search(c) or _MEANS_TO.search(c) or _WILL.search(c))
        for c in _TASK_CLAUSE.split(said)
    )


_WILL = re.compile(r"\b(?:i'll|i will|we'll|we will|i'm going|we're going)\b|我(?:要|会)", re.I)


def _lasting(said: str) -> bool:
    """True when ``said`` tells of a state until a day, and of nothing to do by then."""
    return (
        bool(_LASTS_UNTIL.search(said))
        and not _MUST.search(said)
        and not _DUE_BY.search(said)
        and not re.search(r"\bremember\b|记得|别忘", said, re.I)
    )


def _to_do_on(day: date | None, today: date, said: str) -> bool:
    """True when ``day`` is one a todo can be for: a day to come, or today with something
    still to be done or a time set."""
    if day is None:
        return False
    return day > today or (day == today and bool(_MUST.search(said) or _CLOCK.search(said)))


def _own_taste(said: str) -> bool:
    """True when ``said`` gives a taste of the user's own ("I can't stand crowds", "我最讨厌人
    挤人"), not someone else's ("面试官很喜欢问系统设计")."""
    for match in _TASTE.finditer(said):
        if not CJK_RE.match(match.group(0)[:1]):
            return True  # the English wordings hold their subject ("I", "we", "my")
        clause = re.split(r"[，,。！？!?；;]", said[: match.start()])[-1]
        # "我家柯基最近不爱吃" is the dog's taste: "我家", "我的" own, they do not like.
        if clause == "" or re.search(r"我(?![们家的])[^，。]{0,6}$", clause):
            return True
    return False


def _without_request(said: str) -> str:
    """``said`` without a request to the assistant that opens it, when anything is left."""
    rest = _REQUEST_FIRST.sub("", said, count=1).strip()
    return rest if len(rest) >= 4 else said


# A Chinese question as chat types it, with no question mark.
_ASKED_ZH = re.compile(r"(?:啥|什么|吗|呢|么|几点|多少|怎么办|咋办|咋整)[的呀啊呢]?[?？。！!~～]*$")


# A memory that only says something ended ("handed in my notice at Deloitte", "sold the
# Civic", "we finally cancelled Netflix", "no longer drinks coffee"), naming nothing new.
_ONLY_ENDED = re.compile(
    r"\b(?:no longer|not any ?more|any ?more|quit|left|sold|cancel(?:l)?ed|handed in|resigned|"
    r"broke up|split up|gave up|used to|ditched|moved out|stopped)\b"
    r"|不再|离职|辞职|卖了|退了|分手|分了|搬走|不干了",
    re.I,
)
_NAMES_NEW = re.compile(
    r"\b(?:now|starting|started|joined|switched to|moved to|instead|new)\b|现在|换成|改用|搬到|入职|新",
    re.I,
)


def _fold_endings(found: list[Candidate], start: int) -> None:
    """In the memories of one message (from ``start``), a memory that only says a known one
    ended, beside another that says what holds now ("handed in my notice at Deloitte" and
    "starting at Ramp on June 3rd"), gives that one the ending and goes: the new value is the
    memory, and it retires the old one."""
    ended = [
        c
        for c in found[start:]
        if c.contradicts
        and not c.forget
        and _ONLY_ENDED.search(c.content)
        and not _NAMES_NEW.search(c.content)
    ]
    if not ended:
        return
    now = [
        i
        for i in range(start, len(found))
        if found[i] not in ended
        and not found[i].forget
        and found[i].confirms is None
        and found[i].category in ("fact", "preference", "skill_usage", "experience")
    ]
    if not now:
        return
    first = now[0]
    ids = tuple(
        dict.fromkeys([*found[first].contradicts, *(i for c in ended for i in c.contradicts)])
    )
    content = found[first].content
    before = found[first - 1] if first > start else None
    if before is not None and before in ended and before.content.endswith((".", "!", "。", "！")):
        # Said one after the other, they read as one memory: what ended, then what holds now
        # ("Sold the Civic last weekend! The user said: ..." keeps both).
        content = f"{before.content} {content}" if content.isascii() else before.content + content
    found[first] = found[first].replace(contradicts=ids, content=content)
    found[start:] = [c for c in found[start:] if c not in ended]


def _clean(text: str) -> str:
    """The text without quotes, lead-ins ("Hi, ...", "By the way, ...", "另外，...") and a
    request tacked on at the end."""
    text = text.strip(" \t\"'“”「」")
    text = _LEAD_IN_ZH.sub("", _LEAD_IN_EN.sub("", text))
    return _TRAILING_REQUEST.sub("", text).strip() or text


# A request that holds from now on ("from now on, give me code in TypeScript", "以后回答我尽量
# 短一点", "以后都用英文回答我吧"): how the user wants to be answered or served, a taste. It
# opens the sentence and is addressed to the assistant: "me" or "我" in its first words.
_STANDING = re.compile(
    r"^(?:(?:ok|okay|also|and|so|btw|please|pls)[,，]?\s+)?(?:from now on|going forward|in future|"
    r"in the future)[,，]?\s+(?:please\s+|pls\s+|always\s+|just\s+)?(?=(?:\w+\s+){0,2}?"
    r"(?:me|my)\b)"
    r"|^(?:以后|今后|往后)(?:注意一下)?[,，]?\s*(?:请|都|也|就|尽量)?(?=[^，。,！!？?]{0,8}?我)",
    re.I,
)


def _standing_request(said: str) -> Candidate | None:
    """A taste from a request that holds from now on, said at the sentence's start."""
    if not _STANDING.search(said) or _FORGET_WORDS.search(said) or _too_short(said):
        return None
    content = about_the_user(said)
    if not content or redact(content).found or content.startswith("The user asked"):
        return None
    return Candidate(content=content, category="preference", importance="medium")


# Asking that something be forgotten or left alone is no taste ("以后别再提她").
_FORGET_WORDS = re.compile(
    r"\b(?:forget|delete|remove|drop|stop reminding|never mention)\b|删|忘|别再提|不要再提", re.I
)


def _replacing_kind(said: str) -> Category:
    """The kind of a memory made of a sentence that replaces a known one: what replaces a
    known state is a state too, never something to do; the fitted model's kind otherwise (a
    new language to be answered in is a taste, a new tool a skill in use)."""
    selector = load_selector()
    fitted: Category = selector.judge(statement(said)).category if selector else "fact"
    kind = _kind(said, fitted)
    return "fact" if kind in ("todo", "experience") else kind


def _selected_category(said: str, fitted: Category, today: date) -> tuple[Category, date | None]:
    """The category of a sentence the selector keeps, from the fitted model's and the
    sentence's own words, and the day it names."""
    category = _kind(said, fitted)
    # A move, a new job or role, a birthday: a state that holds from then on, a fact, whether
    # told as a story ("上个月从北京搬到深圳了") or with the day it starts ("starting at Ramp on
    # June 3rd", "下周一去华为报到"), unless something is still to be done for it.
    if _NEW_STATE.search(said) and not _MUST.search(said) and category in ("todo", "experience"):
        return "fact", resolve_date(said, today)
    # A sentence that opens as a story ("went to my first hackathon", "去年被骗了两万") is an
    # experience: the model, fitted mostly on facts, calls it a fact (dev, four folds: 2 of
    # 6 such sentences right -> 5 of 6, nothing lost end to end).
    if (
        category == "fact"
        and _past(said)
        and not _RECURRING.search(said)
        and not _NEW_STATE.search(said)
        and not _NOW_SO.search(said)
    ):
        category = "experience"
    if category == "todo" and _RECURRING.search(said):
        category = "workflow"  # done again and again: a habit, whatever the model says
    if category == "todo" and _past(said) and not _MUST.search(said):
        category = "experience"  # a story of what was done, whatever day it names
    day = resolve_date(said, today)
    if category == "todo" and day is not None and not _to_do_on(day, today, said):
        category = "experience" if _past(said) else "fact"  # today's, being lived
    if category == "todo" and _lasting(said):
        category = "fact"  # a state that lasts until a day ("in the shop till tuesday")
    if (
        _to_do_on(day, today, said)
        and category in ("fact", "todo", "experience")
        and not _lasting(said)
        # A day alone makes no todo ("four analysts reporting to me starting monday"): the
        # model's word, or something to do or a time to be somewhere.
        and (
            category == "todo"
            or _MUST.search(said)
            or re.search(_TO_DO, said, re.I)
            or _MEANS_TO.search(said)
        )
        and not (_NEW_STATE.search(said) and not _MUST.search(said))
        and not _TASTE.search(said)
        and not _RECURRING.search(said)
        and not _past(said)
    ):
        category = "todo"
    return category, day


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


def _points_back_only(content: str) -> bool:
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


# Where the user lives and works, and as what: a plan that names a new one is that fact first.
_LASTING_SLOTS = frozenset(["home", "employer", "role", "manager", "birthday"])


class _Nearness:
    """What the fitted model of changes (:mod:`.replacing`) needs of one conversation: the
    embeddings of the known memories and of the sentences, made in one batch each."""

    def __init__(self, known: Sequence[tuple[str, str]], said: Sequence[str]) -> None:
        self.known = list(known)
        self.model = load_replacing() if known else None
        encoder = embedder() if self.model is not None else None
        self.vectors: dict[str, list[float]] = {}
        self.known_vectors: list[list[float]] = []
        if encoder is None or not said:
            return
        # The sentences the selector embedded already (most of them, as said) are not
        # embedded again: one batch for the rest and the known memories.
        selector = load_selector()
        for text in dict.fromkeys(said):
            vector = selector.primed(text) if selector is not None else None
            if vector is not None:
                self.vectors[text] = _floats(vector)
        rest = [text for text in dict.fromkeys(said) if text not in self.vectors]
        made = list(map(_floats, encoder.encode([*rest, *(c for _, c in known)])))
        self.vectors.update(zip(rest, made, strict=False))
        self.known_vectors = made[len(rest) :]

    def replaced(self, said: str, retired: set[str]) -> tuple[str, ...]:
        """The known memory ``said`` replaces, as the model reads it (none without the
        ``embeddings`` extra or the model's weights), unless already retired: the change
        the sentence says is then the one the rules read, and the memories near it stay."""
        vector = self.vectors.get(said)
        if self.model is None or vector is None:
            return ()
        selector = load_selector()
        sentence = statement(said)
        durable = selector.judge(sentence).probability if selector and judged(sentence) else 0.0
        closeness = [_cosine(vector, known) for known in self.known_vectors]
        best = self.model.replaced(said, self.known, closeness, durable)
        return () if best is None or best in retired else (best,)


def _floats(vector: Any) -> list[float]:
    return vector.tolist() if hasattr(vector, "tolist") else [float(x) for x in vector]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(map(operator.mul, a, b))
    size = math.sqrt(sum(x * x for x in a) * sum(x * x for x in b))
    return dot / size if size else 0.0


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

        def add(candidate: Candidate | None, old_value: str | None = None, said: str = "") -> bool:
            if candidate is None:
                return False
            if not candidate.forget:
                candidate = _whole(candidate, said)
                if candidate is None:
                    return False
                if candidate.category == "todo" and _points_back_only(candidate.content):
                    return False
                if candidate.category == "todo" and _TASK_FOR_ASSISTANT.search(said):
                    return False  # "翻译成英文：本店周一闭店…": the day is in the text to work on
                if (
                    candidate.category == "todo"
                    and _YEARLY_DAY.search(candidate.content)
                    # "纪念日是6月20号 提前两天提醒我买礼物": a reminder of it is a thing to do
                    # (_MUST reads 提醒 and "remind"; "reminder" too here), and so is a party
                    # planned for it.
                    and not re.search(
                        r"remind|party|parties|lunch|dinner|celebrat|派对|聚餐|庆祝", said, re.I
                    )
                    and not _MUST.search(said)
                ):
                    # "生日是5月21号", "our anniversary is June 3rd": a day of every year is a
                    # fact about the user, not a thing to do that lapses.
                    candidate = candidate.replace(
                        category="fact",
                        expires_at=None,
                        content=_DAY_NOTE.sub("", candidate.content),
                    )
            if known and not candidate.forget:
                contradicts = contradicted(candidate, old_value, known)
                if contradicts and said:
                    # "I'm in Austin now, my job is still in Dallas": the old value named
                    # as still so in the same sentence.
                    holding = dict(known)
                    contradicts = tuple(
                        i for i in contradicts if not still_named(said, holding.get(i, ""))
                    )
                if contradicts:
                    candidate = candidate.replace(contradicts=contradicts)
            if candidate.content.lower() not in seen:
                seen.add(candidate.content.lower())
                found.append(candidate)
            return True

        said_by_message = self.said(messages, today)
        self._prime(said_by_message)
        nearness = _Nearness(known, [said for saids in said_by_message for said in saids])
        in_play = False  # a role play set up in an earlier message, still going on
        playing = set_up = False
        played = 0  # messages since it was set up
        for saids in said_by_message:
            last, last_start = "", len(found)
            message_start, forgotten = len(found), set()
            if playing and set_up:
                in_play, played = True, 0
            played += 1
            # Left by saying so, or by thanking for it, or after a few messages: the facts
            # said after it are not to be lost to a play that ended without a word.
            if in_play and (played > _PLAY_LENGTH or any(_PLAY_OVER.search(s) for s in saids)):
                in_play = False
            playing = set_up = False
            listing = False  # a list of things to do opened earlier in this message
            for said in saids:
                # The roles given out after a role play is set up ("let's do a little roleplay
                # ... you're a barista in Madrid, I'm a customer who just moved from Tokyo")
                # are not the user's; the setup and anything else they say still are.
                playing = playing or bool(_ROLE_PLAY.search(said))
                set_up = set_up or bool(_PLAY_SET_UP.search(said))
                if playing and _ROLES.search(said):
                    continue
                # What the user says in the play once it is going (an answer to the mock
                # interviewer, the customer's lines) is the role's, unless asked to remember.
                if in_play and not _ASKS_TO_REMEMBER.search(said):
                    continue
                if _TASK_FOR_ASSISTANT.search(said) and not _OWN_TEXT.search(said):
                    continue  # "帮我翻译：我现在在字节工作了": the words are the text's, not the user's
                previous, last = last, said
                previous_start, last_start = last_start, len(found)
                target = forget_request(said, known, previous)
                if target is not None:
                    content = next(c for i, c in known if i == target)
                    add(Candidate(content=content, confirms=target, forget=True))
                    # The words that named it, in this sentence or the one it points back to.
                    forgotten |= {
                        w
                        for w in _telling(f"{previous} {said}") & _telling(content)
                        if len(w) > 2 and w != "user"
                    }
                    continue
                if previous and _ADD_TO_LIST.search(said):
                    # "my passport expires in august. add it to my list?": the sentence
                    # before is the thing to do, whatever was made of it.
                    todo = self._todo(previous, today)
                    if todo is not None:
                        for dropped in found[previous_start:]:
                            seen.discard(dropped.content.lower())
                        del found[previous_start:]
                        add(todo, said=previous)
                    continue
                before = len(found)
                for clause in _clauses(said):
                    candidate, old_value = self._change(clause.strip())
                    if candidate is None:
                        candidate = self._match(clause.strip(), today)
                    add(candidate, old_value, said)
                if len(found) == before and not _HYPOTHETICAL.search(said):
                    # A task given to the assistant ("plz explain async like im dumb", "Draft
                    # a text to my neighbor ... while I'm away Oct 5-12") is no memory, and its
                    # day is the text's: only a standing request is read in it.
                    # What it says of the user after the task is read on its own ("explain
                    # this like I'm a backend person, I write Go all day").
                    told = _after_the_task(said)
                    if told and told != said:
                        # The rules read it too ("Explain taxes to me; I'm self-employed").
                        for clause in _clauses(told):
                            add(self._match(clause.strip(), today), said=told)
                    if len(found) == before:
                        standing = _standing_request(said)
                        plans = self._plans(told, today, listing) if told and not standing else []
                        listing = listing or bool(_TASK_LIST.match(told or ""))
                        planned = [add(plan, said=said) for plan in plans]
                        if standing is not None or not any(planned):
                            add(
                                standing or (self._select(told, today) if told else None),
                                said=said,
                            )
                elif (
                    _ASKED_TO_REMIND.search(said)
                    and not any(c.category == "todo" for c in found[before:])
                    and not _HYPOTHETICAL.search(said)
                ):
                    # "我儿子生日是10月1号 提前三天提醒我订蛋糕": a rule read the birthday in
                    # the first clause; the reminder asked for is a thing to do of its own.
                    add(self._plan(said, today), said=said)
                values, replaced = replaced_by(said, known)
                for value in values:
                    naming = [
                        i
                        for i in range(before, len(found))
                        if value.value.casefold() in found[i].content.casefold()
                        or (value.words and value.words.casefold() in found[i].content.casefold())
                    ]
                    for i in naming:
                        # What the selector kept of a tool in use is of the tool's kind (a
                        # fixed rule's statement of the change keeps its own). A plan that
                        # names a new home or workplace ("下周一去华为报到", "moving to Leeds
                        # on the 3rd") is that fact first: it lasts, the day does not.
                        # A switch of the tool the user works with ("VS Code 已经卸了，现在
                        # 全换 Cursor 了，太慢") is the tool in use, whatever taste it gives.
                        if (
                            found[i].category in ("fact", "experience")
                            or (found[i].category == "todo" and value.slot in _LASTING_SLOTS)
                            or (
                                found[i].category == "preference"
                                and value.category == "skill_usage"
                            )
                        ) and not (found[i].importance == "high" or found[i].forget):
                            found[i] = found[i].replace(category=value.category, expires_at=None)
                    # The new value kept as a memory of its own when nothing the sentence
                    # gave names it ("got the keys to our place in Leeds" -> lives in Leeds).
                    if not naming:
                        add(
                            Candidate(
                                content=value.memory(bool(CJK_RE.search(said))),
                                category=value.category,
                                importance="high",
                            ),
                            said=said,
                        )
                changed = tuple(dict.fromkeys((*changed_memories(said, known), *replaced)))
                if (
                    not changed
                    and len(found) > before
                    and not _HYPOTHETICAL.search(said)
                    # A thing still to do or to come is no change yet.
                    and not any(c.category == "todo" for c in found[before:])
                ):
                    # A change said in words no rule reads ("now that I'm actually settled
                    # in Glasgow"): the fitted model, on the sentences that gave a memory.
                    retired = {i for c in found for i in c.contradicts}
                    changed = nearness.replaced(said, retired)
                if changed:
                    self._retire(found, before, said, changed, today)
            if forgotten:
                # What the user asked to forget is not kept again from the same message, said
                # another way ("tom and I split up. ... delete whatever you had about him").
                kept = [
                    c
                    for c in found[message_start:]
                    if c.forget or not (_telling(c.content) & forgotten)
                ]
                for dropped in found[message_start:]:
                    if dropped not in kept:
                        seen.discard(dropped.content.lower())
                found[message_start:] = kept
            _fold_endings(found, message_start)
        return found

    @staticmethod
    def said(messages: Sequence[Mapping[str, Any]], today: date) -> list[list[str]]:
        """Each user message's sentences as the rules read them: cut, a correction joined to
        what it corrects, hedges and fillers taken off, several things to do apart."""
        said_by_message = [
            joined_corrections(sentences(_own_words(message_text(m))))
            for m in messages
            if m.get("role") == "user"
        ]
        # A message that opens by correcting the one before ("我生日是5月12号…" then "啊打错了，
        # 是5月21号"): the correction is read with the sentence it corrects.
        for earlier, later in itertools.pairwise(said_by_message):
            if earlier and later and corrects_before(later[0]):
                earlier[-1:] = joined_corrections([earlier[-1], later.pop(0)])
        said_by_message = [
            [
                part
                for said in map(_earnest, saids)
                if said
                for part in _things_to_do(_hedged(corrected(said)), today)
            ]
            for saids in said_by_message
        ]
        return _lead_from_before(said_by_message, today)

    @staticmethod
    def _retire(
        found: list[Candidate], first: int, said: str, ids: tuple[str, ...], today: date
    ) -> None:
        """Mark what ``said`` replaces: on the memories it gave, else on itself as a memory."""
        if len(found) == first:
            content = about_the_user(said)
            if not content or redact(content).only_secret:
                return
            found.append(
                Candidate(content=content, category=_replacing_kind(said), importance="medium")
            )
        for i in range(first, len(found)):
            if not found[i].forget:
                merged = tuple(dict.fromkeys((*found[i].contradicts, *ids)))
                found[i] = found[i].replace(contradicts=merged)

    @staticmethod
    def _dated(content: str, said: str, day: date | None) -> str:
        """The memory with its day written out when the user named it relatively ("tomorrow",
        "next Wednesday", "下周三"): a day later, "tomorrow" would be read wrong."""
        if day is None or not _RELATIVE_DAY.search(CJK_DATE_SPACE.sub("", said)):
            return content
        if CJK_RE.search(content):
            return f"{content.rstrip('。')}（{day.isoformat()}）"
        return f"{content.rstrip('.')} ({day.isoformat()})."

    @staticmethod
    def _todo(said: str, today: date, *, item: bool = False) -> Candidate | None:
        """A todo of ``said``, which the user asked to put on their list; ``item``: one item
        of a list of things to do, short by nature ("book a haircut" is whole)."""
        content = about_the_user(_clean(statement(said)))
        if not content or redact(content).only_secret or (_too_short(said) and not item):
            return None
        day = resolve_date(said, today)
        if day is not None and day < today:
            day = None
        return Candidate(
            content=RuleExtractor._dated(content, said, day),
            category="todo",
            importance="medium",
            expires_at=expiry_after(day or today + timedelta(days=TODO_DEFAULT_DAYS)),
        )

    @staticmethod
    def _plans(said: str, today: date, listing: bool = False) -> list[Candidate]:
        """The todos of ``said``: its items when it lists things to do ("brain dump: pick up
        dry cleaning, call the insurance guy, ..."), else the plan it tells, else those of
        its clauses, each of its own ("老公周一要去出差 我得一个人送娃 还要周三去开家长会",
        "flight to lisbon is saturday, also must drop the dog at my sister's friday"); never
        a task of someone else's ("my roommate has her driving test friday"). ``listing``:
        ``said`` follows the opening of such a list, as one more of its items."""
        if listing:
            item = RuleExtractor._listed(re.sub(r"^(?:and|also|then)\s+", "", said), today)
            return [] if item is None else [item]
        listed = _TASK_LIST.match(said)
        if listed:
            items = [i for i in _LIST_ITEM.split(said[listed.end() :]) if i.strip()]
            if len(items) >= 2:
                todos = [RuleExtractor._listed(item.strip(" .。!！"), today) for item in items]
                return [t for t in todos if t is not None]
        others_first = bool(_OTHERS_FIRST.match(said.strip()))
        if not others_first:
            whole = RuleExtractor._plan(said, today)
            if whole is not None:
                return [whole]
        clause_plans = RuleExtractor._clause_plans(said, today)
        if clause_plans or not others_first or not _own_part(said):
            return clause_plans
        # "my boss wants the report by friday, i need to finish the slides": the user's part
        # of a plan whose day is said of someone else's.
        whole = RuleExtractor._plan(said, today)
        return [] if whole is None else [whole]

    @staticmethod
    def _clause_plans(said: str, today: date) -> list[Candidate]:
        """The plans the clauses of ``said`` tell, each alone (see :meth:`_plans`)."""
        if re.search(r"[()（）\"“”]", said):
            return []  # a clause cut out of a remark or a quotation is no plan
        if _RECURRING.search(said) or _HYPOTHETICAL.search(said) or _lasting(said):
            return []  # what the whole says of every clause: a habit, a supposition, a state
        clauses = [c.strip(" ,，;；") for c in _TASK_CLAUSE.split(said)]
        clauses = [c for c in clauses if len(c) >= 4]
        if len(clauses) < 2:
            return []
        # A clause alone says it is a plan in words of its own: something to do, or a time.
        plans = [
            RuleExtractor._plan(c, today)
            for c in clauses
            if not (_others_task(c) or _ASKING_CLAUSE.match(c) or _ASKS.search(c))
            and (_MUST.search(c) or _CLOCK.search(c) or _MEANS_TO.search(c) or _OBLIGED.search(c))
        ]
        return [p for p in plans if p is not None]

    @staticmethod
    def _listed(item: str, today: date) -> Candidate | None:
        """A todo of one item of a list of things to do, with its day when it names one."""
        if len(item) < 4 or _past(item) or _ASKING_CLAUSE.match(item) or _ASKS.search(item):
            return None
        if _DONE_ITEM.match(item) or _others_task(item) or "?" in item or "？" in item:
            return None  # "called the bank", "the kids did the dishes": done, or not the user's
        words = re.findall(r"[A-Za-z]{2,}", item)
        if len(words) < 2 and len(CJK_RE.findall(item)) < 3:
            return None
        return RuleExtractor._todo(item, today, item=True)

    @staticmethod
    def _plan(said: str, today: date) -> Candidate | None:
        """A todo from a sentence that names a coming day and something to do or attend."""
        asked = statement(_without_request(said))
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
            or _ASKS.search(said)
            or _QUESTION_ZH.search(said)
            or _RECURRING.search(said)
            or (_past(said) and not reminder)
        ):
            return None
        left = _TIME_AND_ASKING.sub(" ", said)
        words = [w for w in re.findall(r"[A-Za-z]{2,}", left) if w.lower() not in _NO_THING]
        # "搬家" is a thing to do; "就去", "要做" are not.
        things = CJK_RE.findall(re.sub(r"[就去要得了会吧也还都我的呢啊呀再先用户做来走]", "", left))
        if len(words) + len(things) // 2 < 1:
            return None  # "周五中午提醒一下吧", "remind me tomorrow": when, but nothing to do
        if not _to_do_on(day, today, said) and not reminder:
            return None
        if _lasting(said) and not reminder:
            return None  # "conference till thursday": a state until then, nothing to do then
        if day is None or day < today:
            return None
        # A taste said with a day ("国庆想出去玩，我最讨厌人挤人") is the taste.
        if _own_taste(said) and not _MUST.search(said):
            return None
        content = about_the_user(_clean(said))
        if not content or redact(content).only_secret:
            return None
        if re.match(r"[他她]", content):
            return None  # "他下周三体检": his, whoever he is
        if CJK_RE.search(content) and "用户" not in content:
            content = "用户" + content
        return Candidate(
            content=RuleExtractor._dated(content, said, day),
            category="todo",
            importance="medium",
            expires_at=expiry_after(day),
        )

    @staticmethod
    def _prime(said_by_message: list[list[str]]) -> None:
        """Embed at once every sentence :meth:`_select` may judge: one batch for the whole
        conversation instead of one call a sentence (a long transcript has thousands)."""
        selector = load_selector()
        if selector is None or selector.dense is None:
            return
        every = (
            statement(said) for saids in said_by_message for said in saids if not _too_long(said)
        )
        selector.prime([said for said in every if judged(said)])

    @staticmethod
    def _select(said: str, today: date) -> Candidate | None:
        """A memory from a sentence no fixed rule reads, when the selector judges it durable."""
        selector = load_selector()
        if _too_long(said):
            return None
        said = statement(said)
        if selector is None or not judged(said):
            return None
        verdict = selector.judge(said)
        if verdict.probability < selector.threshold_for(said):
            return None
        content = about_the_user(said)
        # A sentence around a pasted secret ("OPENAI_API_KEY=sk-... is in my .env", "user
        # pta.treasurer / pass hunter2") is about the secret: with it taken out, nothing is
        # left worth keeping. The fixed rules still read "my wifi password is ...".
        if not content or "[redacted:" in content or redact(content).found:
            return None
        category, day = _selected_category(said, verdict.category, today)
        expires = None
        if category == "todo":
            expires = expiry_after(day or today + timedelta(days=TODO_DEFAULT_DAYS))
            content = RuleExtractor._dated(content, said, day)
        # Kept for recall, but shown in prompts only once a later session confirms it (a new
        # memory of low importance starts under the prompt's 0.5), unless the model is sure.
        importance = "medium" if verdict.probability >= 0.8 else "low"
        return Candidate(
            content=content, category=category, importance=importance, expires_at=expires
        )

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
        text = _HEDGE_FIRST.sub("", _clean(statement(_without_request(text))), count=1)
        text = _FILLER_FIRST.sub(r"\1 ", text, count=1)
        if len(text) < 4 or _NOT_A_STATEMENT.search(text.rstrip(".。!！")):
            return None
        if CJK_RE.search(text) and _ASKED_ZH.search(text):
            return None  # "新人入职第一周一般要干啥": a question without its mark
        forget = _FORGET_EN.match(text.rstrip(".。!！")) or _FORGET_ZH.match(text.rstrip(".。!！"))
        if forget:
            said = forget.group(1)
            content = (
                zh_third_person(said) if CJK_RE.search(said[:4]) else sentence(third_person(said))
            )
            return Candidate(content=content, forget=True)
        rules = CHINESE_RULES if CJK_RE.search(text[:4]) else ENGLISH_RULES
        for pattern, category, importance, build in rules:
            match = pattern.match(text.rstrip(".。!！"))
            if not match:
                continue
            content = build(match)
            if not content:
                return None
            if category == "explicit":
                named = resolve_date(text, today)
                category = _classify(content, named is not None and named >= today)
            expires = None
            if category == "todo" and _others_task(text):
                return None  # "老公周一要去出差": his, not the user's to do
            if category == "todo":
                named = resolve_date(text, today)
                day = named or today + timedelta(days=TODO_DEFAULT_DAYS)
                expires = expiry_after(day)
                content = RuleExtractor._dated(content, text, named)
            return Candidate(
                content=content, category=category, importance=importance, expires_at=expires
            )
        return None
