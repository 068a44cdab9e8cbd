"""How the rules word a memory: the user's voice turned into a sentence about the user.

"I check the dashboard" said by the user becomes "The user checks the dashboard."; "我的猫" becomes
"用户的猫". Each rule module builds its memories with these helpers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ...core.text import CJK_RE, CODE_SPAN_RE

__all__ = [
    "Rule",
    "about_the_user",
    "agreeing_rest",
    "corrected",
    "corrects_before",
    "joined_corrections",
    "sentence",
    "third_person",
    "verb_phrase",
    "zh_third_person",
]

#: A rule: (pattern, category or "explicit", importance, builds the memory from the match).
Rule = tuple[re.Pattern[str], str, str, Any]

# Words after "I" that are not verbs to inflect ("I always ...", "I am ...").
_NOT_VERBS = {
    "no",
    "is",
    "was",
    "has",
    "had",
    "will",
    "would",
    "can",
    "cannot",
    "shall",
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


# Verbs already in the past tense that do not end in "-ed" ("I forgot", "I went").
_PAST = frozenset(
    [
        # The same in the present, but said of the user in chat, nearly always done: "I quit
        # my job", "I finally quit smoking", "we split up".
        "quit",
        "split",
        "forgot",
        "went",
        "got",
        "had",
        "made",
        "took",
        "came",
        "saw",
        "knew",
        "thought",
        "told",
        "found",
        "gave",
        "left",
        "felt",
        "kept",
        "began",
        "ran",
        "wrote",
        "bought",
        "brought",
        "caught",
        "taught",
        "sold",
        "sent",
        "spent",
        "built",
        "lost",
        "met",
        "paid",
        "said",
        "stood",
        "understood",
        "won",
        "broke",
        "chose",
        "drove",
        "ate",
        "fell",
        "flew",
        "grew",
        "rode",
        "spoke",
        "stole",
        "swam",
        "threw",
        "woke",
        "wore",
        "did",
        "became",
        "heard",
        "held",
        "led",
        "meant",
        "slept",
        "sat",
        "shot",
        "fought",
        "dug",
        "hung",
        "lent",
        "sought",
        "swore",
        "tore",
        "wound",
    ]
)


# Words that may stand between "I" and its verb.
_ADVERBS = (
    "no longer|never|always|usually|often|sometimes|also|really|still|just|only|rarely|finally|"
    "already|mostly|normally|typically|generally|actually|basically|literally|honestly|even|"
    "hardly|barely|kind of|sort of|definitely|probably|mainly|primarily|regularly|occasionally|"
    "recently|now|then|first|"
    # Any other adverb in -ly ("I officially gave up"), not a verb ending so ("I apply").
    r"(?!(?:apply|reapply|reply|rely|supply|fly|multiply|comply|ally|bully|rally|tally|imply|"
    r"belly|family|italy|july|jelly|holly|lily|assembly|anomaly|monopoly|ply)\b)"
    r"[a-z]{2,}ly"
)


_AN_ADVERB = re.compile(f"(?:{_ADVERBS})$", re.I)


def _verb_s(match: re.Match[str]) -> str:
    word = match.group(2)
    lowered = word.lower()
    if (
        # An adverb before what cannot agree ("I genuinely can't", "I honestly don't care"):
        # the match gave up the adverbs to find a verb, and there is none to inflect.
        _AN_ADVERB.match(lowered)
        or lowered in _NOT_VERBS
        or lowered in _PAST
        or not word.isalpha()
        or (lowered.endswith("ed") and not lowered.endswith("eed"))
        # A chat abbreviation ("I wfh", "I dm them"): no vowel, no verb to inflect.
        or not re.search(r"[aeiouy]", lowered)
    ):
        return match.group(0)  # not a verb, or one in the past tense ("moved")
    if lowered == "have":
        inflected = "has"
    elif lowered.endswith(("s", "sh", "ch", "x", "z", "o")):
        inflected = word + "es"
    elif lowered.endswith("y") and lowered[-2:-1] not in "aeiou":
        inflected = word[:-1] + "ies"
    else:
        inflected = word + "s"
    return match.group(1) + inflected


def verb_phrase(text: str) -> str:
    """'check the dashboard' -> 'checks the dashboard' (the user is the subject)."""
    return re.sub(r"^()([A-Za-z]+)", _verb_s, third_person(text))


# The user and someone else as one subject ("my boss and I get along", "me and my brother run
# a bakery", "Jared and I"): the verb is theirs together, and stays as it is.
_COMPOUND = re.compile(
    r"(?P<at>^|[,;:] |\b(?i:yesterday|today|recently|lately|so|but|then|now|finally|also|and|"
    r"since|because|when) )"
    r"(?:(?P<x>(?i:my|our) (?:[\w-]+ ){0,2}?[\w-]+|(?-i:[A-Z])[a-z]+"
    # A name typed in lower case, opening the sentence ("tom and I split up").
    r"|(?<=^)(?!(?:so|and|but|yeah|yes|ok|okay|well|then|also|oh|um|now|me|you|he|she|it|we|they|"
    r"this|that|here|there|today|work|home)\b)[a-z]{3,})"
    r" and I\b(?!')"
    r"|(?i:me|I) and (?P<y>(?i:my|our) (?:[\w-]+ ){0,2}?[\w-]+|(?-i:[A-Z])[a-z]+)"
    r"(?= (?!and\b)[a-z]+))",
)


def _compound(clause: str) -> str:
    def joined(match: re.Match[str]) -> str:
        other = re.sub(r"^(?i:my) ", "their ", match.group("x") or match.group("y"))
        if re.fullmatch(r"[a-z]+", other):
            other = other.capitalize()
        return f"{match.group('at')}the user and {other}"

    return _COMPOUND.sub(joined, clause)


# Verbs a second predicate of the user's often opens with ("... and live in Leeds").
_SECOND_VERBS = (
    r"(live|work|love|like|hate|meet|run|use|need|want|teach|write|play|study|drive|own|speak|"
    r"prefer|enjoy|cook|manage|lead|help|spend|walk|commute|volunteer|coach|train|touch|read|"
    r"watch|eat|drink|keep|know|think|feel|miss|struggle|try|go|do|get|take|make|sleep|wake|"
    r"swim|hike|travel|stay)\b(?!')"
)
_SECOND_VERB = re.compile(
    rf"(\bI(?:'m|'ve| am| have)?\b(?:(?! to |[,;.!?]).)*? and (?:(?:{_ADVERBS}) )*)" + _SECOND_VERBS
)
_AND_VERB = re.compile(rf"^(and (?:(?:{_ADVERBS}) )*)" + _SECOND_VERBS)


def agreeing_rest(rest: str) -> str:
    """The rest of a clause whose subject a rule made "the user", a second verb of it
    agreeing ("and meet 20 people a week" -> "and meets 20 people a week")."""
    return _AND_VERB.sub(_verb_s, rest)


def third_person(clause: str) -> str:
    """'I ... my ...' said by the user, as a sentence about the user. Code quoted in backticks
    is kept as typed ("`for i in range(10)`" is no "the user")."""
    spans = CODE_SPAN_RE.findall(clause)
    if not spans:
        return _third_person(clause)
    pieces = iter(spans)
    rewritten = _third_person(CODE_SPAN_RE.sub("\ue000", clause))  # each span held by one mark
    return re.sub("\ue000", lambda m: next(pieces), rewritten)


def _third_person(clause: str) -> str:
    clause = clause.strip().rstrip(".!")
    # Typed in lower case ("i need podcast recs"), "i" is still the speaker; typed without
    # its apostrophe, "im" and "ive" are "I'm" and "I've".
    clause = re.sub(r"\bi\b(?=\s|'[a-z])", "I", clause)
    clause = re.sub(r"\b[Ii]m\b(?=\s)", "I'm", clause)
    clause = re.sub(r"\b[Ii]ve\b(?=\s)", "I've", clause)
    clause = _compound(clause)
    # An auxiliary after adverbs agrees too ("I still haven't" -> "the user still hasn't").
    clause = re.sub(
        rf"\bI ((?:(?:{_ADVERBS}) )+)(haven't|don't|have not|do not|am|have)\b",
        lambda m: (
            "I "
            + m.group(1)
            + {
                "haven't": "hasn't",
                "don't": "doesn't",
                "have not": "has not",
                "do not": "does not",
            }.get(m.group(2), {"am": "is", "have": "has"}.get(m.group(2), m.group(2)))
        ),
        clause,
    )
    # "I" as a subject, not after an auxiliary ("how do I filter" stays uninflected); the verb
    # may come after adverbs ("I no longer work" -> "the user no longer works").
    clause = re.sub(
        r"(?<!\bdo )(?<!\bdid )(?<!\bcan )(?<!\bwill )(?<!\bshould )(?<!\bwould )"
        rf"(?<!\bcould )(\bI (?:(?:{_ADVERBS}) )*)([A-Za-z]+)\b(?!')",
        _verb_s,
        clause,
    )
    # A second verb of the same subject agrees too ("I work at Acme and live in Leeds", "I'm
    # a nurse and work nights"), unless it goes with an infinitive ("I want to move and live").
    clause = _SECOND_VERB.sub(_verb_s, clause)
    replacements = [
        (r"\bI don't\b", "the user doesn't"),
        (r"\bI do not\b", "the user does not"),
        (r"\bI haven't\b", "the user hasn't"),
        (r"\bI have not\b", "the user has not"),
        (r"\bI'd\b", "the user would"),
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
    return _their(clause)


def _their(clause: str) -> str:
    """After "the user" as a subject, "the user's" reads as "their": "the user lost their job",
    not "the user lost the user's job"."""
    subject = re.search(
        r"(?:^|[,;:]\s+|\b(?:and|but|so|then|when|because|if|since|while)\s+)the user\b(?!'s)",
        clause,
        re.I,
    )
    if not subject:
        return clause
    head, tail = clause[: subject.end()], clause[subject.end() :]
    return head + re.sub(r"\bthe user's\b", "their", tail)


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a final full stop."""
    # A clause cut before its separator keeps it ("... Logistics;"): a stop goes in its place.
    text = text.strip().rstrip(",;:、，；：").rstrip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


# "我妈" is the user's mother: "用户的妈妈", not "用户妈" ("我的妈呀" is no mother); "我哥" the
# user's brother.
_PARENT = re.compile(r"(?<![自忘本唯])我(?:的)?(妈|爸|哥|姐|弟|妹)(?![妈爸哥姐弟妹呀啊们])")


def zh_third_person(text: str) -> str:
    """A Chinese clause said by the user, about the user: 我 -> 用户, 我们 -> 团队."""
    text = text.strip().rstrip("。！!.")
    text = re.sub(r"^我们", "团队", text)
    # "我妈" is the user's mother ("用户的妈妈", not "用户妈").
    text = _PARENT.sub(r"用户的\1\1", text)
    # Every "我" is the user, not only a leading one ("…班主任点名要我去" too); "我们" stays.
    return _zh_self(text)


def _zh_self(text: str) -> str:
    """The user's words for themselves as 用户: 我, and 俺 and a leading 本人 as people
    write them too ("俺是种苹果的", "本人38岁")."""
    text = re.sub(r"(?:^|(?<=[，,。！!？? ]))本人(?!的)", "用户", text)
    return re.sub(r"(?<![自忘本唯])我(?!们|行我素)|俺(?!们)", "用户", text)


# Words a rewrite to "the user" cannot carry: "we" and "our" (the user and someone: family,
# team?), "you" (the assistant, or anyone).
_STILL_SPEAKING_EN = re.compile(r"\b(?:we|we're|we've|we'll|our|ours|us|you|your|you're)\b", re.I)
_FILLER_EN = re.compile(
    r"^(?:(?:ugh|um+|uh+|hmm+|lol|haha|oh|ah|ok|okay|so|well|also|and|but|anyway|btw|"
    r"by the way|actually|honestly|tbh|fyi|yeah|yep|yes|no|hey|hi|hello)\b[,.!: ]*)+",
    re.I,
)
_TRAILER_EN = re.compile(r"(?:[,.!]*\s*(?:lol|haha+|lmao|tbh|😅|🙃|😂|😬|🙂|😊|🤦\S*))+\s*$", re.I)
_FILLER_ZH = re.compile(
    r"^(?:(?:哈哈+|嗯+|啊|哦|对了|另外|还有|其实|话说|不过|好的?|是的?)[，,、！!。 ]*)+"
)


_QUESTION_EN = re.compile(
    r"\?\s*$|^(?:how|what|why|where|which|who|do|does|did|can|could|should|would|is|are)\b(?!')",
    re.I,
)


# A question asked after a statement, in the same sentence ("... anyway how do I set up a
# workspace", "... what should I do first").
_ASKED_AFTER = re.compile(
    r"(?:\s+(?:anyway|so|but|and|also|btw|lol|haha)?\s*|[^\w\s]\s*)\b(?:how|what|why|where|which|who)"
    r" (?:do|does|did|can|could|should|would|will|is|are|am) (?:i|we)\b",
    re.I,
)


_DROPPED_SUBJECT = re.compile(
    # A past tense, typed with a capital or not ("honestly, tore my ACL" loses its filler).
    r"(?:(?!(?i:based|located|supposed|related)\b)[A-Za-z][a-z]+ed(?<!eed)|"
    + "|".join(f"[{w[0]}{w[0].upper()}]{w[1:]}" for w in sorted(_PAST))
    + r"|Need|Want|Love|Hate|Like|Have|Miss|Enjoy|Prefer|Work|Live"
    r"|Didn't|Haven't|Can't|Couldn't)\s"
    # Not a name standing as the subject ("Fred is my manager", "Jared and I").
    r"(?!(?:I|you|is|was|are|were|has|had|and|or|will|would|can|could|says|thinks|[a-z]+ed|"
    + "|".join(sorted(_PAST))
    + r")\b)"
)


# Participles that describe the speaker rather than tell what they did.
_STATE = re.compile(
    r"(?i:tired|excited|stressed|bored|worried|interested|scared|annoyed|obsessed|exhausted|"
    r"pleased|surprised|confused|disappointed|frustrated|relieved|thrilled|based|located|"
    r"stuck|done|addicted|allergic|supposed)\s"
)


def _nested(text: str) -> str:
    """``text`` ready to go inside quotation marks: its own quotes become the inner kind
    (“…” to ‘…’, "…" to '…'), so the quotation still reads as one."""
    return text.replace("“", "‘").replace("”", "’").replace('"', "'")


def about_the_user(said: str) -> str:
    """A sentence the user said, as a memory: turned into a sentence about the user where that
    can be done whole, else kept in the user's words, quoted, never half-rewritten."""
    text = said.strip()
    if CJK_RE.search(text):
        text = _FILLER_ZH.sub("", text).strip().rstrip("。！!～~ ")
        if not text:
            return ""
        if "我们" in text or "咱们" in text or "俺们" in text or "你" in text:
            return f"用户说：“{_nested(text)}”"
        return _zh_self(_PARENT.sub(r"用户的\1\1", text)) + "。"
    text = _TRAILER_EN.sub("", _FILLER_EN.sub("", text)).strip()
    if not text:
        return ""
    asked = _ASKED_AFTER.search(text)
    if asked and len(re.findall(r"[A-Za-z']+", text[: asked.start()])) >= 4:
        # "... I end up reaching for pnpm again anyway how do I set up a workspace": the
        # statement before the question is the user's; the question is not rewritten.
        text = re.sub(r"[\s,;:—–-]*[\U0001F300-\U0001FAFF]*\s*$", "", text[: asked.start()])
    elif asked:
        return f'The user asked: "{_nested(text)}"'
    if _QUESTION_EN.search(text):
        # "how do I move my codes to the new Pixel?" cannot become a statement about the user.
        return f'The user asked: "{_nested(text)}"'
    # Chat drops the subject ("Lost my job yesterday", "Started pottery in May"): a sentence
    # that opens with a verb in the past tense and speaks of the user is the user's.
    if _STATE.match(text) and re.search(r"\b(?:my|me|myself|i)\b", text, re.I):
        # A state, not an act: "Tired of my commute" -> "I'm tired of my commute".
        text = "I'm " + text[0].lower() + text[1:]
    elif _DROPPED_SUBJECT.match(text) and re.search(r"\b(?:my|me|myself|i)\b", text, re.I):
        text = "I " + text[0].lower() + text[1:]
    rewritten = (
        third_person(text)
        if re.search(r"\b(?:i|i'm|i've|i'll|i'd|my|me|myself|im|ive)\b", text, re.I)
        else text
    )
    if _STILL_SPEAKING_EN.search(rewritten) or re.search(r"\bi'd\b|\bmine\b", rewritten, re.I):
        return f'The user said: "{_nested(text).rstrip(".!")}".'
    # A second sentence the splitter left in ("pray for me. I'm 31") starts with a capital too.
    rewritten = re.sub(r"([.!?] )the user\b", r"\1The user", rewritten)
    return sentence(rewritten)


# "34 — 35 actually", "12楼，哦不，16楼", "在张江，啊说错了是金桥", "June — July, sorry, July 11th":
# the speaker corrects a value in the same breath; the memory keeps the later one.
_MARK_EN = (
    r"(?i:(?:(?:ugh|uh|um|er|oh|ah)\s+)?(?:oops,?(?: i meant?| sorry,?)?|sorry,? typo,?|no wait|"
    r"no,|no|wait,?|sorry,?|hold on,?|hang on,?|scratch that,?|"
    r"i mean|i meant|actually|"
    r"or rather|make that|well,? (?:no|technically|actually),?|technically|well,?(?= ?\d)|"
    r"rather(?= ?\d))(?![A-Za-z])"
    # "our Seattle office, well, Bellevue really": the name said again, then "really" ("we
    # live in Brooklyn. well, Queens now actually": or "now").
    r"|well,?(?= ?[A-Z][\w'-]*(?: [A-Z][\w'-]*)* (?i:now(?: really| actually| technically)?|"
    r"really|actually|technically)\b)|"
    r"(?i:typo|i mistyped|misspoke|i misspoke|my bad)(?![A-Za-z]))"
)
_SLIPS_ZH = r"不对|哦不|啊不|不是|说错了|我说错了|更正一下|打错了|写错了|发错了|打错字了|口误|手滑"
_MARK_ZH = rf"(?:[哦啊呃额嗯噢]\s*)?(?:{_SLIPS_ZH})"
_CORRECTION = re.compile(
    # (A word of English ends where its letters do: "了，notion" says no "no".)
    rf"(?:\s*[,，;；—–-]+\s*(?:{_MARK_EN}|{_MARK_ZH})"
    # Typed without punctuation, a space stands for the comma before a Chinese correction
    # ("周四 不对不对 是周五"); a bare "不是" there is as often a plain "not".
    rf"|\s+(?:[哦啊呃额嗯噢]\s*(?:{_SLIPS_ZH})+|(?!不是)(?:{_SLIPS_ZH})+)(?=[\s,，:：]|是))"
    # Said more than once ("不对不对", "wait no, sorry,").
    rf"(?:[,，:：]?\s*(?:{_MARK_EN}|{_MARK_ZH}))*[,，:：]?\s*(?:是)?"
)
# A number, in digits or in Chinese numerals with their unit ("六岁", "三楼").
# "一" alone is more often "a" ("走了一个") than a number.
_VALUE = re.compile(
    # A day of a month, whole ("5月12号" corrected to "5月21号"; "May 12th" to "May 21st").
    r"\d{1,2}月\d{1,2}[号日]?|(?i:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? "
    r"\d{1,2}(?:st|nd|rd|th)?)|"
    # A time of day, whole ("6点" corrected to "5点半").
    r"\d{1,2}点(?:半|一刻|三刻|\d{1,2}分?)?|"
    r"\d+(?:[.:]\d+)?|(?!一(?![零一二两三四五六七八九十百]))[零一二两三四五六七八九十百]+"
    r"(?=[岁楼号点个月天年层人块元周])"
    # Counts in words ("two cats, actually three"); "one" is as often "a" as a number.
    r"|\b(?i:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
)
# Words after which a Chinese value stands, and words that may follow one.
_INTRODUCES_VALUE = frozenset("是在去到住叫回从飞往于姓")
# The same, and the words before what the user is allergic to or uses ("对青霉素过敏", "用 Vue").
_BEFORE_SAID_AGAIN = _INTRODUCES_VALUE | frozenset("对用")
_ENDS_VALUE = re.compile(r"(?:了|的|啦|读|上|工作|上班|住|玩|出差|开会|见|看|买|吃|过敏|$)")


_NUMBER = r"\d+(?:[.:]\d+)?|\b(?i:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
_DASHED = re.compile(rf"({_NUMBER})\s*[—–-]+\s*({_NUMBER})\s*,?\s*(?i:actually)\b,?")


# "it's May 13 not May 3", "我生日是3月18号，不是3月8号", "35, not 34": the right value first,
# then the wrong one denied. The denied one goes when it has the shape of the value just before
# it (the same words around numbers), so "in Leeds, not the city centre" is left as said.
_DENIED = re.compile(
    r"(?:(?:\s*,\s*|\s+)(?i:and )?(?i:not)\s+|[,，]?\s*不是)"
    r"(?P<old>[^,，.。!！;；?？\s][^,，.。!！;；?？]{0,11}?)"
    r"(?=\s*(?:[,，.。!！;；?？]|$))"
)


def _without_denied(said: str) -> str:
    """``said`` without a value denied right after the right one ("May 13 not May 3")."""

    def cut(match: re.Match[str]) -> str:
        # "不是29岁了": the particle closing the sentence stays.
        old = match.group("old").strip()
        particle = re.search(r"[了啦呀的]$", old) if CJK_RE.search(old) else None
        old = old[: particle.start()] if particle else old
        if not re.search(r"\d", old):
            return match.group(0)
        shape = "".join(
            r"\d+" if part.isdigit() else re.escape(part)
            for part in re.split(r"(\d+)", old)
            if part
        )
        before = said[: match.start()]
        same = re.search(rf"(?i:{shape})\s*$", before)
        if same is None or same.group(0).strip() == old:
            return match.group(0)
        return particle.group(0) if particle else ""

    return _DENIED.sub(cut, said)


def _value_shape(text: str, value: re.Match[str]) -> str:
    """What kind of number ``value`` is in ``text``: a day of a month, a time, a year, or
    another number."""
    after = text[value.end() : value.end() + 4]
    if re.match(r"(?:st|nd|rd|th)\b", after):
        return "ordinal"
    if ":" in value.group(0) or re.match(r"\s?(?i:am|pm|a\.m|p\.m)\b", after):
        return "time"
    if re.fullmatch(r"(?:19|20)\d\d", value.group(0)):
        return "year"
    return "number"


def _said_of_old(rest: str, old: str) -> str:
    """What follows a correction, up to the words said of the value it replaced ("Wednesday,
    Tuesday is the thing with my mum", "是周五 周四下午我有个会", "parsley I hate, cilantro's
    fine"): those speak of the wrong value, and the memory keeps the right one alone."""
    old = old.strip()
    if len(old) < 2:
        return rest
    edge = r"(?<![A-Za-z0-9])" if old[:1].isascii() else ""
    found = re.search(rf"{edge}{re.escape(old)}", rest, re.I)
    if not found:
        return rest
    # A space separates clauses only in Chinese typed without commas.
    marks = ",，;；.。!！?？" + (" " if CJK_RE.search(old) else "")
    cut = max(rest.rfind(mark, 0, found.start()) for mark in marks)
    if cut < 0 and re.fullmatch(
        r"\s*[,，]?\s*(?i:not|instead of|rather than|不是)\s*", rest[: found.start()]
    ):
        # "oops it's Porto not Lisbon, I was looking at the wrong booking": the wrong value
        # denied, then why it was said: nothing of it is the memory's.
        return ""
    return rest[:cut].rstrip(",，;；、 ") if cut >= 0 else rest


# Words too common to be the value a slip named ("leipzig is where i interviewed": "is",
# "where" are in any sentence).
_PLAIN = frozenset(
    [
        "the",
        "a",
        "an",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "it",
        "its",
        "it's",
        "i",
        "i'm",
        "im",
        "my",
        "me",
        "we",
        "our",
        "you",
        "your",
        "they",
        "them",
        "this",
        "that",
        "there",
        "where",
        "one",
        "was",
        "the",
        "and",
        "or",
        "but",
        "so",
        "not",
        "no",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "as",
        "by",
        "lol",
        "just",
        "now",
        "then",
        "what",
        "which",
        "who",
        "when",
        "how",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "get",
        "got",
    ]
)


def _renamed(left: str, right: str) -> str | None:
    """``left`` with the value a slip named replaced by the one after the slip, in lower
    case as chat types it, when the words after the new value name the old one again
    ("i've been in leipzig for 3 weeks, sorry, dresden — leipzig is where i interviewed",
    "in tacoma now, wait no, olympia lol, tacoma was the one we lost") or deny it first
    ("sorry not osprey, kestrel"): what follows is about the slip, and the memory keeps the
    corrected sentence alone. None otherwise, or when the value is part of a date (those
    are :data:`_VALUE`'s)."""
    denied = re.match(
        rf"\s*not (?:the )?{_WORDS}\s*[,;—–]\s*(?:it'?s |the )?{_WORDS}{_AFTER}", right
    )
    if denied:
        olds, new = [denied.group(1).lower()], denied.group(2)
    else:
        value = re.match(rf"\s*(?:it'?s |it is |in |at |to |the ){{0,2}}{_WORDS}{_AFTER}", right)
        if value is None:
            return None
        new = value.group(1)
        olds = re.findall(r"[a-z][\w'-]{2,}", right[value.end() :].lower())
    first = new.split()[0].lower()
    if first in _PLAIN or _CALENDAR.match(first):
        return None
    named = [
        old
        for old in dict.fromkeys(olds)
        if old not in _PLAIN
        and old not in new.lower().split()
        and re.search(rf"(?<![\w'-]){re.escape(old)}(?![\w'-])", left, re.I)
    ]
    # Named again alone: with two of the sentence's words named ("with my wife, oops,
    # boulder, my wife works in denver"), which one the slip was is not told.
    if len(named) != 1:
        return None
    for old in named:
        spots = list(re.finditer(rf"(?<![\w'-]){re.escape(old)}(?![\w'-])", left, re.I))
        if spots:
            last = spots[-1]
            if re.match(r"\s*\d", left[last.end() :]) or re.search(r"\d\s*$", left[: last.start()]):
                return None  # "due april 30, no wait that's january": a date's
            after = left[last.end() :]
            words = new.split()
            if len(words) > 1 and re.match(rf"\s+{re.escape(words[-1])}(?![\w'-])", after, re.I):
                new = words[0]  # "the blue line, oops, red line": "line" said once
            return left[: last.start()] + new + after
    return None


# One or two words in lower case (not a laugh), and what may end them.
_WORDS = r"([a-z][\w'-]*(?: (?!(?:lol|lmao|haha|ha)\b)[a-z][\w'-]*)?)"
_AFTER = r"(?:\s+(?:lol|lmao|haha|ha|lmfao))?\s*(?:[,.;!—–]|\s-\s|$)"
_CALENDAR = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*$"
)


def _latin_shape(word: str) -> str:
    """A word's shape: its letters as "a", its digits as "0", runs of each as one ("m3" and
    "m2" are "a0", "iPhone15" is "a0")."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"\d", "0", re.sub(r"[A-Za-z]", "a", word)))


def corrected(said: str) -> str:
    """``said`` with a value the speaker corrected in passing replaced by the correction."""
    said = _without_denied(said)
    said = _DASHED.sub(lambda m: m.group(2), said)
    match = _CORRECTION.search(said)
    if not match or match.start() == 0:
        return said
    left, right = said[: match.start()], said[match.end() :]
    new = _VALUE.search(right)
    old = list(_VALUE.finditer(left))
    # "it's actually a 2018": the words before the value say nothing of it.
    lead = re.match(r"(?i:\s*(?:it'?s|it is|actually|really|a|an|the|just)\b)*", right)
    if new and old and new.start() <= 12 + (lead.end() if lead else 0):
        # The value replaced has the new one's shape ("the 22nd at 6:40am, no sorry, the
        # 23rd": a day of the month, not the time), else it is the last one said.
        shape = _value_shape(right, new)
        last = next((v for v in reversed(old) if _value_shape(left, v) == shape), old[-1])
        rest = right[new.end() :]
        ordinal = re.match(r"(?:st|nd|rd|th)\b", rest)
        if shape == "ordinal" and ordinal:
            # The suffix goes with the day: "22nd" becomes "23rd", not "23nd".
            rest = rest[ordinal.end() :]
            fixed = left[: last.start()] + new.group(0) + ordinal.group(0)
            return (
                fixed
                + re.sub(r"^(?:st|nd|rd|th)", "", left[last.end() :])
                + _said_of_old(rest, last.group(0))
            )
        rest = re.sub(r"^\s*(?:actually|sorry|其实)\b", "", rest, flags=re.I)
        # The unit said again after the correction ("12楼，哦不，16楼"): keep it once.
        unit = re.match(r"\s*([^\s,，。;；]*)", left[last.end() :])
        again = re.match(r"\s*([^\s,，。;；]*)", rest)
        if unit and again and again.group(1) and unit.group(1).startswith(again.group(1)):
            rest = rest[again.end() :]
        elif unit and again and unit.group(1) and again.group(1).startswith(unit.group(1)):
            rest = rest[again.start(1) + len(unit.group(1)) :]  # "二年级，不对，三年级了"
        fixed = left[: last.start()] + new.group(0) + left[last.end() :]
        return fixed + _said_of_old(rest, last.group(0))
    if CJK_RE.search(said):
        right = re.sub(r"^(?:其实|应该|我是说)?是?\s*", "", right)
        latin = re.match(r"[A-Za-z][\w.+-]*(?: [A-Za-z][\w.+-]*)*", right)
        runs = list(re.finditer(r"[A-Za-z][\w.+-]*(?: [A-Za-z][\w.+-]*)*", left))
        if latin and runs:
            # The word of the new one's shape ("m2" for "m3", not "docker" after it), else the
            # last run said.
            shape = _latin_shape(latin.group(0))
            shaped_words = [
                (run.start() + m.start(), m.group(0))
                for run in runs
                for m in re.finditer(r"[A-Za-z][\w.+-]*", run.group(0))
                if _latin_shape(m.group(0)) == shape
            ]
            last = runs[-1]
            # (Only for a value with digits: a name in words replaces the last run whole.)
            if shaped_words and shape != "a" and " " not in latin.group(0):
                start, replaced = shaped_words[-1]
                rest = _said_of_old(right[latin.end() :], replaced)
                return left[:start] + latin.group(0) + left[start + len(replaced) :] + rest
            rest = _said_of_old(right[latin.end() :], last.group(0))
            return left[: last.start()] + latin.group(0) + left[last.end() :] + rest
    if CJK_RE.search(right[:1] or " "):
        word = re.match(f"[{CJK_RE.pattern[1:-1]}]{{1,6}}", right)
        head = re.search(f"[{CJK_RE.pattern[1:-1]}]+$", left)
        if word:
            # A value of the same shape said before ("周四" corrected to "周三") is the one
            # replaced, wherever it stands in the sentence.
            value = re.sub(r"(?<=..)[了的啦呀]$", "", word.group(0))
            # The same shape: the same first character ("周四", "周三") or the same ending
            # ("二年级", "三年级"; "六岁", "七岁").
            cjk = CJK_RE.pattern[1:-1]
            shaped = list(
                re.finditer(f"{re.escape(value[0])}[{cjk}]{{{len(value) - 1}}}", left)
            ) or list(re.finditer(f"[{cjk}]{re.escape(value[1:])}", left))
            if shaped and value not in left and len(value) >= 2:
                last = shaped[-1]
                rest = _said_of_old(right[len(value) :], last.group(0))
                return left[: last.start()] + value + left[last.end() :] + rest
            # The correction says the words after the value again ("对青霉素过敏，打错了，是头孢
            # 过敏"): the value is what stands before them, after the word that introduces it.
            ending = head.group(0) if head else ""
            k = 0
            while k < min(len(value), len(ending)) - 1 and value[-1 - k] == ending[-1 - k]:
                k += 1
            if k and len(value) - k >= 2:
                tail = ending[len(ending) - k :]
                before = left[: len(left) - k]
                spots = [
                    i for i in range(1, len(before) - 1) if before[i - 1] in _BEFORE_SAID_AGAIN
                ]
                if spots and all(CJK_RE.match(c) for c in before[spots[-1] :]):
                    at = spots[-1]
                    return before[:at] + value[:-k] + tail + right[len(value) :]
        if word and head:
            value = word.group(0)[: len(head.group(0))]
            size = len(value)
            # The value replaced stands after a word that introduces one (是, 在, 去, 住...):
            # "搬去成都" -> "搬去重庆", "去杭州读研" -> "去苏州读研". Nowhere such: the words are
            # left as said rather than cut in the wrong place.
            spots = [
                i
                for i in range(1, len(left) - size + 1)
                if left[i - 1] in _BEFORE_SAID_AGAIN
                and all(CJK_RE.match(c) for c in left[i : i + size])
                and (i + size == len(left) or _ENDS_VALUE.match(left[i + size :]))
            ]
            if spots:
                at = spots[-1]
                rest = _said_of_old(right[len(value) :], left[at : at + size])
                return left[:at] + value + left[at + size :] + rest
            # A value of another length ("对青霉素过敏 啊不是 是头孢"): from the last word that
            # introduces one to the first word that may follow one.
            value = word.group(0)
            spans = [
                (i, j)
                for i in range(1, len(left))
                if left[i - 1] in _BEFORE_SAID_AGAIN
                for j in range(i + 1, min(len(left), i + 8) + 1)
                if all(CJK_RE.match(c) for c in left[i:j])
                and (j == len(left) or _ENDS_VALUE.match(left[j:]))
                and not (j == len(left) and _ENDS_VALUE.match(left[j - 1 :]))
            ]
            if spans:
                at, stop = max(spans, key=lambda span: (span[0], -span[1]))
                rest = _said_of_old(right[len(value) :], left[at:stop])
                return left[:at] + value + left[stop:] + rest
        return said
    right = re.sub(r"^(?:actually |it's |it is |I mean )*(?:(?:at|in|to|on|for|with) )?", "", right)
    name = re.match(r"([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)", right)
    names = list(re.finditer(r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)*", left))
    if name and names and names[-1].start() > 0:
        last = names[-1]
        # The word that marked the correction goes with it ("Bellevue really", "Stripe, sorry").
        rest = _CORRECTION_TAIL.sub("", right[name.end() :])
        return (
            left[: last.start()]
            + name.group(1)
            + left[last.end() :]
            + _said_of_old(rest, last.group(0))
        )
    renamed = _renamed(left, right)
    if renamed is not None:
        return renamed
    # Words in lower case said again after a word that owns to a slip, and nothing more
    # ("allergic to walnuts, sorry, pecans", "every morning, sorry, every other morning"):
    # they replace the sentence's last word, or its words from the first said again. ("no"
    # is no such word: "green tea every morning, no milk" adds to what was said.)
    cleft = re.match(r"([a-z][\w'-]*) (?:that )?I (?:hate|meant|mean|like|love|use|need)\b", right)
    end = re.search(r"(?<=\s)[a-z][\w'-]*\s*$", left)
    if cleft and end and _SLIP.search(match.group(0)):
        # "I can't stand cilantro, wait no, sorry, it's parsley I hate, cilantro's fine": the
        # word corrected is the last one said, and what follows it is said on.
        return (
            left[: end.start()] + cleft.group(1) + _said_of_old(right[cleft.end() :], end.group(0))
        )
    alone = re.fullmatch(r"([a-z][\w'-]*(?: [a-z][\w'-]*){0,2})\s*[.!]?\s*", right)
    if not alone or not _SLIP.search(match.group(0)) or _CORRECTION_TAIL.match(alone.group(1)):
        return said
    words = alone.group(1).split()
    repeated = list(re.finditer(rf"(?<!\S){re.escape(words[0])}(?!\S)", left))
    if repeated and len(words) > 1:
        return left[: repeated[-1].start()] + alone.group(1)
    end = re.search(r"(?<=\s)[a-z][\w'-]*\s*$", left)
    if end and len(words) == 1:
        return left[: end.start()] + alone.group(1)
    # Several words for the phrase after the last word that opens one ("allergic to peanuts,
    # sorry I mean tree nuts"): they replace that phrase.
    phrase = re.search(
        r"\b(?:to|of|with|for|in|at|on|from|about|a|an|the|my)\s+"
        r"([a-z][\w'-]*(?: [a-z][\w'-]*){0,2})\s*$",
        left,
    )
    if phrase:
        return left[: phrase.start(1)] + alone.group(1)
    return said


# Words that own to a slip of the tongue or the keyboard, not to another thought.
_SLIP = re.compile(
    r"\b(?:typo|sorry|oops|i mean|i meant|make that|or rather|mistyped|misspoke|my bad|"
    r"oh wait|no wait|wait no)\b"
    r"|打错了|发错了|写错了|说错了|口误|手滑|更正",
    re.I,
)


_CORRECTION_TAIL = re.compile(r"^\s*,?\s*(?:really|actually|technically|sorry)\b", re.I)


# A sentence that only corrects the one before it: "I'm based in Toronto. Well, technically
# Mississauga", "周六见。哦不，周日". It opens with the words of a correction and a value.
_CORRECTS_BEFORE = re.compile(
    r"^(?i:(?:no|well|oh|oops|sorry|wait|actually|i mean|i meant|or rather|technically|"
    r"make that|typo|my bad|hold on|hang on|scratch that|ugh|uh|um)[,.!:]?\s+)+"
    r"(?i:it's |its |it is |in |at |on |for |the |actually |really |an? )*(?!I\b)[A-Z0-9][\w.:'-]*"
    r"(?: [A-Z0-9][\w'-]*)*"
    r"\s*(?:[,.!;]|$|\s(?i:since|but|now|though|not)\b)"
    r"|^(?:[哦啊呃额嗯噢]\s*)?(?:不对|哦不|啊不|说错了|我说错了|更正一下|打错了|发错了|写错了|口误|手滑)"
    r"[，,!！\s]"
)


def corrects_before(text: str) -> bool:
    """True when ``text`` opens by owning to a slip in what was said just before it ("oops,
    I meant the 15th", "啊发错了，是5月21号"); "no, Python 3.12 please" and "不对，你的代码有
    bug" answer something else."""
    if _SWAPPED.match(text):
        return True
    if _CORRECTS_BEFORE.match(text) is None:
        return False
    opening, *after = re.split(r"[,，:：]", text, maxsplit=1)
    rest = after[0] if after else ""
    # Or a value alone after "it's"/"是" ("Wait, it's May 21.", "不对，是5月21号").
    return _SLIP.search(opening) is not None or bool(_VALUE_SAID_AGAIN.match(rest.strip()))


# A value said again, alone: "it's May 21", "是5月21号", "it's the 15th".
_VALUE_SAID_AGAIN = re.compile(
    r"(?i:it's|it is|that's|that is|i meant|i mean)\s+(?:the\s+|on\s+)?[\w:.' -]{1,16}[.!]?$"
    r"|是\s*[\w:.：-]{1,10}[。！!]?$"
    # A number or a name said again, then more ("it's 2018 not 2019, I started right after...").
    r"|(?i:it's|it is|i meant|i mean)\s+(?:the\s+|on\s+)?(?:\d[\w:.]*|(?-i:[A-Z])[\w'-]*)"
    r"(?:\s+(?i:not)\s+\S+?)?\s*(?:[,.!;]|$)"
)


# A sentence that swaps a value just said for another, in any case: "oops its porto not
# lisbon", "sorry, it's the 14th, not the 4th", "不对 是周五不是周四".
_SWAPPED = re.compile(
    r"^(?i:(?:no|oh|oops|sorry|wait|ugh|uh|actually|my bad|hold on|hang on|typo)[,.!:]?\s+)*"
    r"(?i:it'?s|it is|i meant?|that'?s)\s+(?P<new>[\w'-]+(?: [\w'-]+)?)\s*,?\s+(?i:not)\s+"
    r"(?P<old>[\w'-]+(?: [\w'-]+)?)(?=\s*(?:[,.!;]|$))"
    r"|^(?:[哦啊呃额嗯噢]\s*)?(?:不对|哦不|啊不|说错了|打错了|口误)?[，,\s]*是\s*"
    r"(?P<new_zh>[^，,。！？\s]{1,10}?)[，,\s]*不是\s*(?P<old_zh>[^，,。！？\s]{1,10}?)[。！!，,\s]*$"
)


# A sentence that opens by owning to a slip, in any case.
_SLIP_FIRST = re.compile(
    r"^(?i:(?:ugh|uh|um|oh|ah)[,.]?\s+)?(?i:wait,? no|no,? wait|oops|sorry|i mean|i meant|my bad|"
    r"scratch that)(?![\w'])[,.!:]?\s+"
)


def joined_corrections(said: Sequence[str]) -> list[str]:
    """The sentences with each one that only corrects the sentence before it joined to it, so
    that :func:`corrected` keeps the later value."""
    joined: list[str] = []
    for text in said:
        # (A swap the general reading takes, "it's 2014 not 2015, we moved...", keeps what
        # follows it.)
        swap = _SWAPPED.match(text)
        if swap and swap.group("new_zh") is None and _CORRECTS_BEFORE.match(text):
            swap = None
        if joined and swap:
            new = swap.group("new") or swap.group("new_zh")
            was = swap.group("old") or swap.group("old_zh")
            old = (
                re.escape(was) if CJK_RE.search(was) else rf"(?<![\w'-]){re.escape(was)}(?![\w'-])"
            )
            named = re.search(old, joined[-1], re.I)
            if named:
                if named.group(0)[:1].isupper():
                    new = new[:1].upper() + new[1:]  # "Luna" corrected to "nova": "Nova"
                # "oops its porto not lisbon, I was looking at the wrong booking": the value
                # said before is the one denied; the rest explains the slip.
                joined[-1] = re.sub(old, new.replace("\\", r"\\"), joined[-1], flags=re.I)
                continue
        slip = _SLIP_FIRST.match(text)
        if joined and slip:
            # "officially in tacoma now. wait no, olympia lol, tacoma was the one we lost":
            # in lower case, the old value named again tells what was corrected.
            before = joined[-1].rstrip(" .!。！")
            renamed = _renamed(before, text[slip.end() :])
            if renamed is not None:
                joined[-1] = renamed + joined[-1][len(before) :]
                continue
        if joined and _CORRECTS_BEFORE.match(text):
            before = joined[-1].rstrip(" .!。！")
            mark = "，" if CJK_RE.search(before[-1:]) else ", "
            # The marker in lower case, as inside a sentence ("Toronto, well, technically ...").
            joined[-1] = corrected(f"{before}{mark}{text[:1].lower()}{text[1:]}")
        else:
            joined.append(text)
    return joined
