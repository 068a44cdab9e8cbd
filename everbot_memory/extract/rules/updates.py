"""What a sentence does to what is already known: asks to forget it, or says it changed.

People rarely say "forget that the user ...". They say "you can drop the marathon stuff",
"that note about me being vegan, get rid of it", "学吉他那个事你忘了吧", "把我住址那条删了吧".
And a change comes in passing: "sold the Civic last weekend", "we moved the whole team off
Jira to Linear", "我已经从阿里离职了", "Notion 我已经不用了". Both are read the same way: a
sentence with the words of a request to forget (or of a change) names the known memory it
shares the most telling words with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.text import CJK_RE, search_tokens

__all__ = ["changed_memories", "forget_request"]

# Asked in words both the request and its wording must read: "stop keeping my weight on
# file" ("stop keeping score" keeps nothing of the user's); "能把那条删了不", asked of the
# memory, not told ("我把app删了") or asked of a post ("那条朋友圈可以删了吗").
_STOP_KEEPING = (
    r"(?:stop|quit) (?:keeping|saving|tracking|storing)(?= (?:my|that|this|it|those|these|what)\b)"
)
_DELETE_THAT_ZH = r"(?<!我)(?:能|可以|帮我|麻烦你?|你)把(?:那条|这条)(?:记录|信息)?删了"

_FORGET = re.compile(
    r"\b(?:forget|drop|delete|remove|erase|scrap|scratch|get rid of|ignore what|don'?t keep|"
    r"do not keep|stop remembering|don'?t remember|no need to remember|stop reminding me|nvm|"
    rf"{_STOP_KEEPING}|"
    r"don'?t save|"
    r"never ?mind|wipe|clear|purge|unlearn|don'?t hold on to|stop storing|don'?t store|"
    r"(?:don'?t|no) need to (?:keep|remember|store)|rather you didn'?t (?:remember|keep|store)|"
    # "you don't need my old address on file anymore".
    r"(?:don'?t|do not|no longer) need (?:my|the|that|this)\b[^.!?]{0,40}\b(?:on file|any ?more)|"
    # "can you just let it go?", "I'd rather that not be something you carry around", "can you
    # not keep my exact street address?".
    r"let (?:it|that|this|them) go|not (?:be )?something you (?:carry|keep|hold on to|store)|"
    r"(?:can|could) you not (?:keep|remember|store|save|hold on to))\b"
    # "不吃牛肉那条可以删了": the memory named by "那条"; "那条朋友圈可以删了吗" asks of a post.
    r"|(?:那条|这条)(?:记录|信息)?(?:就|也)?可以(?:删了|删掉|删除|去掉)(?!吗)|不用记着|别记着|不要再记|忘了吧|忘掉吧?|你忘了|你忘记|帮我忘|删了吧|删掉|删除|去掉|别记|不用记|不要记|先别记|当没听过|别存|不用存"
    r"|清掉|清除|清空|作废|抹掉|划掉|撤掉|拿掉|别留|不用留|不要留"
    rf"|{_DELETE_THAT_ZH}",
    re.I,
)
# The speaker forgetting something ("I always forget that coffee...", "我老是忘记...") asks
# nothing of the memory.
_SELF_FORGETTING = re.compile(
    # ("帮我忘掉吧", "你给我忘了" ask it of the memory.)
    r"\b(?:i|we)\b[^.!?]{0,20}\b(?:forget|forgot|forgets|forgetting)\b|(?<![帮给替让请])我[^，。！？]{0,4}忘",
    re.I,
)
# "remove the mold from the shower", "delete the old branch": a request about a thing in the
# world, not about a memory, names no memory and has none of these.
_ABOUT_MEMORY = re.compile(
    r"\b(?:thing|stuff|note|notes|memory|memories|that|what i said|about me|you(?:'ve)? got|"
    r"stop reminding me|"
    r"the whole thing|earlier|info|detail|details|entry|whatever you|"
    # "remove anything about Jake", "wipe anything you have about Jordan", "delete whatever
    # you had about him".
    r"(?:everything|anything|whatever)(?: you(?:'ve| have| had)? ?(?:have|had|got|know|knew|"
    r"saved|stored|kept|noted))? about|"
    r"all (?:of )?(?:that|it)|about (?:him|her|them|it)|bit|part|piece|line|one about|"
    # "pls forget my phone number", "nvm the peru trip, it's not happening".
    r"(?:forget|delete|drop|remove|erase|wipe|purge|clear) (?:about )?my|not happening|called off|cancell?ed|"
    r"is off|what you (?:have|know|keep)|about my|my \w+'s name|you(?:'ve)? stored|"
    # The assistant's record named as such: "on file", "你记的我家地址".
    r"on file|you(?:'ve)? (?:noted|saved|written down)|"
    # "you don't need to remember my old address anymore": what is kept, by its name.
    r"(?:don'?t|do not|no|never) need to (?:remember|keep|store|know)|"
    r"(?:stop|quit) (?:remembering|keeping|storing)|let (?:it|that) go|carry around|"
    r"not (?:keep|remember|store|save) (?:my|the|that|this))\b"
    r"|你(?:之前)?(?:记|存|记下|存下)的"
    r"|那个|那条|那些|这条|这个|的事|这事|那事|记录|说的|说过|名字|的信息|的资料|关于|"
    r"关于(?:他|她|它)",
    re.I,
)
# Words that say a value changed. Some say it of anything ("I left my umbrella", "I used to
# do it with loops"): those count only with a name the memory holds (see _value_words).
_CHANGE = re.compile(
    r"\b(?:moved|move[ds]? (?:to|from|off)|quit|sold|cancel(?:l)?ed|switched|switching|"
    r"no longer|not anymore|never going back|instead of|replaced|gave up|retired|graduated|"
    r"defended|divorced|broke up|off \w+ (?:to|onto))\b"
    r"|搬|离职|辞职|离开了?|从\w{1,8}出来了|换了|换成|改用|再也不|迁到|迁移|卸了|不再|不用了|已经不|调到|"
    r"调去|转到|放弃|退了|不吃素|分手|离婚了|离了婚|已经离婚|办完离婚|领了离婚证"
    # "跟小雅分了" opening a clause ("房租跟小雅分了", "披萨我跟小雅分了" share a thing).
    r"|(?:^|[\s，,。！!])(?:我|已经|最近|刚|刚刚|上个?月|上周|前几天|去年)?(?:跟|和)[\u4e00-\u9fff]{1,4}分了"
    r"(?=$|[\s，,。！!~]|啊|呀|哈|吧)",
    re.I,
)
_WEAK_CHANGE = re.compile(
    r"\b(?:left|stopped|any ?more|now (?:at|in|with|using|on)|from \w+ to|goodbye|used to)\b"
    r"|送[给我]",
    re.I,
)


# Said to the assistant about what it keeps: "you can drop...", "please forget...", "把…删了吧",
# "…你忘了吧", "别记…": an imperative, not a story.
_REQUEST = re.compile(
    # (After words that only lead in: "oh and actually forget...", "first, forget that...",
    # "one more thing: please delete...".)
    r"^(?:(?:oh|ok|okay|and|also|so|hey|btw|actually|anyway|anyways|wait|um+|hmm+|yeah|first|"
    r"second|third|lastly|finally|one more thing|last thing|two things|oh and|and also)[,:.;! ]+)*"
    r"(?:please |pls |just |can you |could you |you can |you could |go ahead and |"
    r"i (?:want|need) you to |i'?d like you to )*(?:forget|drop|delete|remove|erase|scrap|scratch|"
    r"get rid of|ignore|don'?t keep|do not keep|stop remembering|stop reminding|nvm|never ?mind|"
    r"wipe|clear|purge|unlearn|don'?t hold on to|stop storing|don'?t store|"
    rf"{_STOP_KEEPING}|"
    r"don'?t save)\b"
    r"|\b(?:you can|you could|please|pls|can you|could you)\b.{0,40}\b(?:forget|drop|delete|"
    r"remove|erase|get rid of|ignore|don'?t keep|wipe|clear|purge|unlearn|don'?t hold on to|"
    r"stop (?:keeping|saving|tracking|storing)|quit (?:keeping|saving|storing))\b"
    r"|\b(?:you (?:don'?t|do not)|no) need to (?:keep|remember|store)\b"
    r"|\byou (?:don'?t|do not|no longer) need (?:my|the|that|this)\b"
    r"|\b(?:i'd|i would) rather you didn'?t (?:remember|keep|store)\b"
    r"|\b(?:can|could) you (?:just )?(?:let (?:it|that|this|them) go|not (?:keep|remember|store|save))\b"
    r"|\bnot (?:be )?something you (?:carry|keep|hold on to|store)\b"
    r"|,\s*(?:get rid of|delete|drop|forget|remove|scratch|scrap|wipe|erase|bin) it\b"
    # "that job hunting thing i mentioned, scratch it": the memory named, then dropped ("too
    # salty, scratch that, way too salty" only corrects what was just said).
    r"|\b(?:thing|stuff|bit|mentioned|told you|said)(?: earlier| before)?,?\s+"
    r"(?:scratch|scrap|forget|delete|drop|remove) (?:it|that)\b"
    rf"|{_DELETE_THAT_ZH}"
    r"|吧|可以删|可以去掉|不用记着|别记着|不要再记|别记|不用记|不要记|先别记|当没听过|别存|不用存|删掉|删除|去掉|作废|清掉|清除|抹掉|别留|不用留|不要留",
    re.I,
)


_SCRIPT_CHANGE = re.compile(
    rf"(?<=[0-9A-Za-z])(?={CJK_RE.pattern})|(?<={CJK_RE.pattern})(?=[0-9A-Za-z])"
)


def _telling(text: str) -> set[str]:
    """The words that tell a memory apart: search tokens without single CJK characters."""
    # "12月考研" is a number and a word: apart, "考研" is shared with "那个考研的事".
    text = _SCRIPT_CHANGE.sub(" ", text)
    return {t for t in search_tokens(text) if len(t) > 1 or not CJK_RE.match(t)}


def _value_words(text: str) -> set[str]:
    """The words of ``text`` that name something: a capitalized word not opening the sentence,
    a Latin word in Chinese text, a number."""
    names = set()
    chinese = bool(CJK_RE.search(text))
    for match in re.finditer(r"[A-Za-z][\w'.+-]*|\d[\d.:]*", text):
        word = match.group(0)
        opening = match.start() == 0 or text[: match.start()].rstrip().endswith((".", "!", "?"))
        if word[0].isdigit() or chinese or (word[0].isupper() and not opening):
            names.update(search_tokens(word))
    return names


def _alike(words: set[str], others: set[str]) -> set[str]:
    """The words of ``words`` found in ``others``, or there with another ending of the same
    stem ("allergy" and "allergic": "allergi", "allerg")."""
    shared = words & others
    for word in words - shared:
        if len(word) < 5 or not word.isascii():
            continue
        for other in others:
            common = next(
                (i for i, (a, b) in enumerate(zip(word, other, strict=False)) if a != b),
                min(len(word), len(other)),
            )
            if common >= 5 and min(len(word), len(other)) - common <= 1:
                shared.add(word)
                break
    return shared


def _best(
    said: str, known: Sequence[tuple[str, str]], least: int, names: bool = False
) -> list[str]:
    """Ids of the known memories sharing the most telling words with ``said`` (at least
    ``least``, or one name with ``names``); several only when they tie."""
    words = _telling(said)
    named = _value_words(said)
    scored = []
    for entry_id, content in known:
        shared = _alike(words, _telling(content))
        # A name either side writes as one ("switched from emacs" retires "uses Emacs").
        if len(shared) >= least or (names and shared & (named | _value_words(content))):
            scored.append((len(shared), entry_id))
    top = max((n for n, _ in scored), default=0)
    return [entry_id for n, entry_id in scored if n == top and n > 0]


def forget_request(said: str, known: Sequence[tuple[str, str]], before: str = "") -> str | None:
    """The id of the known memory ``said`` asks to forget, if it asks and one stands out;
    ``before`` is the sentence said just before, which "that whole thing" may point back to
    ("stop reminding me about the gym. just delete that whole thing")."""
    found = _forget_request(said, known)
    if found is None and before and _FORGET.search(said) and _POINTS_BACK.search(said):
        found = _forget_request(f"{before} {said}", known)
    return found


# Words that point back at what was just said.
_POINTS_BACK = re.compile(
    r"\b(?:that|it|this|those|these|him|her|them)\b|那个|那条|这个|这条|这事|那事|他|她", re.I
)


def _forget_request(said: str, known: Sequence[tuple[str, str]]) -> str | None:
    if not known or not _FORGET.search(said) or not _ABOUT_MEMORY.search(said):
        return None
    if _SELF_FORGETTING.search(said):
        return None
    asked = _REQUEST.search(said)
    if not asked:
        return None
    # What an English request names after its verb comes first: "forget that i told you i'm
    # job hunting, my manager uses this laptop" asks of the job hunt, whatever the reason
    # after it names. (A Chinese one names it before: "心理咨询那个你别记了 瑜伽的留着".)
    clause = _CLAUSE_END.split(said[asked.end() :], maxsplit=1)[0]
    chinese = bool(CJK_RE.search(said))
    if not chinese and _POINTING_ONLY.match(clause):
        # "actually forget that, let's plan the japan trip instead": what was just said is
        # taken back, not a memory named after it. Only what stands before may be meant
        # ("stop reminding me about the gym. just delete that whole thing").
        said = said[: asked.start()]
        if not said.strip():
            return None
        clause = ""
    elif not chinese and _LED_IN.match(said) and not _NAMES_A_MEMORY.search(clause):
        # After "first", "actually", "anyway": only a request that says it is about what the
        # assistant keeps ("first, forget that i told you ...", "forget what i said about ...");
        # "ok first forget the rust stuff, just help me with this bug" drops a topic.
        return None
    first = () if chinese or not clause.strip() else (clause,)
    for text in (*first, said):
        ids = _best(text, known, 2, names=True) or _best(text, known, 1) or _by_topic(text, known)
        if len(ids) > 1:
            # Memories alike in words: the one of the topic named ("stop keeping my weight on
            # file" between "weighs 210 pounds" and "trying to lose weight").
            ids = [i for i in _by_topic(text, known) if i in ids] or ids
        if len(ids) == 1:
            return ids[0]
    return None


# A request's object that only points back: "forget that", "scratch that idea".
_POINTING_ONLY = re.compile(
    r"\s*(?:it|that|this|those|these|all (?:of )?(?:that|it)|that (?:idea|one|part|bit|thing)|"
    r"(?:that|the) (?:whole|last) (?:thing|part|bit|one)|what i (?:just )?said)?\s*$",
    re.I,
)
# Words that only lead in, which a forget request did not open with before.
_LED_IN = re.compile(
    r"^(?:(?:oh|ok|okay|and|also|so|hey|btw)[,:.;! ]+)*(?:actually|anyway|anyways|wait|um+|hmm+|"
    r"yeah|first|second|third|lastly|finally|one more thing|last thing|two things)\b",
    re.I,
)
# What says a request is about what the assistant keeps.
_NAMES_A_MEMORY = re.compile(
    r"\b(?:what|that|everything|anything|whatever) (?:i|i've) (?:said|told|mentioned|shared)|"
    r"\bi (?:told|mentioned)\b|\babout (?:my|me|the)\b|\bmy\b|\bon file\b|"
    # "forget that i'm planning the peru trip": a fact of the user's, named.
    r"^\s*that (?:i|i'm|im|i am|i've|i was|i had|i have)\b|"
    # ("forget everything you know about react and explain hooks" asks for a fresh start.)
    r"\byou (?:have|saved|stored|noted|kept)\b",
    re.I,
)


# Where the clause of a request ends: its reason or an aside follows.
_CLAUSE_END = re.compile(r"[,;.!?，；。！？]|\s(?:but|because|cause|cuz|since|so)\s", re.I)


# What a request names by its topic, and how a memory of that topic says it: "my address"
# is the memory where the user lives, "我前女友的事" the one of their girlfriend.
_TOPICS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (
        re.compile(r"\b(?:address|where i live|home)\b|住址|地址|住哪", re.I),
        re.compile(
            r"\b(?:lives?|living|based|resides?) (?:in|at)\b|\baddress\b|住在|家在|地址", re.I
        ),
    ),
    (
        re.compile(r"\b(?:job|employer|workplace|company)\b|工作|公司|单位", re.I),
        re.compile(r"\bworks? (?:at|for|as)\b|\bemployed\b|工作|上班|任职", re.I),
    ),
    (
        re.compile(
            r"\b(?:ex|girlfriend|boyfriend|partner|wife|husband)\b|女朋友|男朋友|女友|男友|对象"
            r"|前任|前夫|前妻",
            re.I,
        ),
        re.compile(
            r"\b(?:girlfriend|boyfriend|partner|wife|husband)\b|女朋友|男朋友|女友|男友|对象"
            r"|前任|前夫|前妻",
            re.I,
        ),
    ),
    (
        re.compile(r"\b(?:phone|number)\b|电话|手机号|号码", re.I),
        re.compile(r"\bphone\b|\bnumber\b|电话|手机号|号码", re.I),
    ),
    (
        re.compile(r"\bbirthday\b|生日", re.I),
        re.compile(r"\bbirthday\b|\bborn\b|生日|出生", re.I),
    ),
    (
        re.compile(r"\bweight\b(?!\s*-?\s*(?:loss|goal))|\bweigh\b|体重", re.I),
        re.compile(
            r"\bweighs?\b|\b\d+\s*(?:pounds|lbs?|kg|kilos)\b|体重\s*\d|\d+\s*(?:斤|公斤)", re.I
        ),
    ),
    (
        re.compile(
            r"\b(?:salary|income|pay|paycheck|wage|wages)\b|工资|薪水|薪资|月薪|年薪|收入", re.I
        ),
        re.compile(
            r"\b(?:salary|income|earns?|paid|makes \$?\d)\b|工资|薪水|薪资|月薪|年薪|收入", re.I
        ),
    ),
    (
        re.compile(r"\b(?:health|medical|diagnosis)\b|病|健康|诊断", re.I),
        re.compile(r"\b(?:diagnosed|allerg\w*|condition|medication)\b|病|过敏|确诊|吃药", re.I),
    ),
]


def _by_topic(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of the known memories of the topic ``said`` names, when one topic is named, in
    the language of ``said``."""
    topics = [memory for asked, memory in _TOPICS if asked.search(said)]
    if len(topics) != 1:
        return []
    chinese = bool(CJK_RE.search(said))
    return [
        entry_id
        for entry_id, content in known
        if topics[0].search(content) and bool(CJK_RE.search(content)) == chinese
    ]


# Facts with one value at a time. A tool is named from a list of values ("moved to neovim"
# retires "uses VS Code", "the new Pixel" an "iPhone 13", though they share no word); a home
# or an employer is named after its verb ("lives in X", "works at X"), and a move or a new
# job that does not name X again retires it ("we moved here in the spring").
_TOOLS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (  # the phone
        re.compile(
            r"\b(?:iphone|pixel|galaxy|android|oneplus|xiaomi|huawei)\b|小米|华为|苹果手机|安卓",
            re.I,
        ),
        re.compile(
            r"\b(?:new|switched|switching|got|bought|moved to|never going back|upgraded)\b"
            r"|换了|换成|新买|入手|送[给我]|换到",
            re.I,
        ),
    ),
    (  # the editor
        re.compile(
            r"\b(?:vs ?code|vim|neovim|nvim|emacs|cursor|pycharm|intellij|sublime|webstorm|zed|"
            r"helix|xcode|eclipse)\b",
            re.I,
        ),
        re.compile(
            r"\b(?:switched|switching|moved to|moving to|now (?:on|using|use)|gave up|"
            r"never going back)\b|换成|换到|改用|换了|迁到|卸了",
            re.I,
        ),
    ),
]
# The phone carrier: one at a time ("携号转网到联通了", "ditched vodafone for giffgaff").
_CARRIERS = (
    r"\b(?:vodafone|giffgaff|tesco mobile|sky mobile|verizon|at&t|t-mobile|mint mobile|telus|"
    r"koodo|optus|telstra|sfr|bouygues|telekom|movistar|jio|airtel|docomo|softbank)\b"
    # In Chinese only as a carrier: the full name, or beside a phone's words ("移动硬盘",
    # "电信诈骗", "网络联通性" are no carriers).
    r"|中国(?:移动|联通|电信|广电)|(?<=转网到)(?:移动|联通|电信|广电)"
    r"|(?:移动|联通|电信|广电)(?=的?(?:卡|号|套餐|手机号|流量))"
)
_TOOLS.append(
    (
        re.compile(_CARRIERS, re.I),
        re.compile(
            r"\b(?:switched|switching|moved (?:over )?to|ported|porting|ditched|now on|"
            r"signed up with)\b|携号转网|转网",
            re.I,
        ),
    )
)
_PLACES: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (  # the home
        re.compile(r"\b(?:lives? in|living in|based in)\s+([A-Z][\w'-]*)|(?:住在|家在)(\w{2})"),
        re.compile(
            r"\b(?:moved|relocated|moving) (?:here|back home|(?:back |over |up |down |out )?"
            r"(?:to|from) (?-i:[A-Z]))|\bjust moved\b|搬到|搬去|搬来|搬家",
            re.I,
        ),
    ),
    (  # the employer
        re.compile(r"\bworks? (?:at|for)\s+([A-Z][\w&'-]*)|在(\w{2}).{0,10}(?:工作|上班)"),
        re.compile(
            r"\b(?:joined|started at|new job at|(?:left|quit) (?-i:[A-Z])|laid off|resigned)\b"
            r"|离职|辞职|裸辞|跳槽|入职|被裁",
            re.I,
        ),
    ),
]


# Stages of life that end when a later one begins: a memory that names the earlier stage is
# over when the user speaks of the later one as theirs ("we're getting married next month"
# ends "single"; "since I defended in December" ends "a PhD student"). Someone else's wedding
# or graduation ("my sister got married") says nothing of the user's stage.
_ANIMAL = (
    r"(?:dog|puppy|pup|cat|kitten|beagle|terrier|retriever|corgi|husky|poodle|labrador|lab|"
    r"spaniel|collie|rabbit|bunny|hamster|parrot|budgie|rescue)"
)
_STAGES: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (  # without a partner
        re.compile(
            r"\b(?:single|not dating|no (?:partner|girlfriend|boyfriend))\b|单身|没有?对象", re.I
        ),
        re.compile(
            r"\b(?:(?:i|we)(?:'m|'re| am| are| got| get)? (?:engaged|married|getting married)|"
            r"(?:my|our) (?:wedding|fianc[ée]e?|wife|husband|girlfriend|boyfriend))\b"
            r"|(?<![友事学姐妹哥弟])(?:结婚|订婚|领证|婚礼)|我(?:老婆|老公|媳妇|女朋友|男朋友|对象)",
            re.I,
        ),
    ),
    (  # a student
        re.compile(
            r"\b(?:student|phd candidate|doctoral candidate|undergrad\w*)\b"
            r"|学生|在读|读研|读博|研究生",
            re.I,
        ),
        re.compile(
            r"\b(?:i|we)(?:'ve| have)? (?:graduated|defended|finished (?:my|the) (?:phd|degree|"
            r"master'?s|thesis))\b|\b(?:my|the) postdoc\b|\bsince (?:i )?(?:graduated|defended)\b"
            r"|\b(?:started )?my first (?:full-time |real )?job\b"
            r"|工作第一年|刚参加工作|参加工作|上班第一年"
            r"|我(?:已经)?(?:毕业|答辩完|博士后)|(?:^|[，,。！!\s])(?:终于|总算|已经)?毕业了"
            r"|(?:学生|研究生|读书)生涯(?:终于|总算)?结束",
            re.I,
        ),
    ),
    (  # out of work, until a job comes
        re.compile(
            r"\b(?:unemployed|out of work|between jobs|laid off|looking for (?:a )?(?:new )?(?:job|work)|"
            r"job[- ]?hunting|job[- ]?seeking)\b|失业|待业|在找工作|找工作中|没工作",
            re.I,
        ),
        re.compile(
            r"(?:^|\b(?:i|we) )(?:finally |just |officially )?(?:got|landed|accepted|signed) "
            r"(?:the|a|my|an) (?:new )?(?:job|offer|role|position)\b|\bgot hired\b"
            r"|拿到(?:了)?offer|收到(?:了)?offer|找到工作|入职了|(?:下周|下个月|明天)入职",
            re.I,
        ),
    ),
    (  # no spice, until the user takes to it
        re.compile(
            r"不吃辣|吃不了辣|不能吃辣|怕辣|不太能吃辣|\b(?:can't|cannot|doesn't|don't) (?:handle|eat|do) spic",
            re.I,
        ),
        re.compile(
            r"离不开辣|爱上了?(?:吃)?辣|无辣不欢|(?<!希望)(?<!希望自己)(?<!想)能吃辣了|特辣|重辣|变态辣|越来越能吃辣|"
            r"(?:顿顿|天天)[^，。]{0,4}辣"
            r"|清汤[^，。]{0,6}吃不下|\b(?:can|could) (?:now )?(?:handle|eat) (?:really |super )?spicy\b"
            r"|\b(?:love|crave|into) (?:really |super )?spicy (?:food|stuff)? ?now\b",
            re.I,
        ),
    ),
    (  # no pets, until one comes home
        re.compile(
            r"\bno pets?\b|\b(?:doesn't|does not|don't) have (?:a |any )?pets?\b|没有?养(?:过)?(?:宠物|猫|狗)|没养宠物",
            re.I,
        ),
        re.compile(
            rf"\b(?:our|my) (?:new |rescue |little )*{_ANIMAL}\b(?![\w'’-]| (?:allerg|sitt|walk|food|"
            rf"hair|park|friendly|person|lover|loving|bed|toys?\b))|"
            rf"\b(?:brought|bring) (?:\w+ )?home\b[^.!?]{{0,20}}\b{_ANIMAL}|"
            rf"\b{_ANIMAL} we (?:brought home|adopted|got|took in)\b|\b(?:i|we) adopted (?:a|our|my|(?-i:[A-Z]))"
            r"|家里的(?:猫|狗|布偶|英短|橘猫|柯基|金毛|泰迪|柴犬|哈士奇|比熊|兔子)|我家(?:猫|狗|主子)|领养了|新养的|养了(?:一)?只",
            re.I,
        ),
    ),
    (  # engaged, until the wedding
        re.compile(r"\b(?:engaged|fianc[ée]e?)\b|订婚|未婚夫|未婚妻", re.I),
        re.compile(
            r"\b(?:(?:back|home|returned) from (?:the|our) honeymoon|on our honeymoon|"
            r"(?:we|i) (?:just )?got married|just married|newlyweds?|married life|"
            r"since (?:the|our) wedding|(?:my|our) (?:wife|husband))\b"
            r"|(?:度完|度了|刚度完?|度完了)蜜月|蜜月回来|(?:在|去[^，。！？]{0,6})度蜜月|(?:我们?|我俩)[^，。！？]{0,4}(?:领证了|结婚了)|新婚|"
            r"我(?:老婆|老公|媳妇)",
            re.I,
        ),
    ),
    (  # married
        re.compile(
            r"\b(?:is married|married to|has a (?:wife|husband)|spouse)\b|已婚|有老婆|有老公", re.I
        ),
        re.compile(
            r"\b(?:(?:i|we)(?:'m|'re| am| are| got| have| had)? (?:divorced|separated)|the divorce|"
            r"my divorce|my ex-?(?:wife|husband))\b|(?<![母妈爸])离婚|离异",
            re.I,
        ),
    ),
    (  # without meat
        re.compile(r"\b(?:vegan|vegetarian|pescatarian|plant-based)\b|吃素|素食", re.I),
        re.compile(
            r"\b(?:started|start|starting|back to|began|begun) eating (?:meat|fish|chicken|beef|"
            r"pork|seafood|steak|burgers|eggs|dairy)\b|\beat(?:ing)? (?:meat|fish|chicken|beef|"
            r"pork|seafood|steak) again\b|开始吃(?:肉|鱼|荤)|又(?:开始)?吃(?:肉|荤)|开荤|不吃素了|不再吃素"
            # A habit broken on purpose: "made salmon for the first time in like 8 years".
            r"|\b(?:made|cooked|had|ate|eating|eat|ordered) (?:\w+ ){0,2}(?:fish|salmon|tuna|cod|"
            r"shrimp|prawns|seafood|chicken|meat|steak|beef|pork|bacon)\b[^.!?]{0,30}\bfirst time in\b",
            re.I,
        ),
    ),
]


# "my sister is getting married", "我朋友结婚": the later stage is someone else's.
_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our) (?:\w+ )?(?:friend|coworker|colleague|boss|brother|sister|cousin|son|daughter|"
    r"neighbou?r|roommate|parents|mom|mum|dad)'?s?\b[^.!?]{0,30}\b(?:married|engaged|wedding|graduat\w+|"
    r"defend\w+|divorc\w+|separat\w+)"
    r"|(?:朋友|同事|同学|闺蜜|兄弟|哥们|室友|邻居|领导|老板|姐姐?|妹妹?|哥哥?|弟弟?|表[哥姐弟妹]|堂[哥姐弟妹]|"
    r"儿子|女儿|父母|爸妈)[^，。！？]{0,6}(?:结婚|订婚|领证|毕业|离婚|蜜月)",
    re.I,
)


# A partner of the user's own, named as theirs: not single, whatever the sentence plans.
_PARTNER = re.compile(
    r"\b(?:my|our) (?:fianc[ée]e?|wife|husband|girlfriend|boyfriend)\b"
    r"|\b(?:i'?m|i am|been|started|i've been) (?:dating|going out with) (?-i:[A-Z])[a-z]+"
    r"|我(?:的|和|跟)?(?:老婆|老公|媳妇|女朋友|男朋友|对象|未婚妻|未婚夫)"
    # "跟男朋友在一起三个月了": the user and the partner, no 我 said.
    r"|(?:^|[，,。！\s])(?:跟|和)(?:老婆|老公|媳妇|女朋友|男朋友|对象)(?:在一起|谈|同居|领证|结婚|订婚)",
    re.I,
)


# A partner the user is no longer with ("broke up with my girlfriend", "和女朋友分手了").
_BROKE_UP = re.compile(
    r"\b(?:broke up|split up|separated|my ex)\b|分手|分了|前女友|前男友|前妻|前夫", re.I
)


# The user and their partner parted, said as a clause of its own ("we broke up last month",
# "nah we split up in march, all good", "我们分手了") or with the partner's name ("跟小敏已经分
# 了", "I broke up with Chloe"). "we split up in groups of three", "we broke up for lunch",
# "房租跟室友分了", "我舅舅离婚了" part nothing of the user's.
_WHEN_PARTED = (
    r"(?: (?:last (?:week|month|year|summer|spring|fall|autumn|winter|night)|in (?:jan|feb|mar|apr|"
    r"may|jun|jul|aug|sep|oct|nov|dec)\w*|(?:a|two|three|a few|a couple of) (?:days?|weeks?|"
    r"months?|years?) ago|recently|a while (?:ago|back)))?"
)
_PARTED = re.compile(
    r"(?:^|[,.;!?]\s*)(?:(?:so|well|yeah|nah|but|and|ok|anyway|actually),? )*(?:we|me and \w+) "
    rf"(?:(?:finally|officially|just) )?(?:broke up|split up|split|separated){_WHEN_PARTED}"
    r"(?=\s*(?:[,.;!?]|$|and\b|but\b|so\b))"
    r"|\b(?:i(?:'m| am| got)?|we(?:'re| are| got)?) (?:getting )?divorced\b"
    r"|(?:^|[，,。！!\s])(?:我们|我俩)(?:已经|上个月|刚|早就)?(?:分手了|离婚了|分了)(?=[，,。！!\s]|$)",
    re.I,
)
# How a memory names the user's partner, and the partner's name after it.
_PARTNER_EN = r"(?:girlfriend|boyfriend|partner|fianc[ée]e?|wife|husband)"
_PARTNER_ZH = r"(?:女朋友|男朋友|女友|男友|对象|未婚[夫妻]|老婆|老公)"
_PARTNER_MEMORY = re.compile(rf"\b{_PARTNER_EN}\b|{_PARTNER_ZH}", re.I)
_PARTNER_NAME = re.compile(
    rf"\b{_PARTNER_EN}(?: is| named| called)? (?-i:([A-Z][a-z]+))"
    rf"|{_PARTNER_ZH}(?:叫|是)([\u4e00-\u9fff]{{1,3}})",
    re.I,
)


def _parted(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories of the user's partner, when ``said`` says they parted."""
    if _SOMEONE_ELSES.search(said):
        return []
    ids = []
    for entry_id, content in known:
        if not _PARTNER_MEMORY.search(content) or re.search(r"\bex\b|前任|前女友|前男友", content):
            continue
        if bool(CJK_RE.search(content)) != bool(CJK_RE.search(said)):
            continue  # a memory in the other language is about whoever it names
        named = _PARTNER_NAME.search(content)
        name = re.escape(named.group(1) or named.group(2)) if named else None
        if _PARTED.search(said) or (
            name
            and re.search(
                rf"\b(?:i broke up with|i split (?:up )?with|i left|i dumped) {name}\b"
                rf"|\b{name} (?:and i (?:broke up|split up|separated)|broke up with me|dumped me|left me)\b"
                rf"|(?:跟|和){name}(?:已经|早就|上个月|刚)?(?:分手|分了|离婚)",
                said,
                re.I,
            )
        ):
            ids.append(entry_id)
    return ids


def _partner_changes(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories that the user is single, when ``said`` names their partner."""
    if not _PARTNER.search(said) or _SOMEONE_ELSES.search(said) or _BROKE_UP.search(said):
        return []
    single = _STAGES[0][0]
    return [i for i, content in known if single.search(content) and not _PARTNER.search(content)]


def _stage_changes(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories of a stage of life that ``said`` says is over."""
    return [
        entry_id
        for stage, later in _STAGES
        if later.search(said) and not _SOMEONE_ELSES.search(said)
        for entry_id, content in known
        if stage.search(content) and not later.search(content)
    ]


def _slot_changes(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known single-valued facts that ``said`` gives another value of."""
    ids = []
    lowered = said.casefold()
    for values, change in _TOOLS:
        if not change.search(said):
            continue
        new = {m.group(0).casefold().replace(" ", "") for m in values.finditer(said)}
        for entry_id, content in known:
            old = {m.group(0).casefold().replace(" ", "") for m in values.finditer(content)}
            if old and new - old:
                ids.append(entry_id)
    chinese = bool(CJK_RE.search(said))
    for place, change in _PLACES:
        if not change.search(said):
            continue
        for entry_id, content in known:
            match = place.search(content)
            value = match and (match.group(1) or match.group(2))
            # Only a memory in the words of the sentence: "搬到北京" says nothing of "London".
            same_language = bool(CJK_RE.search(content)) == chinese
            if value and same_language and value.casefold() not in lowered:
                ids.append(entry_id)
    return ids


# A change only wished, planned, weighed or asked about ("thinking about switching to Emacs",
# "I might move to Denver", "要不要搬去深圳") changes nothing yet.
_UNSURE = re.compile(
    r"\b(?:should (?:i|we)|shall (?:i|we)|thinking (?:of|about)|considering|consider|might|"
    r"maybe|perhaps|whether|if|plan(?:ning)? to|want(?:s|ed)? to|wanna|hoping to|hope to|"
    r"going to|gonna|would|could|(?<!\bin )(?<!\bof )(?<!\bby )(?<!\buntil )may(?! \d)|tempted|about to|dream(?:ing)? of|wish|someday|one day|"
    r"worth|(?<!i )suppose|supposing|imagine|hypothetically|let's say|parallel universe|dreamt|dreamed|"
    r"role-?play)\b"
    # "不想折腾配置" is a taste, not a wish for a change.
    r"|(?<![不理思感])想(?!起|到|法)|打算|考虑|准备|要不要|是否|如果|假如|要是|计划|可能|也许|万一|会不会|的话"
    r"|假设|希望|梦见|梦到",
    re.I,
)
# Someone else as the subject of the clause ("my sister just moved to Boston", "我朋友搬到成都
# 了"), unless the user is in it too ("my wife and I moved", "我和老婆搬到了杭州").
_OTHER_SUBJECT = re.compile(
    r"^(?:\W*\w+\W+){0,2}?(?:he|she|they|(?:my|our) (?:\w+ )?(?:friend|friends|coworker|"
    r"co-worker|colleague|boss|manager|brother|sister|cousin|parents?|mom|mum|dad|mother|father|"
    r"son|daughter|neighbou?r|roommate|flatmate|aunt|uncle|grandma|grandpa|in-laws|kid|kids|lead|"
    r"team ?mate|classmate|wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)s?)\b"
    # (他 in a word is no "he": "吉他暂时不练了", "其他的".)
    r"|^[^，,。]{0,4}?(?:(?<![吉其利])他(?:们)?|她(?:们)?|(?:我|我的)?(?:朋友|同事|领导|老板|妹妹?|姐姐?|哥哥?|弟弟?|"
    r"爸爸?|妈妈?|父母|室友|邻居|同学|表[哥姐弟妹]|堂[哥姐弟妹]|儿子|女儿|老公|老婆|媳妇|男朋友|女朋友))",
    re.I,
)
_CLAUSES = re.compile(
    r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|[，,]\s*|\s+(?:but|and then)\s+"
    # Chinese chat marks a pause with a space ("转到 vscode 了 年纪大了不想折腾配置").
    r"|(?<=[了啦吧呢])\s+|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|[\U0001F300-\U0001FAFF]+\s*"
    r"|(?<=\S)\s+(?=(?:what|how|why|where|which|who|any)\s+(?:\w+\s+)?(?:i|we|you|it|the|my|"
    r"our|tips|ideas)\b)",
    re.I,
)
_YES_NO = re.compile(
    r"^(?:(?:so|and|ok|okay|hmm|also)[, ]+)?(?:should|shall|would|could|can|do|does|did|is|are|"
    r"will|am|was|were|have|has)\b[^.!]*\?\s*$|[吗么]\W*$",
    re.I,
)
_WITH_USER = re.compile(r"\b(?:and I|and me|me and|I and)\b|[和跟]我(?!的)|我[和跟]", re.I)


# A condition or a wish: what it names may not be so ("if I had a girlfriend", "希望有个对象").
_IMAGINED = re.compile(
    r"\b(?:if|unless|whether|would|wish|hope|hoping|might|maybe|perhaps|someday|one day|"
    r"want(?:s|ed)? (?:a|an|to)|(?<!i )suppose|supposing|imagine|hypothetically|let's say|"
    r"parallel universe|dreamt|dreamed|role-?play)\b|如果|假如|要是|万一|的话|希望|想要|想找|假设|梦见|梦到",
    re.I,
)


def _own_statements(said: str, plans: bool = False) -> str:
    """The clauses of ``said`` that state something of the user's as so: without the ones
    that ask, plan, wish or weigh, and the ones about someone else. With ``plans``, a plan
    is kept: what it says of the user's life now still holds ("going to Rome with my
    girlfriend" says the user has one)."""
    kept = []
    for clause in _CLAUSES.split(said):
        text = (clause or "").strip()
        # A question that asks whether ("should I move to Berlin?", "搬去深圳好吗") states
        # nothing; one that asks how or what ("how do I move my codes to the new Pixel?")
        # takes the change as so.
        if not text or _YES_NO.search(text):
            continue
        if (_IMAGINED if plans else _UNSURE).search(text):
            continue
        if _OTHER_SUBJECT.search(text) and not _WITH_USER.search(text):
            continue
        kept.append(text)
    joiner = "，" if CJK_RE.search(said) else ", "
    return joiner.join(kept)


# A value said to be the one now, or changed to ("standup moved to 10am", "we're on Python
# 3.12 now", "站会改到十点了"), and a thing said to be over ("not vegetarian anymore", "I
# stopped drinking coffee", "我现在不喝咖啡了", "戒烟了").
_NOW_CHANGED = re.compile(
    r"\b(?:now|these days|moved to|changed to|went (?:up|down) to|bumped (?:up )?to|raised to|"
    r"dropped to|turned|switched|is \w+ now|since (?:the|we|i|our|they|last)|from now on|"
    r"this (?:term|semester|quarter|season))\b|现在|如今|改到|改成|改为|变成|涨到|降到|换到|换成|"
    r"迁到|调到|升到|成了|今年|这学期|这个学期|从这周|从下周|以后|归我",
    re.I,
)
_NO_MORE = re.compile(
    r"\bno longer\b|\bnot\b[^.,;!?]{0,30}\bany ?more\b|\b(?:don't|do not|never)\b[^.,;!?]{0,30}"
    r"\bany ?more\b|\bstopped (?!by\b)\w+ing\b|\bquit\b|\bgave up\b|\bgot rid of\b|\bsold\b|"
    r"\bbroke up\b|\bsplit up\b|\bpassed away\b|\bdied\b|\bput (?:him|her|it) down\b|"
    r"\brehomed\b|去世|过世|走了|没了|不再|戒了|戒掉|没再|卖了|分手|不[\u4e00-\u9fff]{1,3}了|不用再|再也不用"
    # "after 9 years vegetarian I've started eating fish again": the years are over.
    r"|\bafter \w+ (?:years?|months?)(?: of| as(?: an?)?)? (?=.*\b(?:again|now|started|switched|"
    r"quit|stopped|no longer|gave up)\b)",
    re.I,
)
# Words too common to say two sentences speak of the same thing.
_GENERIC = frozenset(
    [
        "user",
        "now",
        "day",
        "week",
        "month",
        "year",
        "time",
        "thing",
        "stuff",
        "lot",
        "way",
        "peopl",
        "everi",
        "today",
        "also",
        "just",
        "realli",
        "still",
        "start",
        "get",
        "got",
        "go",
        "went",
        "make",
        "use",
        "one",
        "two",
        "like",
        "new",
        "old",
        "good",
        "well",
        "back",
        "work",
        "用户",
        "现在",
        "我们",
        "每天",
        "时候",
        "一个",
        "没有",
        "已经",
        "了",
        "今年",
    ]
)
_TIME = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s?(?:am|pm)\b|\b\d{1,2}:\d\d\b|[\d一二两三四五六七八九十]{1,3}点(?:半|\d+分?)?"
    r"|(?<=\bat )\d{1,2}\b(?![\d.,%])",
    re.I,
)
_MONEY = re.compile(
    r"[$€£¥]\s?\d[\d,.]*k?|\b\d[\d,.]*k?\s?(?:dollars|euros|pounds|bucks)\b|\d+(?:块|元|万)"
)
_VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?\b")
_COUNT = re.compile(
    r"(?<![\d.:])(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"[一二两三四五六七八九十]+)\s?(?!\d)([a-z]+|[\u4e00-\u9fff])?",
    re.I,
)
_AGE = re.compile(
    r"\b(?:i'm|i am|i just turned|i turned|turned|is) (\d{1,2})(?: years old| now| today| this year|$)"
    r"|(\d{1,2}) years old|今年(\d{1,2})(?:岁)?了?|(\d{1,2})岁",
    re.I,
)


# A level written as a letter and a number ("P6", "L5", "T3"): the same letter with another
# number, said as reached, is the level now ("升 P7 了", "made L6 in March").
_LEVEL = re.compile(r"(?<![A-Za-z0-9])([A-Z])(\d{1,2})(?![A-Za-z0-9])")


# A day of the week, as its number: a weekly thing moved to another day ("这学期周四下午归我接
# 娃了" and "每周三下午负责接孩子").
_WEEKDAY = re.compile(
    r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?s?\b"
    r"|(?:周|星期|礼拜)[一二三四五六日天]",
    re.I,
)
_WEEKDAY_NUMBER = {
    **{name: n for n, name in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"), 1)},
    **{c: n for n, c in enumerate("一二三四五六日", 1)},
    "天": 7,
}


def _weekdays(text: str) -> set[str]:
    days = set()
    for match in _WEEKDAY.finditer(text):
        word = match.group(0).casefold()
        key = word[-1] if CJK_RE.search(word) else word[:3]
        if key in _WEEKDAY_NUMBER:
            days.add(str(_WEEKDAY_NUMBER[key]))
    return days


def _values(text: str) -> dict[str, set[str]]:
    """The values ``text`` holds, by kind: times, sums, versions, ages, and counts of a thing
    ("12 people", "three kids", "8个人"), each count keyed by what it counts."""
    found: dict[str, set[str]] = {}
    rest = text
    for kind, pattern in (
        ("time", _TIME),
        ("money", _MONEY),
        ("version", _VERSION),
        ("code", _LEVEL),
    ):
        for match in pattern.finditer(rest):
            found.setdefault(kind, set()).add(re.sub(r"\s", "", match.group(0).casefold()))
        rest = pattern.sub(" ", rest)
    days = _weekdays(rest)
    if days:
        found["weekday"] = days
        rest = _WEEKDAY.sub(" ", rest)
    for match in _AGE.finditer(rest):
        found.setdefault("age", set()).add(next(g for g in match.groups() if g))
    rest = _AGE.sub(" ", rest)
    for match in _COUNT.finditer(rest):
        unit = match.group(2) or ""
        if unit.casefold() in ("", "and", "or", "of", "a", "the", "in", "to", "now", "a"):
            if match.group(1).isdigit() and len(match.group(1)) >= 3:
                found.setdefault("amount", set()).add(match.group(1))  # "rent went up to 2400"
            continue
        unit = search_tokens(unit)[0] if search_tokens(unit) else unit
        found.setdefault(f"count:{unit}", set()).add(match.group(1).casefold())
    return found


def _frame(text: str) -> set[str]:
    return {t for t in _telling(text) if t not in _GENERIC and not re.search(r"\d", t)}


# Words too common in Chinese to name the thing given up.
_FUNCTION_WORDS_ZH = frozenset(["用户", "现在", "已经", "我们", "这个", "那个", "一下", "可以"])
# Characters too common in Chinese to say two sentences speak of the same thing.
_FUNCTION_CHARS = set("的了是在我你他她们用户有不也就都还和跟把被给这那个一上下来去要会能说")


def _shares(clause: str, content: str) -> bool:
    """True when ``clause`` and ``content`` speak of the same thing: a telling word in common,
    or, in Chinese, two telling characters ("交房租" and "租房住")."""
    if _frame(clause) & _frame(content):
        return True
    if CJK_RE.search(clause) and CJK_RE.search(content):
        chars = set(CJK_RE.findall(clause)) & set(CJK_RE.findall(content))
        return len(chars - _FUNCTION_CHARS) >= 2
    return False


_REACHED = re.compile(r"升|\b(?:promoted|promo|promotion|made|reached|now)\b", re.I)
# "从 C1 升到 B2", "from Jenkins to GitHub Actions": the value before is the old one.
_FROM_TO = re.compile(r"(?:\bfrom|从)\s*\S+?\s*(?=\bto\b|[升换改转迁调]?到)", re.I)
# Said to be left: a known value named after one of these ("handed in my notice at
# deloitte", "moved out of Leeds", "switched from Jira"), by slot: leaving a town is said
# otherwise than leaving a job ("I left Boston at 6am" is a trip).
_LEAVING = {
    "home": re.compile(
        r"\b(?:moved (?:away )?from|moved out of|relocated from)\b|搬离|从(?=\S{0,8}?搬)", re.I
    ),
    "employer": re.compile(
        r"\b(?:left|quit|handed in (?:my )?notice|resigned(?: from)?|last day (?:at|was)|"
        r"laid off (?:from|at|by))\b|离职|辞职|离开|从(?=\S{0,8}?(?:离职|辞职|出来|跳槽))",
        re.I,
    ),
    "role": re.compile(
        r"\b(?:stepped down (?:as|from)|no longer (?:a|an|the)|quit being|gave up being|"
        r"not (?:a|an|the) (?=\w+(?: \w+)? any ?more))|不当|不再是|不再当|卸任",
        re.I,
    ),
    "tool": re.compile(
        r"\b(?:ditched|dumped|abandoned|binned|stopped using|no longer use|"
        r"dropped|switched (?:away )?from|migrated (?:\w+ )?(?:from|off)|moved off|"
        r"off of|quit|gave up(?: on)?|uninstalled)\b|卸了|弃用|从(?=\S{0,12}?(?:转|换|迁|改))",
        re.I,
    ),
}


def _value_changes(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories about the same thing as a clause of ``said`` that gives it another
    value now ("standup moved to 10am" and "standup is at 9:30"), or says it is over ("not
    vegetarian anymore" and "is vegetarian")."""
    ids = []
    for clause in re.split(r"[，,;；]|\s+(?:but|so)\s+", said):
        over, now = _NO_MORE.search(clause), _NOW_CHANGED.search(clause)
        if not (over or now or _REACHED.search(clause)):
            continue
        if over and _SOMEONE_ELSES.search(clause[: over.start()]):
            continue  # "my sister quit yoga": someone else's
        # "Sarah quit yoga" is Sarah's; "Biscuit passed away" ends the memory of Biscuit.
        who = _NAME_BEFORE.search(clause[: over.start()]) if over else None
        values = _values(_FROM_TO.sub(" ", clause))
        levels = {m.group(0) for m in _LEVEL.finditer(clause)} if _REACHED.search(clause) else set()
        for entry_id, content in known:
            if who and who.group(0).strip(" ,;").casefold() not in content.casefold():
                continue
            held = _values(content)
            old_levels = {m.group(0) for m in _LEVEL.finditer(content)}
            if (
                any(a[0] == b[0] and a != b for a in levels for b in old_levels)
                and not levels & old_levels
            ):
                ids.append(entry_id)  # "升 P7 了" and "职级是 P6"
                continue
            if "age" in values and "age" in held and not values["age"] & held["age"]:
                ids.append(entry_id)  # "I'm 35 now" and "is 34 years old": said of no thing
                continue
            # "sold my old bike" says nothing of the bike the user rides now.
            if not _shares(clause, content) or re.search(
                r"\b(?:old|previous|former|spare|extra|second)\s+\w+", clause, re.I
            ):
                continue
            if over:
                # The thing over is named after the word that says so ("stopped drinking
                # coffee", "sold my Corolla"), or before it ("vegetarian anymore").
                ids.append(entry_id)
                continue
            if any(
                kind in held
                and not (new & held[kind])
                and (kind != "weekday" or _same_activity(clause, content))
                for kind, new in values.items()
            ):
                ids.append(entry_id)
    return ids


# Words of when, which two weekly things share whatever they are ("每周三下午接孩子" and
# "每周五加班").
_WHEN_WORDS = re.compile(
    r"(?:每|这|下|上)?(?:周|星期|礼拜)[一二三四五六日天]?|每天|下午|上午|早上|晚上|中午|开始|从|以后"
    r"|\b(?:every|each|on|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|"
    r"morning|afternoon|evening|night|weekly|week|starting|from)\b",
    re.I,
)


def _same_activity(clause: str, content: str) -> bool:
    """True when a weekly thing said in ``clause`` is the one ``content`` holds: they share
    what is done, not only when."""
    return _shares(_WHEN_WORDS.sub(" ", clause), _WHEN_WORDS.sub(" ", content))


_LEFT_OBJECT = re.compile(
    r"^\s*(?:(?:my|the|our|old)\s+)*(?:(?:job|role|position|post|gig|team|notice|company|"
    r"place|flat|apartment|house)\s+)?(?:at|with|from|in|for|of)?\s*(?:the\s+)?$"
    r"|^[^\sA-Za-z]{0,4}$",
    re.I,
)


def _left_values(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories whose single value (a home, an employer, a tool) a clause of
    ``said`` names as left, in any case ("handed in my notice at deloitte", "搬离南京")."""
    from .slots import slot_values  # the slots' words, loaded with the extractor

    ids = []
    for clause in re.split(r"[，,;；]", said):
        for entry_id, content in known:
            for slot, value in slot_values(content):
                cue = _LEAVING.get(slot, _LEAVING["tool"]).search(clause)
                if slot == "manager" and re.search(
                    rf"(?<![\w]){re.escape(value)}(?:['’]s| has| had| just| finally)*\s+(?:left|quit|"
                    rf"retired|resigned|moved on|is gone|got fired|was let go)\b",
                    clause,
                    re.I,
                ):
                    ids.append(entry_id)  # "Priya left last week": the manager is no more
                    break
                if slot == "employer" and not cue:
                    # "Siemens let me go": the employer named before the words that say so.
                    cue = re.search(
                        rf"{re.escape(value)}\s+(?:let me go|laid me off|fired me|made me redundant)",
                        clause,
                        re.I,
                    )
                    if cue:
                        ids.append(entry_id)
                        break
                if not cue or slot in ("name", "manager"):
                    continue
                after = clause[cue.end() :].casefold()
                name = value.casefold().strip()
                found = (
                    re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", after)
                    if name.isascii()
                    else re.search(re.escape(name), after)
                )
                # The value is what was left, right after the words that say so ("left
                # Deloitte", "notice at deloitte", "从阿里离职"), not a thing left there
                # ("left my laptop at Google's office").
                if (
                    len(name) >= 2
                    and found
                    and _LEFT_OBJECT.match(after[: found.start()])
                    # "switched from Notion's web app": a part of it was left.
                    and not re.match(r"(?:'s|’s)\s+\w", after[found.end() :])
                ):
                    ids.append(entry_id)
                    break
    return ids


# A thing given up, by the word after the words that say so ("finally ditched vodafone for
# giffgaff", "cancelled my Netflix", "gave up on Duolingo"): whatever no slot knows.
_GAVE_UP = re.compile(
    r"\b(?:ditched|dumped|abandoned|binned|stopped using|no longer use|switched (?:away )?from|"
    r"cancel(?:l)?ed|unsubscribed from|gave up(?: on)?|uninstalled|moved off(?: of)?|quit)\s+"
    r"(?:(?:my|the|our|using)\s+)?(?P<thing>[A-Za-z][\w&'’-]{2,})",
    re.I,
)
# A memory that holds the thing as the user's now: in use, on, with, subscribed, a member.
_HOLDS_NOW = re.compile(
    r"\b(?:uses?|using|is on|has|pays? for|subscribe[sd]? to|is a member of|is with|banks with|"
    r"drinks?|eats?|plays?|learns?|is learning|goes to|takes?)\b",
    re.I,
)


# A person named right before the words ("Sarah quit yoga"), not a word opening the sentence.
_NAME_BEFORE = re.compile(
    r"(?:^|[\s,;])(?!(?:Finally|Just|So|Also|Ok|Okay|Well|And|But|Then|Today|Yesterday|Lol|Ugh|"
    r"Honestly|Actually|Officially|Recently|Last|We|I|Oh|Yeah|Yes|Btw)\b)(?-i:[A-Z])[a-z]+\s+$"
)
# Once, not for good: "cancelled the gym class today", "这周末的聚会不去了".
_ONE_OFF = re.compile(
    r"\b(?:today|tonight|this (?:morning|afternoon|evening|week|weekend|time)|for now|"
    r"just once)\b|今天|今晚|这次|这周末|这个周末|明天|下次|这回",
    re.I,
)
# Someone else's thing, named before it: "孩子的钢琴", "我老公的健身卡".
_OTHERS_ZH = re.compile(
    r"(?:孩子|儿子|女儿|娃|老公|老婆|对象|他|她|同事|朋友|室友|我妈|我爸|爸妈)的"
)
# The same in Chinese, the thing named before the words: "日语先放一放了", "健身房不去了",
# "Netflix 已经退订了".
_GAVE_UP_ZH = re.compile(
    r"(?P<thing>[\u4e00-\u9fffA-Za-z]{2,8}?)\s*(?:先|就|暂时|已经|都|也|最近|现在|目前)*"
    r"(?:放一放|放放|放下了|搁置了|不学了|不用了|不去了|不玩了|不练了|停了|戒了|退订了|退了|取消了|卸了|弃了)"
)
_HOLDS_NOW_ZH = re.compile(r"在学|学习|在用|使用|用的|用了|订了|订阅|会员|常去|在练|每周|每天|喜欢")


def _given_up(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories that hold as the user's now a thing ``said`` says was given up,
    named right after the words that say so (not a part of it: "Notion's web app"), or, in
    Chinese, right before them."""
    ids: list[str] = []
    if _ONE_OFF.search(said):
        return ids  # "cancelled the gym class today": once, not for good
    for match in _GAVE_UP_ZH.finditer(said):
        thing = match.group("thing")
        if re.match(r"^(?:这个|那个|这|那)", thing) or _OTHERS_ZH.search(
            said[: match.start("thing") + 4]
        ):
            continue  # "这个方案先放一放", "孩子的钢琴先放一放"
        # The thing is the end of what stands before the words ("公司要派我去德国 日语" ->
        # "日语"): the longest end of two characters or more that a known memory holds.
        for entry_id, content in known:
            if not _HOLDS_NOW_ZH.search(content) or re.search(r"以前|之前|曾经", content):
                continue
            ends = (thing[k:] for k in range(len(thing) - 1))
            if any(end in content for end in ends if end not in _FUNCTION_WORDS_ZH):
                ids.append(entry_id)
    for match in _GAVE_UP.finditer(said):
        thing = match.group("thing").casefold().rstrip("'’")
        if thing in _GENERIC or re.match(r"['’]s\s", said[match.end() :]):
            continue
        if _SOMEONE_ELSES.search(said[: match.start()]) or _NAME_BEFORE.search(
            said[: match.start()]
        ):
            continue  # "Sarah quit yoga": someone else gave it up
        if re.match(r"\s+to\s+\w", said[match.end() :]) or re.search(
            r"\b(?:the|this|that)\s+$", said[match.start() : match.start("thing")]
        ):
            continue  # "quit Chrome to free up RAM", "cancelled the Uber": one use of it
        for entry_id, content in known:
            if (
                re.search(rf"(?<![\w-]){re.escape(thing)}(?![\w-])", content, re.I)
                and _HOLDS_NOW.search(content)
                and not re.search(r"\bused to\b", content, re.I)
            ):
                ids.append(entry_id)
    return ids


# The language the user is answered in: one at a time. A request for another one ("from now
# on reply in Chinese", "以后用英文回答我") retires the known one; a text to translate or to
# write for someone else says nothing of it.
_LANGUAGES = {
    "english": re.compile(r"\benglish\b|英文|英语", re.I),
    "chinese": re.compile(r"\b(?:chinese|mandarin)\b|中文|汉语|普通话", re.I),
    "japanese": re.compile(r"\bjapanese\b|日语|日文", re.I),
    "german": re.compile(r"\bgerman\b|德语", re.I),
    "french": re.compile(r"\bfrench\b|法语", re.I),
    "spanish": re.compile(r"\bspanish\b|西班牙语", re.I),
}
_ANSWERED = re.compile(
    r"\b(?:repl(?:y|ies|ied)|respon(?:d|ds|ses?)|answers?|talk to me|speak to me|write to me|"
    r"chat with me)\b|回复|回答|答复|跟我说|和我说|跟我聊|和我交流|跟我交流",
    re.I,
)


def _languages(text: str) -> set[str]:
    return {name for name, pattern in _LANGUAGES.items() if pattern.search(text)}


def _answer_language_changes(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories of the language the user is answered in, when ``said`` asks
    for another one."""
    if not _ANSWERED.search(said) or re.search(r"\btranslat\w*|翻译", said, re.I):
        return []
    new = _languages(said)
    if len(new) != 1:
        return []
    return [
        entry_id
        for entry_id, content in known
        if _ANSWERED.search(content) and _languages(content) and not new & _languages(content)
    ]


# A tool said as the one in use now, for a purpose a known memory names with another tool
# ("I do all my budgeting in YNAB now" and "tracks their budget in a Google Sheet"): the
# words of the present, and not of one used beside the other ("also", "too").
_IN_USE_NOW = re.compile(
    r"\b(?:now|these days|nowadays|instead|switched|moved (?:\w+ ){0,3}(?:to|onto|into)|"
    r"migrated|ditched|replaced)\b",
    re.I,
)
_BESIDE = re.compile(r"\b(?:also|too|as well|alongside|in addition|both)\b", re.I)
_USE_WORDS = frozenset(["use", "using", "uses", "used", "do", "keep", "run", "manag", "track"])


def _tool_changes(said: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of known memories of the tool used for a purpose, when a clause of ``said`` names
    another tool for that purpose as the one in use now (names written as names: "YNAB",
    "Todoist"; in Chinese text, Latin words)."""
    ids = []
    for clause in re.split(r"[.!?;。！？；]", said):
        if not _IN_USE_NOW.search(clause) or _BESIDE.search(clause):
            continue
        names = _value_words(clause)
        if not names:
            continue
        words = _telling(clause) - names - _GENERIC - _USE_WORDS
        for entry_id, content in known:
            held = _value_words(content)
            if not held or held & names:
                continue  # no tool named, or the same one
            purpose = _telling(content) - held - _GENERIC - _USE_WORDS
            if _alike(words, purpose):
                ids.append(entry_id)
    return ids


def changed_memories(said: str, known: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Ids of the known memories ``said`` says are no longer so ("sold the Civic")."""
    from .slots import denied  # the slots' words, loaded with the extractor

    if not known or denied(said):
        return ()
    # Asked of the assistant, a language to be answered in is a request, not a plan.
    # A partner named as the user's own ("我男朋友说要给我惊喜") is so whoever speaks in the
    # sentence: it is read in all of it.
    partnered = _partner_changes(said, known)
    partnered += _answer_language_changes(said, known)
    whole, said = said, _own_statements(said)
    if not said:
        return tuple(partnered)
    ids = partnered + (
        _slot_changes(said, known)
        + _stage_changes(said, known)
        + _value_changes(said, known)
        + _left_values(said, known)
        + _given_up(said, known)
        + _tool_changes(said, known)
        + _named_as_before(said, known, whole)
        + _parted(said, known)
    )
    if _CHANGE.search(said):
        # In Chinese a name is a character pair like any other ("阿里", "上海"): with a word
        # that surely says a change (离职, 搬, 改用, 不再), one shared pair is enough, in the
        # clause that says it ("杭州周末有啥好看的展吗，上个月刚从上海搬过来" retires the home
        # in 上海, not the weekend exhibitions).
        least = 1 if CJK_RE.search(said) else 2
        clauses = [c for c in re.split(r"[，,;；]", said) if _CHANGE.search(c)]
        contents = dict(known)
        ids += [
            entry_id
            for entry_id in _best(" ".join(clauses) or said, known, least, names=True)
            if not _kept_within(said, contents[entry_id])
        ]
    elif _WEAK_CHANGE.search(said) and not _TRIP.search(said):
        # "left Shopify": the name is what was left, right after the word ("left my laptop at
        # Google's office" and "left Boston at 6am" leave nothing for good).
        cue = _WEAK_CHANGE.search(said)
        assert cue is not None
        ids += _best(said[cue.start() :], known, 99, names=True)
    contents = dict(known)
    return tuple(
        entry_id
        for entry_id in dict.fromkeys(ids)
        if entry_id in partnered or not _named_as_now(whole, contents.get(entry_id, ""))
    )


# A value named as the one now, or come to ("后来才换成Python", "switched to Python", "used to
# hate VS Code but now I love it"): the memory holding it is confirmed, not replaced.
_TO_NOW = re.compile(
    r"(?:\b(?:switched|moved|changed|migrated|went|converted|ported \w+) (?:over )?to"
    r"|\bnow (?:i )?(?:use|using|love|prefer|on|with|at)|\bused to (?:hate|dislike|avoid|not like|fear)"
    r"|\b(?:new|got (?:a|an|the)|bought (?:a|an|the)|now (?:have|has|own))"
    r"|换成|换到|改用|改成|转到|转成|切到|切成|换了|现在(?:主要|也|还|都)?用)\s*(?:the |a |an )?$",
    re.I,
)


def _named_as_now(said: str, content: str) -> bool:
    """True when ``said`` names a value of the known memory ``content`` as the one now."""
    lowered = said.casefold()
    for value in _values_named(content, said):
        for found in re.finditer(re.escape(value.casefold()), lowered):
            if _TO_NOW.search(lowered[: found.start()]):
                return True
    return False


# A known value named as the one of before: "miss my old civic", "back when I was at
# PureGym", "kevin's gone, I report to Rachel now", "haven't written a line of Java since",
# "我在乐刻那会儿", "以前做测试那会儿", "python都半年没碰了", "王哥调走了", "招行那张以后就没用了".
# Each frame alone is said of many things still so ("Kevin's gone for the week", "之前在北京
# 见过他", "my old MacBook died so I got a new MacBook Pro"): the sentence must also say that
# something changed (_CHANGED_NOW).
_BEFORE_EN = re.compile(
    r"(?:\bback when (?:i|we) (?:lived|worked|trained|drove|coded|was (?:at|in|with|working|living|"
    r"based|training)|were (?:at|in|with|living|based))\b[^,.;!?]{0,12}?"
    r"|\bused to (?:work|live|use|drive|code|train|bank)\b(?: \w+)?? (?:at |in |with |for |on )?"
    r"|\bmy (?:old|former|previous|ex-?) ?|\bmiss(?:ing)? my old "
    r"|\bhaven't (?:touched|used|written|coded|opened|driven)\b(?: (?:a|an|any|in|"
    r"line|lines|of|the|single|one|bit))*\s|\bswitched (?:away )?from |\bmoved (?:away )?from "
    r"|\binstead of |\bported (?:\w+ ){0,4}?from |\bgave up (?:on )?|\bditched (?:my )?)$",
    re.I,
)
# Said of the value itself (a manager moved on), whoever speaks.
_GONE = re.compile(
    r"^(?:'s|’s| is) (?:gone|no more|history)(?=[,.;!]|$| and| now| so)"
    r"|^ (?:got|was|has been) (?:transferred|reassigned|moved to another team)\b"
    r"|^[^，,。！？!?；;\s]{0,2}?(?:调走了|离职了|停机了)",
    re.I,
)
_BEFORE_ZH = re.compile(r"(?:以前|之前|曾经|从前)(?:在|用|做|当|住在?|开)$")
_AFTER_ZH = re.compile(
    r"^[^，,。！？!?；;\s]{0,10}?(?:跑路了|离职了|停机了|停用了|不用了|没用了|没碰了|没碰过|注销|销掉|销户|卖掉了|卖了"
    r"|搬走了|不干了|退会了)"
)
# "我在乐刻那会儿": where the user was, back then.
_WAS_AT_ZH = re.compile(r"(?:在|用|做)$")
_THEN_ZH = re.compile(r"^[^，,。！？!?；;\s]{0,2}?(?:那会儿|那时候|那阵子)")
# A visit, or a thing done once ("之前在北京见过他", "之前用Python写过一个爬虫").
_ONCE_ZH = re.compile(
    r"^[^，,。！？!?；;\s]{0,4}?(?:开会|出差|面试|参观|培训|交流|吃饭|玩|见|拜访|过)"
)
# What says that something changed, in the sentence.
_CHANGED_NOW = re.compile(
    r"\b(?:now|new|switched|switching|moved|since|ported|migrated|report to|reporting to|"
    r"any ?more|these days|nowadays|replaced|took over)\b"
    r"|现在|如今|新的|新号|换了|换成|改成|改用|改发|转了|转到|转开发|切了|全切|切到|搬到|搬来|跳槽|入职|不再",
    re.I,
)
# Words two Chinese sentences share that name no value.
_NO_VALUE_ZH = frozenset(
    ["用户", "现在", "工作", "公司", "喜欢", "每天", "时候", "一个", "这个", "那个", "我们", "自己"]
)
# Capitalized words that name nothing by themselves.
_NO_VALUE_EN = frozenset(
    ["New", "Old", "The", "My", "Mr", "Mrs", "Ms", "Dr", "St", "North", "South"]
)


def _values_named(content: str, said: str) -> set[str]:
    """The values a known memory holds that ``said`` names: its slots' values, its names and
    numbers, in Chinese the character runs both share (abbreviations too: 招商银行, 招行)."""
    from .slots import slot_values  # the slots' words, loaded with the extractor

    values = {value for _, value in slot_values(content)}
    values |= {
        m.group(0)
        for m in re.finditer(r"\b[A-Z][\w+#.-]*[\w+#]", content)
        if m.start() > 0
        and not content[: m.start()].rstrip().endswith((".", "!", "?"))
        and m.group(0) not in _NO_VALUE_EN
    }
    if CJK_RE.search(content) and CJK_RE.search(said):
        values |= set(re.findall(r"[A-Za-z][\w+#.-]*[\w+#]", content))
        for run in re.findall(f"[{CJK_RE.pattern[1:-1]}]{{2,}}", content):
            for size in range(min(len(run), 4), 1, -1):
                for i in range(len(run) - size + 1):
                    part = run[i : i + size]
                    if (
                        part in said
                        and part not in _NO_VALUE_ZH
                        and "用户" not in part
                        and part[0] not in _FUNCTION_CHARS
                        and part[-1] not in _FUNCTION_CHARS
                    ):
                        values.add(part)
        values |= {bank[0] + "行" for bank in re.findall(r"[\u4e00-\u9fff]{2}(?=银行)", content)}
    return {v for v in values if len(v) >= 2 and v.casefold() not in ("the user", "user")}


def _named_as_before(said: str, known: Sequence[tuple[str, str]], whole: str = "") -> list[str]:
    """Ids of known memories whose value the user's own statements ``said`` name as the one
    of before, or ``whole`` (all the sentence) names as gone, when it also says something
    changed."""
    if _TRIP.search(said) or not _CHANGED_NOW.search(whole or said):
        return []
    said = f"{said} {whole}" if whole else said
    ids = []
    lowered = said.casefold()
    for entry_id, content in known:
        if re.search(r"\bused to\b|\bformer|以前|之前|曾经|原来", content, re.I):
            continue  # already a memory of before
        values = _values_named(content, said)
        if any(
            re.search(
                rf"(?:还在|仍在|依然在|还是在|\bstill (?:at|in|with|on|use|using|drive|driving) )"
                rf"{re.escape(value.casefold())}",
                lowered,
            )
            for value in values
        ):
            continue  # "之前在阿里的时候…现在还在阿里": still so
        if any(_named_before(said, lowered, value, whole) for value in values):
            ids.append(entry_id)
    return ids


def _named_before(said: str, lowered: str, value: str, whole: str) -> bool:
    """True when ``said`` names ``value`` as the one of before."""
    folded = value.casefold()
    pattern = (
        rf"(?<![A-Za-z0-9]){re.escape(folded)}(?![A-Za-z0-9])"
        if folded.isascii()
        else re.escape(folded)
    )
    chinese = bool(CJK_RE.search(said))
    for found in re.finditer(pattern, lowered):
        before, after = said[: found.start()], said[found.end() :]
        # A part of a longer name or of a thing ("Stripe's first hackathon", "Berlin-Mitte",
        # "Apple Watch"), a visit or a thing done once ("之前在阿里开会", "用Python写过").
        if re.match(r"(?:'s|’s)\s+(?!gone|no more|history)\w|-\w|\s+[A-Z]", after):
            continue
        if chinese and _ONCE_ZH.match(after):
            continue
        own = found.start() < len(said) - len(whole) - 1 if whole else True
        if _GONE.search(after):
            return True
        if not own:
            continue
        if _BEFORE_EN.search(before):
            return True
        if chinese and (
            _BEFORE_ZH.search(before)
            or _AFTER_ZH.search(after)
            or (_WAS_AT_ZH.search(before) and _THEN_ZH.search(after))
        ):
            return True
    return False


def _kept_within(said: str, content: str) -> bool:
    """True when ``said`` names a value the known memory holds as the one the change stays
    inside ("switched teams inside Google", "在腾讯内部转到微信支付团队", "still at Acme"): a
    change within it, not away from it."""
    lowered = said.casefold()
    for word in _telling(said) & _telling(content):
        if len(word) < 2 or word == "user":
            continue
        w = re.escape(word)
        if re.search(
            rf"\b(?:inside|within|still (?:at|in|with|on)|same)\s+(?:the\s+)?{w}"
            rf"|{w}\w*\s*(?:内部|之内)|(?:还在|仍在|依然在|还是在){w}",
            lowered,
        ):
            return True
    return False


_TRIP = re.compile(
    r"\b(?:at \d|for the (?:day|night|weekend|week)|early|late|drove|flew|headed|this morning|"
    r"tonight|today)\b|\bleft (?:my|the|a|our) ",
    re.I,
)
