"""The offline extractor: rules for what people say explicitly, in English and Chinese.

It reads only the user's lines, cuts them into sentences and clauses, and matches each clause
against the rules (:mod:`.english`, :mod:`.chinese`), the statements of change
(:mod:`.changes`), the todos (:mod:`.todos`) and the requests to forget; what a sentence says
once its asides are off is read by :mod:`.statements`. It prefers a few right memories to many doubtful
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
from .dates import WHEN_EN, WHEN_ZH, resolve_date
from .english import RULES as ENGLISH_RULES
from .kinds import kinds
from .replacing import load_replacing
from .selector import embedder, load_selector
from .sentences import sentences
from .slots import replaced_by, still_named
from .statements import (
    ASKS,
    HYPOTHETICAL,
    NOT_ABOUT_USER,
    TASK_FOR_ASSISTANT,
    TASTE,
    clean,
    own_taste,
    past,
    statement,
    too_short,
    without_request,
)
from .todos import (
    MEANS_TO,
    MUST,
    RECURRING,
    TASK_LIST,
    dated,
    lasting,
    lead_from_before,
    others_task,
    plan_of,
    plans_of,
    points_back_only,
    things_to_do,
    to_do_on,
    todo_of,
)
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
    # What the user has to do next, its subject dropped ("i teach 4th grade and need to email
    # the parents").
    r"|\s+and\s+(?=(?:need|have|got|gotta) to\b)"
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


# A reminder asked for, anywhere in a sentence.
_ASKED_TO_REMIND = re.compile(r"提醒我|\bremind me\b", re.I)


def _hedged(said: str) -> str:
    """``said`` as a statement when it is one said unsure, with a question mark."""
    if _HEDGED.search(said):
        return re.sub(r"[?？]+$", "." if said.isascii() else "。", said)
    return said


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
        content = about_the_user(clean(said))
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
    if fitted in ("fact", "experience", "workflow") and own_taste(said):
        return "preference"
    # Someone else's taste ("我家柯基最近不爱吃狗粮", "娃也爱吃") says something about the
    # user's household, not what the user likes.
    if fitted == "preference" and TASTE.search(said) and not own_taste(said):
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


# News about someone else in the user's life: their friend, colleague, sibling or boss as the
# subject ("my coworker is quitting", "我妹刚搬去成都了", "我们领导又发火了"). A child's or a
# partner's news is often the user's too, and is judged.
_SOMEONE_ELSE = re.compile(
    r"^(?:(?:lol|omg|ugh|so|and|also|btw)[, ]+)*(?:my|our) (?:\w+ )?(?:friend|friends|coworker|"
    r"co-worker|colleague|boss|manager|brother|sister|cousin|neighbou?r|roommate|flatmate|"
    r"classmate|aunt|uncle|brother-in-law|sister-in-law|teammate|team mate|team lead|tech lead|"
    r"intern|new hire|landlord|landlady|mentor|client|customer)s?\b(?!'s name)"
    r"|^(?:笑死|哈哈+|唉|对了)?[，, ]*(?:我|我们)(?:的)?(?:一个|一位|有个|有一个|有位|两个|几个)?"
    r"(?:好)?(?:朋友|同事|领导|老板|上司|妹妹?|姐姐?|哥哥?|弟弟?|"
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
        NOT_ABOUT_USER.search(said)
        or HYPOTHETICAL.search(said)
        or _SOMEONE_ELSE.search(said)
        or too_short(said)
        or _NOT_A_STATEMENT.search(said.rstrip(" .。!！~～"))
        or ASKS.search(said)
    )


def _classify(content: str, dated: bool = False) -> Category:
    """The category of an explicit "remember that ..." memory, by what it says; ``dated`` when
    it names a coming day ("the car needs its MOT by June 14")."""
    lowered = content.lower()
    if dated and not RECURRING.search(lowered) and re.search(_TO_DO, lowered):
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


# The user asks that what they just said be kept as something to do.
_ADD_TO_LIST = re.compile(
    r"\b(?:add|put|keep|stick) (?:it|this|that) (?:to|on|in) (?:my|the) (?:list|to-?do|todo|"
    r"reminders?|todo list|to-do list)\b|\bput it on my list\b"
    r"|(?:加到|放到|记到|写到|放进|加进)(?:我的)?(?:待办|清单|todo|提醒)",
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


# What holds now, after what was done ("sold the golf last week, now I drive a Model 3",
# "上个月从美团跑路了 现在在一家创业公司"): the story ends in a state.
_NOW_SO = re.compile(r"\b(?:now|these days|nowadays)\b|现在|目前|如今", re.I)


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


# Who the user is, said in passing as the standpoint of a question ("as a vegetarian i'm not
# doing the meat version", "as a type 1 diabetic what can i eat", "作为一个素食者 想做个麻婆豆
# 腐"): the identity is the user's, whatever is asked after it.
_AS_IDENTITY_EN = re.compile(
    # (Opening the sentence or a clause of its own: "what should I do in the first week as a
    # new homeowner" asks, and tells no more than the sentence does.)
    # ("my brother, as a pilot, flies every week" is the brother's: no comma before it.)
    r"(?:^(?:(?:ok|okay|so|well|honestly|tbh|btw|and|but|also|like)[, ]+)*|"
    r"\b(?:but|and|so|because|cause|cuz|since|also)\s+)"
    r"as an? ((?:(?:new|first[- ]time|single|working|stay[- ]at[- ]home|full[- ]time|"
    r"part[- ]time|junior|senior|retired|lifelong|strict|longtime|long[- ]time|type [12]|"
    r"registered|certified|self[- ]employed|solo|small) )*(?:vegetarian|vegan|pescatarian|celiac|"
    r"coeliac|diabetic|asthmatic|epileptic|mom|mum|dad|parent|mother|father|grandparent|"
    r"grandma|grandpa|nurse|teacher|developer|engineer|designer|doctor|lawyer|student|"
    r"grad student|phd student|freelancer|contractor|pharmacist|electrician|plumber|accountant|"
    r"programmer|researcher|scientist|writer|business owner|shop owner|landlord|homeowner|"
    r"renter|veteran|immigrant|expat|non-native (?:english )?speaker|left-hander|night owl|"
    r"introvert|caregiver|carer|paramedic|therapist|chef|cook|barista|driver|trucker|"
    r"farmer|pilot|firefighter|police officer|social worker|translator|musician|artist))"
    r"(?=[,\s])(?![,\s]*(?:my|our|his|her|he|she|they|their|your|you|a|an|the)\b)",
    re.I,
)
# (Opening the sentence, the user's own words: "我老公作为一个程序员", "你现在作为一名营养师",
# "以前作为学生的时候" are someone else's, the assistant's, or past.)
_AS_IDENTITY_ZH = re.compile(
    r"^(?:(?:我|本人|其实|说实话|说真的|嗯|哈哈|唉|毕竟|我也是)[，, ]*)*作为(?:一个|一名|一位|一枚|个)?"
    # (Not a part one plays for a moment: a buyer, a victim, a reader.)
    r"(?P<who>(?!过来人|外人|旁观者|局外人|第三者|路人|男人|女人|家长代表|消费者|受害者|当事人|顾客|乘客|"
    r"买家|卖家|用户|观众|读者|听众|新人)[\u4e00-\u9fff]{0,5}?"
    r"(?:者|员|师|生|宝妈|妈妈|奶爸|爸爸|党|族|控|病人|患者|选手))"
    r"(?=[\s，,的我])(?![^，,。！？\s]*的时候)(?![\s，,]*(?:他|她|你|他们|她们|我们家))"
)
# What makes the standpoint no one's now: a time gone by, a supposition.
_AS_ONCE = re.compile(
    r"\b(?:if i were|were i|when i was|back when|used to be|as a kid|as a child|as a teen)\b", re.I
)


def _identity(said: str) -> Candidate | None:
    """The user's identity said as the standpoint of what follows (see _AS_IDENTITY_EN)."""
    if HYPOTHETICAL.search(said) or _AS_ONCE.search(said):
        return None
    english = _AS_IDENTITY_EN.search(said)
    if english is not None and (
        re.search(
            r"\b(?:if|whether|hypothetically|suppose|imagine)\b", said[: english.start()], re.I
        )
        # "as a lawyer, what would you advise?": a part given to the assistant.
        or re.search(r"\b(?:you|your|you're|u)\b", said, re.I)
    ):
        return None
    if english is not None:
        who = english.group(1).lower()
        article = "an" if who[0] in "aeiou" else "a"
        return Candidate(content=f"The user is {article} {who}.", category="fact")
    chinese = _AS_IDENTITY_ZH.search(said)
    if chinese is not None:
        return Candidate(content=f"用户是{chinese.group('who')}。", category="fact")
    return None


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
    if not _STANDING.search(said) or _FORGET_WORDS.search(said) or too_short(said):
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
    if _NEW_STATE.search(said) and not MUST.search(said) and category in ("todo", "experience"):
        return "fact", resolve_date(said, today)
    # A sentence that opens as a story ("went to my first hackathon", "去年被骗了两万") is an
    # experience: the model, fitted mostly on facts, calls it a fact (dev, four folds: 2 of
    # 6 such sentences right -> 5 of 6, nothing lost end to end).
    if (
        category == "fact"
        and past(said)
        and not RECURRING.search(said)
        and not _NEW_STATE.search(said)
        and not _NOW_SO.search(said)
    ):
        category = "experience"
    if category == "todo" and RECURRING.search(said):
        category = "workflow"  # done again and again: a habit, whatever the model says
    if category == "todo" and past(said) and not MUST.search(said):
        category = "experience"  # a story of what was done, whatever day it names
    day = resolve_date(said, today)
    if category == "todo" and day is not None and not to_do_on(day, today, said):
        category = "experience" if past(said) else "fact"  # today's, being lived
    if category == "todo" and lasting(said):
        category = "fact"  # a state that lasts until a day ("in the shop till tuesday")
    if (
        to_do_on(day, today, said)
        and category in ("fact", "todo", "experience")
        and not lasting(said)
        # A day alone makes no todo ("four analysts reporting to me starting monday"): the
        # model's word, or something to do or a time to be somewhere.
        and (
            category == "todo"
            or MUST.search(said)
            or re.search(_TO_DO, said, re.I)
            or MEANS_TO.search(said)
        )
        and not (_NEW_STATE.search(said) and not MUST.search(said))
        and not TASTE.search(said)
        and not RECURRING.search(said)
        and not past(said)
    ):
        category = "todo"
    return category, day


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
                if candidate.category == "todo" and points_back_only(candidate.content):
                    return False
                if candidate.category == "todo" and TASK_FOR_ASSISTANT.search(said):
                    return False  # "翻译成英文：本店周一闭店…": the day is in the text to work on
                if (
                    candidate.category == "todo"
                    and _YEARLY_DAY.search(candidate.content)
                    # "纪念日是6月20号 提前两天提醒我买礼物": a reminder of it is a thing to do
                    # (MUST reads 提醒 and "remind"; "reminder" too here), and so is a party
                    # planned for it.
                    and not re.search(
                        r"remind|party|parties|lunch|dinner|celebrat|派对|聚餐|庆祝", said, re.I
                    )
                    and not MUST.search(said)
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
                if TASK_FOR_ASSISTANT.search(said) and not _OWN_TEXT.search(said):
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
                    todo = todo_of(previous, today)
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
                if len(found) == before and not HYPOTHETICAL.search(said):
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
                        plans = plans_of(told, today, listing) if told and not standing else []
                        listing = listing or bool(TASK_LIST.match(told or ""))
                        planned = [add(plan, said=said) for plan in plans]
                        if standing is not None or not any(planned):
                            add(
                                standing or (self._select(told, today) if told else None),
                                said=said,
                            )
                elif (
                    _ASKED_TO_REMIND.search(said)
                    and not any(c.category == "todo" for c in found[before:])
                    and not HYPOTHETICAL.search(said)
                ):
                    # "我儿子生日是10月1号 提前三天提醒我订蛋糕": a rule read the birthday in
                    # the first clause; the reminder asked for is a thing to do of its own.
                    add(plan_of(said, today), said=said)
                add(_identity(said), said=said)
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
                    and not HYPOTHETICAL.search(said)
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
                for part in things_to_do(_hedged(corrected(said)), today)
            ]
            for saids in said_by_message
        ]
        return lead_from_before(said_by_message, today)

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
            content = dated(content, said, day)
        # Kept for recall, but shown in prompts only once a later session confirms it (a new
        # memory of low importance starts under the prompt's 0.5), unless the model is sure.
        importance = "medium" if verdict.probability >= 0.8 else "low"
        return Candidate(
            content=content, category=category, importance=importance, expires_at=expires
        )

    @staticmethod
    def _change(text: str) -> tuple[Candidate | None, str | None]:
        """A memory that a value changed ("I moved from X to Y"), with the old value."""
        text = clean(text).rstrip(".。!！")
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
        text = _HEDGE_FIRST.sub("", clean(statement(without_request(text))), count=1)
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
            if category == "todo" and others_task(text):
                return None  # "老公周一要去出差": his, not the user's to do
            if category == "todo":
                named = resolve_date(text, today)
                day = named or today + timedelta(days=TODO_DEFAULT_DAYS)
                expires = expiry_after(day)
                content = dated(content, text, named)
            return Candidate(
                content=content, category=category, importance=importance, expires_at=expires
            )
        return None
