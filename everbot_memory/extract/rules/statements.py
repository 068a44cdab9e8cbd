"""What a sentence of the user's says once its asides are off: the statement itself, and
whether it asks, supposes, tells of the past or of a taste.

Every part of the offline extractor reads sentences through these: the fixed rules, the
todos (:mod:`.todos`), the selector and the changes model.
"""

from __future__ import annotations

import re

from ...core.text import CJK_RE

# Not about the user's own life: a hypothetical, or news about someone else.
HYPOTHETICAL = re.compile(
    # (After words that only lead in: "just thinking out loud, what if...", "随便想想啊，假如...";
    # "the Hartwell one matters, if we miss it..." is a statement first.)
    r"^(?:(?:so|ok|okay|hmm+|well|just|random|honestly|out of curiosity|curious|"
    r"(?:just )?thinking out loud|random (?:thought|question)|hypothetically speaking|"
    r"quick (?:question|one)|dumb question)[,:]\s*)?(?:if|what if|suppose|imagine|(?:purely |strictly |totally |just )?hypothetically|say)\b"
    r"|\b(?:did you hear|have you heard)\b"
    # "我就假装自己有五年经验", "pretending I'm a senior dev": not so.
    r"|\bpretend(?:ing)? (?:i'?m|i am|i have|to be)\b|假装|装作"
    r"|^(?:[^，,。！？]{0,5}[啊呀哈吧嘛哦呢]|随便[^，,。！？]{0,3}|突发奇想|瞎想[^，,。！？]{0,2}"
    r"|好奇[^，,。！？]{0,3})?[，,]?\s*(?:如果|假如|要是|万一|假设)",
    re.I,
)


TASK_FOR_ASSISTANT = re.compile(
    r"^(?:(?:ok|okay|so|and|also|pls|please|can you|could you)[,]?\s+)*(?:(?:tl;? ?dr|summari[sz]e) "
    r"(?:this|it|that|the following)|translate|rewrite|reword|proofread|paraphrase|polish|"
    r"shorten)\b[^:：]{0,40}[:：]"
    r"|^(?:请|麻烦|帮我)(?:总结|概括)[^：:。]{0,12}[：:]"
    r"|^(?:请|麻烦|帮我)?(?:把[^：:。]{1,8}?)?(?:翻译|翻成|润色|改写|缩写|扩写|校对)[^：:。]{0,12}[：:]",
    re.I,
)

__all__ = [
    "ASKS",
    "HYPOTHETICAL",
    "NOT_ABOUT_USER",
    "TASK_FOR_ASSISTANT",
    "TASTE",
    "clean",
    "own_taste",
    "past",
    "statement",
    "too_short",
    "without_request",
]


# Said to the assistant, not about the user: a question, a request, an introduction to pasted
# text ("it's from the team's newsletter:"), a reaction. The user's facts are in statements.
NOT_ABOUT_USER = re.compile(
    r"[?？:：]\s*$|[?？]\s*[^\w\s]*$"
    r"|\b(?:can|could|would|will) (?:you|u)\b|\bhelp me\b|\bplease\b|\bpls\b"
    r"|^(?:(?:ok|okay|so|now|and|also|then|first)[, ]+)?(?:write|plan|make|give|tell|show|find|"
    r"suggest|recommend|explain|translate|draft|summari[sz]e|list|fix|create|generate|convert|"
    r"rewrite|check|review|compare|send|book|add|put|move|shift|set|schedule|quiz|teach)"
    r" (?:me|us|it|this|that|these|a|an|the|my|our|some)\b"
    # A reaction, unless the user's own news follows it ("ok I'm doing a surprise dinner...").
    r"|^(?:lol|haha|ok|okay|cool|nice|great|thanks|thank you|thx|sure|yes|yeah|yep|no|nope|hmm)\b"
    r"(?![\s,.!]*(?:(?:so|and|but|btw|anyway)[\s,]+)?(?:i|i'm|im|i've|i'll|my|we're|we've)\b)"
    # Something asked of the assistant by what it is to write ("need a gluten free meal prep
    # plan for the week", "i need a toast for my sister's wedding").
    r"|^(?:(?:ok|okay|so|hi|hey|also)[, ]+)?(?:i )?(?:need|want|looking for) (?:a|an|some|the|"
    r"\d+|two|three) (?:[\w'-]+ ){0,5}?(?:plan|list|recipe|recipes|email|message|script|template|"
    r"name|names|ideas?|summary|outline|draft|letter|caption|toast|speech|itinerary|schedule|"
    r"workout|routine|menu|checklist|cover letter|bio|post|text|reply|response|prompt)s?\b"
    # (Alone: "i need a bio for my website, i'm a photographer in bristol" goes on to say who
    # the user is, and is read whole.)
    r"(?! (?:is|was|has|are)\b)(?=[^,;，；]*$)"
    r"|帮我|帮忙|麻烦你?|请你?|你能|能不能|可不可以|给我(?![妈爸们家哥姐弟妹老爷奶外婆公儿女])|把这|翻成|推荐|在线等"
    r"|^(?:知道|好的|好吧|行|嗯|哈哈|卧槽|可以了|收到|谢谢|感谢)",
    re.I,
)


def too_short(said: str) -> bool:
    """Fewer than four words, or six Chinese characters: a reply, not a memory."""
    return len(re.findall(r"[A-Za-z0-9]+", said)) + len(CJK_RE.findall(said)) // 2 < 4


# A question asked without a question mark, or one inside a longer sentence ("38k seems high??
# what should I push back on", "有没有办法把长代码从手机发到电脑上").
ASKS = re.compile(
    r"^(?i:(?:(?:ok|okay|so|now|and|also|then|btw|anyway|hmm|right)[, ]+)*(?:how|what|why|where|"
    r"which|who|any tips|any ideas|anything|any way|any good|simplest way|best way|is there|"
    r"are there)\b)"
    # The same after the standpoint it is asked from ("as a type 1 diabetic what snacks are
    # safe", "for my 6 year old which bike size", "in pandas how do i pivot").
    r"|^(?i:(?:as an? [\w' -]{2,40}?|for (?:my|our|a|an) [\w' -]{2,30}?|in [\w.+#-]+),?\s+"
    r"(?:what|how|where|which|is there|are there|should i|can i|do i|is it)\b)"
    r"|[?？]|^(?:有没有|有啥|怎么|咋|为啥|为什么|是不是|要不要|能否|哪里|哪个|哪家|如何)|(?:吗|么|呢|来着)[。！!~～]?$"
    r"|为啥|为什么|会不会|能不能|是不是|要不要|有没有|咋整|咋办|怎么办|怎么弄|怎么回事"
    r"|多久|多长时间|多远|几个小时|多少钱|哪(?:趟|班|款|种|位|一个|一家|一款)|哪里好|哪儿好|去哪"
    # A question word closing the sentence, with or without its mark ("销户要注意啥。", "35 寸
    # 行李箱多大", "答辩 PPT 有什么要注意的").
    r"|(?:啥|什么|多大|多少|多重|多高|多长|几点|哪些|咋样|怎么样)[的呀啊呢]?[。！!~～]?$"
    r"|有什么(?:要|需要|好|可以|值得|推荐|建议)",
)


# How people say a taste: a liking, a dislike, a habit of choosing ("I can't stand", "I'd
# rather", "I tend to go for", "受不了", "更愿意", "吃不了").
TASTE = re.compile(
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
        c for c in clauses if _NOTE.search(c) or not (NOT_ABOUT_USER.search(c) or ASKS.search(c))
    ]
    if not kept:
        return said
    return (
        " ".join(kept).rstrip(",，;；")
        if not CJK_RE.search(said)
        else "".join(kept).rstrip("，,;；")
    )


_LEAD_IN_EN = re.compile(
    r"^(?:(?:also|and|so|oh|btw|by the way|actually|well|ok|okay|hi|hello|hey|big news"
    r"|quick one|fyi|heads up|just so you know|fwiw)[,:! ]+)+",
    re.I,
)


_LEAD_IN_ZH = re.compile(r"^(?:另外|还有|对了|顺便(?:说一下|提一句)?|其实|嗯|你好)[，, ]*")


# A request to the assistant tacked on after a comma ("..., please remind me", "，记得提醒我").
_TRAILING_REQUEST = re.compile(
    r"[,;]\s*(?:(?:so |and )?(?:can|could) you |please |pls |and )*(?:remind me|let me know|"
    r"ping me|tell me)\b[^.!?]*[.!?]?$|[，,；]\s*(?:记得|请|麻烦)?(?:你)?提醒(?:我|一下)[^。！？]*[。！？]?$",
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


def past(said: str) -> bool:
    """True when the sentence opens as a story of what happened (its first clause)."""
    return bool(_PAST.search(re.split(r"[,，;；:：]", said, maxsplit=1)[0].strip()))


def own_taste(said: str) -> bool:
    """True when ``said`` gives a taste of the user's own ("I can't stand crowds", "我最讨厌人
    挤人"), not someone else's ("面试官很喜欢问系统设计")."""
    for match in TASTE.finditer(said):
        if not CJK_RE.match(match.group(0)[:1]):
            return True  # the English wordings hold their subject ("I", "we", "my")
        clause = re.split(r"[，,。！？!?；;]", said[: match.start()])[-1]
        # "我家柯基最近不爱吃" is the dog's taste: "我家", "我的" own, they do not like.
        if clause == "" or re.search(r"我(?![们家的])[^，。]{0,6}$", clause):
            return True
    return False


def without_request(said: str) -> str:
    """``said`` without a request to the assistant that opens it, when anything is left."""
    rest = _REQUEST_FIRST.sub("", said, count=1).strip()
    return rest if len(rest) >= 4 else said


def clean(text: str) -> str:
    """The text without quotes, lead-ins ("Hi, ...", "By the way, ...", "另外，...") and a
    request tacked on at the end."""
    text = text.strip(" \t\"'“”「」")
    text = _LEAD_IN_ZH.sub("", _LEAD_IN_EN.sub("", text))
    return _TRAILING_REQUEST.sub("", text).strip() or text
