"""Whether a sentence the user said makes a known memory no longer so, judged by a small model.

The fixed rules read a change where its words are set ("moved to", "switched to", "换成",
"不再"), and the slots read a new value of a single-valued fact in a known shape. People say a
change in passing and in words of their own: "now that I'm actually settled in Glasgow, how do
I register with a GP?", "we had to put Biscuit down in january", "朗逸终于出掉了 换了台海豹".
What such a sentence shares with the memory it replaces is its subject, not its words: the
sentence's meaning lies close to the memory's, and it says something happened, now holds or
ended.

So a pair (a sentence, a known memory) is judged by a logistic regression over a few numbers:
how close their embeddings are (the multilingual sentence encoder of the ``embeddings``
extra), how many of the memory's telling words the sentence repeats, and the cues of change,
of the present, of an end, of a plan or a question and of "still"; a pair the rules read as
unchanged (:func:`ruled_out`: a trip, a plan, someone else's news, the value named as still so
or whole) is never judged. Its weights are in
``replacing.json``; ``benchmarks/train_replacing.py`` fits them on the dev half of the labeled
conversations only (each known memory a conversation replaces, or leaves alone, and the
sentences of other conversations that hold nothing durable, paired with it) and chooses the
threshold by cross-validation over whole conversations. Without the extra, or without the
file, it judges nothing and the fixed rules decide alone.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

from ...core.text import CJK_RE, search_tokens
from .slots import _SOMEONE_ELSE, denied, still_named
from .updates import _kept_within

__all__ = ["Replacing", "load_replacing", "pair_features", "ruled_out"]

WEIGHTS_FILE = Path(__file__).with_name("replacing.json")

_CUES: dict[str, re.Pattern[str]] = {
    # Something happened that changes how things stand.
    "change": re.compile(
        r"\b(?:mov(?:e|ed|ing)|relocat\w*|switch\w*|swapp?\w*|chang\w*|new|transfer\w*|"
        r"join(?:ed|ing)|start(?:ed|ing)|hired|promoted|got|bought|adopted|replac\w*|"
        r"upgrad\w*|instead|converted)\b"
        r"|搬|换|改|转|跳槽|入职|升|调|买了|提车|领养|新",
        re.I,
    ),
    # Said to hold now.
    "now": re.compile(
        r"\b(?:now|these days|nowadays|currently|since|settled|finally|officially|anymore|"
        r"any more|no longer|at this point)\b|现在|目前|如今|终于|已经|了$|了[ ，,。!！]",
        re.I,
    ),
    # Something ended.
    "end": re.compile(
        r"\b(?:quit|left|leaving|sold|gave up|giv(?:e|ing) up|stopp?\w*|ended|over|broke up|"
        r"split up|divorced|died|passed away|put (?:\w+ )?down|lost|retired|graduated|"
        r"cancel\w*|ditch\w*|dropp?\w*|done with|no more|not \w+ anymore|fired|laid off|"
        # "day 40 cig-free", "we killed jenkins", "dumped todoist", "got rid of the car".
        r"(?:cig|cigarette|smoke|smoking|nicotine|alcohol|booze|caffeine|vape)-free|sober|"
        r"got rid of|killed|dumped|moved off|migrated (?:off|away)|kicked)\b"
        r"|不再|不\w{0,4}了|没了|走了|卖了|出掉|处理掉|扔了|淘汰|离职|辞职|分手|离婚|戒了|退了|去世|"
        r"放弃|停了|落灰|吃灰|送人|送走|送回|送给|迁走|迁到|"
        r"结束|毕业|裁|不干了",
        re.I,
    ),
    # Not so yet: a plan, a wish, a maybe.
    "plan": re.compile(
        r"\b(?:thinking (?:of|about)|might|maybe|considering|plan(?:ning)? to|want to|"
        r"wanna|hope to|would like|if|should i|could|probably)\b"
        r"|\b(?:dreamt|dreamed|dreaming|had a dream|imagine|pretend)\b"
        r"|(?<!理)(?<!感)(?<!思)想(?!法|起|到)|打算|考虑|可能|也许|要不要|如果|准备|梦",
        re.I,
    ),
    "question": re.compile(r"[?？]|吗\s*$|呢\s*$"),
    # Named as still so.
    "still": re.compile(r"\b(?:still|as always|same old)\b|还是|依然|仍然|一直|照样", re.I),
    # A stay, not a home: a trip, a visit, a loan.
    "visit": re.compile(
        r"\b(?:trip|visit\w*|conference|vacation|holiday|heading to|landed|for work|"
        r"on business|loaner|till|until|for (?:a|the|two|three|\d+) (?:days?|weeks?|nights?))\b"
        r"|出差|旅游|旅行|度假|玩几天|蹭饭|借",
        re.I,
    ),
    # Someone else's news, not the user's.
    "other": re.compile(
        r"\b(?:my|our) (?:husband|wife|partner|boyfriend|girlfriend|mum|mom|dad|father|"
        r"mother|sister|brother|son|daughter|friend|colleague|coworker|boss|kid|kids)\b"
        r"|(?:^|[^自])我?(?:老公|老婆|对象|男朋友|女朋友|爸|妈|哥|姐|弟|妹|儿子|女儿|同事|朋友|"
        r"老板|领导)",
        re.I,
    ),
    # Not so yet.
    "not_yet": re.compile(
        r"\b(?:not \w+ing \w* ?yet|nothing decided|not decided|yet to|undecided|torn|"
        r"not sure)\b|还没|纠结|没定|再说",
        re.I,
    ),
    "past": re.compile(r"\b(?:used to|before|previously|back when|last year|ago)\b|以前|之前|原来"),
}
# A stay somewhere, said as such: the user goes back from it.
_AWAY = re.compile(
    r"\b(?:trip|visiting|conference|vacation|holiday|heading (?:to|out|over)|landed|drove|flew|"
    r"on business|for work|staying (?:for )?(?:a|\d+|two|three|four|five) (?:days?|nights?|weeks?))\b"
    r"|出差|旅游|旅行|度假|玩几天|住几天",
    re.I,
)
# Still to come: a trip or a move ahead is no change yet.
_TO_COME = re.compile(
    r"\b(?:will|'ll|gonna|going to|tomorrow|next (?:week|weekend|month|year|semester|term|"
    r"quarter|spring|summer|autumn|fall|winter)|this (?:weekend|coming)|(?:on|this|next) "
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:a|two|three|\d+) "
    r"(?:days?|weeks?|months?))\b|明天|后天|下周|下个?月|明年|下学期|将要|周末要",
    re.I,
)
# One more of what the user has: a pet or a child added, none given up.
_ONE_MORE = re.compile(
    r"\b(?:got|adopted|bought|brought home|rescued|welcomed|had) (?:a|an|another|our|my|a "
    r"(?:second|third|fourth)|two) (?:new |little |baby |rescue )?(?:kitten|puppy|pup|cat|dog|"
    r"pet|baby|son|daughter|bunny|rabbit|hamster|parrot)s?\b"
    r"|(?:领养|又养|添|生|多)了(?:一|两)?[只个条位]?(?:小)?(?:猫|狗|宝宝|孩子|儿子|女儿)",
    re.I,
)
# A word that says the old value was left for another (not only that something is new).
_AWAY_FROM = re.compile(
    r"\b(?:moved|relocated|switched|swapped|replaced|converted|transferred|instead of|"
    r"no longer|anymore|any more|joined|started|hired|promoted|bought|got|upgraded)\b"
    r"|搬|换|改用|改成|转到|跳槽|不再|入职|升|调到|买了|提车",
    re.I,
)
# The user in it too: "my wife and I moved", "我和老公搬到了…".
# ("they moved our standup to 9:30": others changed what is the user's.)
_WITH_THE_USER = re.compile(
    r"\b(?:and i|and me|me and|with me|i and)\b|我和|我跟|和我|跟我"
    r"|\b(?:they|he|she) (?:just |finally )?(?:moved|changed|switched|pushed|bumped|rescheduled|"
    r"shifted|cancell?ed|renamed) (?:our|my)\b",
    re.I,
)
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9+#.-]*[A-Za-z0-9+#]|[A-Za-z]")
# A capitalized word not opening a sentence, without the full stop after it.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'&-]*(?:\.[\w'&-]+)*")


def _names(text: str, every: bool = False) -> set[str]:
    """The words that name a value: capitalized words not opening a sentence, or in Chinese
    text any Latin word ("Python", "L6"); with ``every``, any capitalized or Latin word."""
    if CJK_RE.search(text):
        found = _LATIN.findall(text)
    else:
        found = re.findall(r"\b[A-Za-z][\w'&-]*", text) if every else _NAME.findall(text)
    return {w.casefold() for w in found}


def _telling(text: str) -> set[str]:
    return {
        t
        for t in search_tokens(text)
        if (len(t) > 1 or not CJK_RE.match(t)) and t not in ("user", "users", "用户")
    }


def _pairs(text: str) -> set[str]:
    """The text's pairs of CJK characters: a Chinese name is one ("海豹", "朗逸")."""
    runs = re.findall(f"(?:{CJK_RE.pattern})+", text)
    return {run[i : i + 2] for run in runs for i in range(len(run) - 1)} - {"用户"}


def _share_a_word(said: set[str], known: set[str]) -> bool:
    """True when the two hold a word in common, or one word the start of the other
    ("teach", "teacher")."""
    return bool(said & known) or any(
        len(a) >= 4 and len(b) >= 4 and (a.startswith(b) or b.startswith(a))
        for a in said
        for b in known
    )


def ruled_out(said: str, known: str) -> bool:
    """True when ``said`` plainly leaves ``known`` as it is, so the model is not asked: the
    value denied ("I never moved to Berlin"), named as still so ("still at Acme"), as the
    place a change stays within ("switched teams inside Google") or whole; a stay away, a
    plan, someone else's news; or the memory's thing named with nothing said to happen to
    it."""
    if denied(said) or still_named(said, known) or _kept_within(said, known):
        return True
    if _AWAY.search(said):
        return True  # "landed in Vancouver, conference till thursday": a stay, not a change
    # (What is planned after the change, as its consequence, leaves it a change: "my job
    # switched me to 4 tens so I finally have fridays off, I want to actually use it".)
    told = _CONSEQUENCE.split(said, maxsplit=1)[0]
    if _CUES["plan"].search(told) or _CUES["not_yet"].search(told) or _TO_COME.search(told):
        return True  # "I might move to Denver next year", "flying to Portland tomorrow"
    if _ONE_MORE.search(said):
        return True  # "just got a kitten": one more, the cats known are still there
    if _SOMEONE_ELSE.search(said) and not _WITH_THE_USER.search(said):
        return True  # "my husband just joined Canva", "helped my sister unpack in Leipzig"
    names = _names(known)
    switched = _switched_from(said, names)
    if names and names <= _names(said, every=True) and not (switched and _names(said) - names):
        # "I used to hate VS Code but now I love it": the value, named whole (unless named
        # as what a switch to another one left behind: "转go了 现在都是go 老的java慢慢迁").
        return True
    shared = _share_a_word(_telling(said), _telling(known)) or bool(_pairs(said) & _pairs(known))
    if shared and _CUES["still"].search(said):
        return True  # "still doing ruby for my side projects", "还是觉得微信读书顺手"
    # The memory's thing named with nothing said to have happened to it: "my kids are 5 and
    # 7 now" (has two kids), "真的比 Chrome 好用吗？" (uses Chrome), "teaching at a new school
    # now" (works as a teacher).
    # ("组里全面转kotlin了 我现在新代码都是kotlin写" names Java only as what is left: a change,
    # and what holds now.)
    return shared and not (_CUES["end"].search(said) or _AWAY_FROM.search(said) or switched)


# Where what follows a change as its consequence begins: after a few words, "so", "which
# means", or the end of a sentence.
_CONSEQUENCE = re.compile(r"(?<=.{15})(?:\s(?:so|so now|which means)\s|[.!?;]\s)")


def _switched_from(said: str, names: set[str]) -> bool:
    """True when ``said`` tells of a switch and of what holds now, and the clause that says
    what holds now does not name the memory's value ("now I mostly write Python" keeps
    "codes in Python" whatever was migrated)."""
    if not _SWITCHED.search(said):
        return False
    now = _CUES["now"].search(said)
    if now is None:
        return False
    clause = re.split(r"[,，。.;；!！?？]|\s(?=[\u4e00-\u9fff])", said[now.start() :], maxsplit=1)[
        0
    ]
    return not (names and names & _names(clause, every=True))


# A switch away from one thing to another ("转kotlin了", "switched over to Linear"): unlike
# "a new school", what it names stays behind.
_SWITCHED = re.compile(
    r"\b(?:switch\w*|swapp?\w*|replac\w*|instead|converted|migrat\w*|moved (?:over )?to)\b"
    r"|转|换成|换了|改用|改成|迁|搬(?:到|去|进)了?\s*(?=[A-Za-z])",
    re.I,
)


def pair_features(
    said: str, known: str, closeness: float, others: float, durable: float
) -> dict[str, float]:
    """The numbers the model judges a pair by: ``closeness`` is the cosine of the two
    embeddings, ``others`` the highest cosine of the sentence with another known memory (a
    change replaces the memory it is about, not every one near it), ``durable`` the
    selector's probability that ``said`` is worth keeping."""
    words, memory = _telling(said), _telling(known)
    shared = len(words & memory) / len(memory) if memory else 0.0
    pairs = _pairs(known)
    shared_pairs = len(_pairs(said) & pairs) / len(pairs) if pairs else 0.0
    names = {n.casefold() for n in _NAME.findall(known)}
    said_names = {n.casefold() for n in _NAME.findall(said)}
    cues = {name: bool(pattern.search(said)) for name, pattern in _CUES.items()}
    close = max(0.0, closeness)
    found: dict[str, float] = {
        "bias": 1.0,
        "close": close,
        "close2": close * close,
        "shared": shared,
        "shared_pairs": shared_pairs,
        "names_old": float(bool(names & said_names)),
        "names_other": float(bool(said_names - names) and bool(names)),
        "durable": durable,
        "closest": float(closeness >= others),
        "margin": max(-0.3, min(0.3, closeness - others)),
        "chinese": float(bool(CJK_RE.search(said))),
    }
    for name, on in cues.items():
        found[f"cue:{name}"] = float(on)
        found[f"close*{name}"] = close * on
    overlap = max(shared, shared_pairs)
    # Close in meaning with the memory's own words missing: a new value of the same thing.
    found["close*new"] = close * (1.0 - overlap)
    found["close*names_other"] = close * found["names_other"]
    found["new*change"] = (1.0 - overlap) * cues["change"]
    found["new*now"] = (1.0 - overlap) * cues["now"]
    # The memory's words with an end: the thing it holds is over.
    found["shared*end"] = overlap * cues["end"]
    found["shared*still"] = overlap * cues["still"]
    found["shared*plan"] = overlap * cues["plan"]
    return found


class Replacing:
    """The fitted model: the probability a sentence replaces a known memory."""

    def __init__(self, weights: dict[str, float], threshold: float) -> None:
        self.weights = weights
        self.threshold = threshold

    def probability(self, features: dict[str, float]) -> float:
        z = sum(self.weights.get(name, 0.0) * value for name, value in features.items())
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    def replaced(
        self,
        said: str,
        known: Sequence[tuple[str, str]],
        closeness: Sequence[float],
        durable: float,
    ) -> str | None:
        """The id of the known memory ``said`` makes no longer so, or None: of the ``known``
        memories (with the cosine of each one's embedding and the sentence's), the likeliest,
        when it is likely enough. A sentence that says a change is about one thing: the
        memories near it that it does not name stay."""
        best, best_p = None, self.threshold
        for i, ((entry_id, content), close) in enumerate(zip(known, closeness, strict=True)):
            if ruled_out(said, content):
                continue
            others = max((c for j, c in enumerate(closeness) if j != i), default=-1.0)
            p = self.probability(pair_features(said, content, close, others, durable))
            if p >= best_p:
                best, best_p = entry_id, p
        return best

    def to_json(self) -> str:
        return json.dumps(
            {
                "threshold": round(self.threshold, 4),
                "weights": {k: round(v, 4) for k, v in sorted(self.weights.items())},
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )


@functools.lru_cache(maxsize=1)
def load_replacing() -> Replacing | None:
    """The shipped model, or None when its file is missing (the fixed rules decide alone)."""
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Replacing({k: float(v) for k, v in data["weights"].items()}, float(data["threshold"]))
