"""Text as the engine compares it: normal forms, search tokens, similarity, token counts.

Search tokens work for English and for Chinese, Japanese and Korean, where whitespace finds no
words: English words are lower-cased, stop words dropped and the rest stemmed (Snowball, with
the common irregular verbs brought to their base: "went" meets "go"); a CJK run gives its
single characters and its overlapping character pairs.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import Stemmer  # PyStemmer: the Snowball stemmers compiled, loaded in a millisecond

__all__ = [
    "CJK_RANGES",
    "CJK_RE",
    "CODE_SPAN_RE",
    "casefolded",
    "estimate_tokens",
    "generic_terms",
    "normalize_content",
    "numbers",
    "one_line",
    "probes",
    "search_tokens",
    "similarity",
    "stem",
    "token_set",
    "tokenize",
]

#: Hiragana, katakana, CJK ideographs (with extension A and compatibility), Hangul syllables.
CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_RE = re.compile(f"[{CJK_RANGES}]")
#: Code quoted inside a line of prose, in backticks ("ruff flags `fmt = lambda x: ...`").
CODE_SPAN_RE = re.compile(r"`[^`\n]+`")
_TOKEN_RE = re.compile(f"[{CJK_RANGES}]+|[^\\W_]+", re.UNICODE)
_NUMBER_RE = re.compile(r"\d+(?:[.:]\d+)*")

# English words too common to tell memories apart.
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "with",
        "about",
        "as",
        "into",
        "over",
        "after",
        "before",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "can",
        "will",
        "just",
        "should",
        "would",
        "could",
        "there",
        "here",
        "then",
        "once",
        "again",
        "also",
        "s",
        "t",
    ]
)
_STEMMER = Stemmer.Stemmer("english")

# Irregular past forms Snowball leaves alone, by base form ("bought" never meets "buy"
# otherwise). Only forms that are rarely anything else: not "lay", "lit", "led", "ground";
# not "said" or "told", which the offline extractor looks for as they are.
_IRREGULAR_FORMS = {
    "go": "went gone",
    "make": "made",
    "buy": "bought",
    "take": "took taken",
    "get": "got gotten",
    "see": "saw seen",
    "give": "gave given",
    "come": "came",
    "find": "found",
    "think": "thought",
    "feel": "felt",
    "leave": "left",
    "meet": "met",
    "begin": "began begun",
    "run": "ran",
    "write": "wrote written",
    "eat": "ate eaten",
    "drink": "drank drunk",
    "drive": "drove driven",
    "fly": "flew flown",
    "grow": "grew grown",
    "know": "knew known",
    "teach": "taught",
    "catch": "caught",
    "bring": "brought",
    "build": "built",
    "choose": "chose chosen",
    "draw": "drew drawn",
    "fall": "fell fallen",
    "forget": "forgot forgotten",
    "hold": "held",
    "keep": "kept",
    "lose": "lost",
    "pay": "paid",
    "ride": "rode ridden",
    "sell": "sold",
    "send": "sent",
    "sing": "sang sung",
    "sit": "sat",
    "sleep": "slept",
    "speak": "spoke spoken",
    "spend": "spent",
    "stand": "stood",
    "swim": "swam swum",
    "win": "won",
    "wear": "wore worn",
    "break": "broke broken",
    "hear": "heard",
    "fight": "fought",
    "hide": "hid hidden",
    "steal": "stole stolen",
    "throw": "threw thrown",
    "understand": "understood",
    "wake": "woke woken",
}
_IRREGULAR = {
    form: str(_STEMMER.stemWord(base))
    for base, forms in _IRREGULAR_FORMS.items()
    for form in forms.split()
}

# What recall ignores. The engine writes "the user" / "用户" into nearly every memory, so it
# tells no memory apart; a Chinese run is cut where it stands, and at sentence particles and
# "的", so that no character pair spans them ("用户打高尔夫吗" gives 打高, 高尔, 尔夫, never 户打).
# Single characters that are particles, pronouns or function words weigh nothing either; the
# pairs that hold them stay ("过敏" keeps its "过").
_SEARCH_CUT = re.compile("用户|[的吗呢吧啊呀嘛]")
_WEIGHTLESS = frozenset(
    [
        *("user", "什么", "怎么", "哪些", "哪里", "哪个", "为什", "是不", "不是", "有没", "没有"),
        *"了是在么着过和与及或也都就又还才很太更最我你他她它们这那哪谁啥",
        *"个些把被给让对向从到于为以而之其得地会",
    ]
)


# English words a query leans on without being about them ("does the user *use* docker",
# "what does the user *think* about it"): they weigh in a query, but a memory that shares only
# such words with a query that says more is no match. Stems, as tokens are.
_GENERIC_WORDS = (
    "use used using uses like likes get got go went going make made want wants need needs "
    "know knew think thought say said tell told take took come came see saw look looks find "
    "found give gave keep kept let put seem feel felt try tried call called ask asked mean "
    "thing things stuff something anything everything nothing someone anyone way lot kind sort"
)


@functools.lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    """The Snowball (Porter 2) English stem: "painting" and "paints" meet "paint"; "went"
    meets "go"."""
    return _IRREGULAR.get(word) or str(_STEMMER.stemWord(word))


@functools.lru_cache(maxsize=1)
def generic_terms() -> frozenset[str]:
    """The search tokens of the words a query leans on without being about them."""
    return frozenset(_stem(word) for word in _GENERIC_WORDS.split())


def stem(word: str) -> str:
    """The English stem of one lower-cased word (memoized)."""
    return _stem(word)


# The irregular forms that give each stem ("go": "went", "gone").
_FORMS_OF: dict[str, tuple[str, ...]] = {}
for _form, _base in _IRREGULAR.items():
    _FORMS_OF[_base] = (*_FORMS_OF.get(_base, ()), _form)


def casefolded(text: str) -> str:
    """``text`` as :func:`tokenize` reads it: NFKC, case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def probes(token: str) -> tuple[str, ...]:
    """Strings one of which is in ``casefolded(text)`` for every text whose :func:`tokenize`
    gives ``token``; () when there is no such cheap test.

    A CJK token is a piece of the text itself. An English stem differs from every word it
    comes from in at most its last two letters (Snowball's replacements: "possibility" gives
    "possibl", "dying" gives "die", "happy" gives "happi"), so the word starts with the stem
    less those two; the irregular forms ("went" for "go") are their own probes.
    """
    if CJK_RE.match(token):
        return (token,)
    head = token[:-2]
    return (head, *_FORMS_OF.get(token, ())) if head else ()


def tokenize(text: str) -> list[str]:
    """Search tokens: stemmed English words without stop words; CJK characters and pairs."""
    tokens: list[str] = []
    for run in _TOKEN_RE.findall(unicodedata.normalize("NFKC", text).casefold()):
        if CJK_RE.match(run):
            tokens.extend(run)
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif run not in _STOP:
            tokens.append(_stem(run))
    return tokens


def search_tokens(text: str) -> list[str]:
    """The tokens recall weighs: like :func:`tokenize`, without the ones that tell no memory
    apart, and with Chinese runs cut at "用户" and at particles."""
    tokens: list[str] = []
    for run in _TOKEN_RE.findall(unicodedata.normalize("NFKC", text).casefold()):
        if CJK_RE.match(run):
            for piece in _SEARCH_CUT.split(run):
                tokens.extend(c for c in piece if c not in _WEIGHTLESS)
                pairs = (piece[i : i + 2] for i in range(len(piece) - 1))
                tokens.extend(pair for pair in pairs if pair not in _WEIGHTLESS)
        elif run not in _STOP and run not in _WEIGHTLESS:
            tokens.append(_stem(run))
    return tokens


@functools.lru_cache(maxsize=65_536)
def token_set(text: str) -> frozenset[str]:
    """The distinct search tokens of ``text`` (memoized: merges compare the same texts often)."""
    return frozenset(tokenize(text))


@functools.lru_cache(maxsize=65_536)
def numbers(text: str) -> tuple[str, ...]:
    """The numbers in ``text``, in order ("9:30", "3.12.1", "42")."""
    return tuple(_NUMBER_RE.findall(text))


def normalize_content(content: str) -> str:
    """The form two contents are compared in: lower-cased, trimmed, final "。" or "." dropped."""
    return content.strip().lower().rstrip("。.").strip()


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' token sets (1.0: the same words).

    Texts whose numbers differ ("at 9" and "at 10", "version 2" and "version 3") state
    different things, however alike the rest: their similarity is 0.
    """
    ta, tb = token_set(a), token_set(b)
    if not ta or not tb:
        return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0
    if numbers(a) != numbers(b):
        return 0.0
    return len(ta & tb) / len(ta | tb)


def estimate_tokens(text: str) -> int:
    """A rough, offline token count: one per CJK character, one per 4 other characters."""
    cjk = len(CJK_RE.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def one_line(content: str, limit: int) -> str:
    """``content`` with its whitespace folded to single spaces, cut to ``limit`` with "…"."""
    line = " ".join(content.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
