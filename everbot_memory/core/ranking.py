"""The arithmetic of recall and decay on plain numbers, shared by the full search and the hooks'.

:class:`everbot_memory.recall.index.RecallIndex` ranks the entries of a parsed file; the
hooks rank the rows of the compact index written beside it (:mod:`everbot_memory.storage.hot`)
without parsing anything. Both call these functions, so the two always agree. Times are
seconds since the epoch. Standard library only: this module is on the hooks' fast path.

Ranking fuses three signals with the weights in :data:`WEIGHTS` (seed 002's 0.6 relevance,
0.2 recency, 0.2 importance, tuned on the LoCoMo dev set by ``benchmarks/eval_recall.py``):
relevance (Okapi BM25 as a share of the query's ideal score), recency (``0.5 ** (days since
last activation / 30)``) and the memory's strength: its score when last activated or set by
hand, undecayed, because its age is what recency already counts (the decayed score counted age
twice: a year-old memory lost up to 0.06 of rank to it on top of recency).

Relevance decides *whether* a memory is returned, on an absolute scale; the *order* of the
memories relevant enough comes from :func:`feedback_order`, BM25 of the query widened by
pseudo-relevance feedback: the words that best tell apart the few best memories join the query,
at less than a word of the query, so among the memories matching "married", one that also says
"wedding", as the best hits do, ranks higher. Feedback only reorders: it never makes a memory
relevant. On LoCoMo most of its gain comes from the dates the turns carry: memories of the same
day as the best hits rise with them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from .rules import DAILY_DECAY, GRACE_DAYS
from .text import generic_terms

__all__ = [
    "FEEDBACK_DOCS",
    "FEEDBACK_TERMS",
    "FEEDBACK_WEIGHT",
    "K1",
    "RECENCY_HALF_LIFE_DAYS",
    "RELEVANCE_FLOOR",
    "REPLACED_STANDING",
    "SINGLES",
    "WEIGHTS",
    "B",
    "bm25",
    "decay_days",
    "decayed",
    "feedback_order",
    "rank",
    "recency",
]

#: How much each signal counts in the final rank (they add up to 1).
WEIGHTS = {"relevance": 0.85, "recency": 0.05, "score": 0.10}
#: BM25 parameters; lower than the textbook 1.2 / 0.75 because memories are short.
K1, B = 0.8, 0.35
RECENCY_HALF_LIFE_DAYS = 30.0
#: How much of its standing a replaced memory keeps in the order of results.
REPLACED_STANDING = 0.5
#: The least relevance (the share of the query's weight a memory matches) worth returning.
RELEVANCE_FLOOR = 0.1
#: A memory matching a Chinese query by single characters only needs this many of them.
SINGLES = 2
#: Pseudo-relevance feedback: the best FEEDBACK_DOCS relevant memories lend their
#: FEEDBACK_TERMS most telling words to the query, the first at FEEDBACK_WEIGHT of a query
#: word and the others in proportion. Textbook values (RM3 takes 5 to 10 documents and 10 to
#: 20 terms at 0.3 to 0.5). On LoCoMo dev, tuned on conv-26/30/41 and checked on conv-42/43,
#: R@10 0.702 and 0.698 with these, within 0.01 with any of 0.3-0.7 / 5-10 / 10-20, and about
#: 0.03 more than without feedback.
FEEDBACK_DOCS = 5
FEEDBACK_TERMS = 10
FEEDBACK_WEIGHT = 0.5

_DAY = 86_400.0

#: The postings of a term: the documents that hold it, with how many times.
Postings = Callable[[str], Sequence[tuple[int, int]]]
#: The search tokens of a document, by its number.
Tokens = Callable[[int], Sequence[str]]


def decay_days(at: float, last_activated: float) -> int:
    """Whole days of decay at ``at``: days since the activation, less the grace period."""
    days = math.floor((at - last_activated) / _DAY)
    return max(0, days - GRACE_DAYS)


def decayed(base_score: float, base_at: float, last_activated: float, now: float) -> float:
    """The score at ``now`` of a memory that had ``base_score`` at ``base_at``:
    ``base_score * 0.99 ** (decay days at now - decay days at base_at)``; it never rises."""
    # decay_days(now, ...) - decay_days(base_at, ...), written out: a merge runs this for
    # every memory of the file, and the calls cost more than the arithmetic.
    later = math.floor((now - last_activated) / _DAY) - GRACE_DAYS
    earlier = math.floor((base_at - last_activated) / _DAY) - GRACE_DAYS
    days = (later if later > 0 else 0) - (earlier if earlier > 0 else 0)
    return float(base_score * DAILY_DECAY ** (days if days > 0 else 0))


def recency(last_activated: float, now: float) -> float:
    """``0.5 ** (days since the last activation / 30)``."""
    days = max(0.0, (now - last_activated) / _DAY)
    return float(0.5 ** (days / RECENCY_HALF_LIFE_DAYS))


def _idf(total: int, found: int) -> float:
    return math.log(1 + (total - found + 0.5) / (found + 0.5))


def bm25(
    terms: Iterable[str],
    postings: Postings,
    lengths: Sequence[int],
    average: float,
    is_single: Callable[[str], bool],
) -> dict[int, float]:
    """BM25 relevance of every document that matches ``terms``, as a share of the query's ideal
    score (capped at 1.0).

    ``postings(term)`` lists ``(document, count)``; ``is_single(term)`` says whether a term is
    one CJK character. A document matches when it shares a word with the query, or a pair of
    characters: one character in common ("会" in "用户会滑雪吗" and in "开会") is not a match,
    unless the query has no longer term at all. Likewise a generic word ("use" in "does the
    user use docker") is no match on its own when the query says more.
    """
    scores: dict[int, float] = {}
    matched: set[int] = set()
    singles: Counter[int] = Counter()
    total = len(lengths)
    ideal = 0.0
    terms = set(terms)
    generic = generic_terms()
    weak = {term for term in terms if term in generic or is_single(term)}
    pairs = len(weak) < len(terms)
    for term in terms:
        found = postings(term)
        # A term no memory holds weighs the most: a query about something never said should
        # not be carried by its common words.
        idf = _idf(total, len(found))
        ideal += idf
        evidence = not pairs or term not in weak
        for number, count in found:
            norm = K1 * (1 - B + B * lengths[number] / (average or 1))
            scores[number] = scores.get(number, 0.0) + idf * count * (K1 + 1) / (count + norm)
            if evidence:
                matched.add(number)
            else:
                singles[number] += 1
    matched.update(n for n, count in singles.items() if count >= SINGLES)
    if not ideal:
        return {}
    return {number: min(1.0, scores[number] / ideal) for number in matched}


def feedback_order(
    terms: Iterable[str],
    relevance: dict[int, float],
    postings: Postings,
    tokens_of: Tokens,
    lengths: Sequence[int],
    average: float,
    is_single: Callable[[str], bool],
) -> dict[int, float]:
    """The order of the ``relevance`` memories (higher first): BM25 of the query's ``terms``
    widened by feedback from the best of them.

    A candidate word's worth is its share of each of the best memories' tokens, times its
    inverse document frequency, times how close that memory came to the best. Single CJK
    characters lend nothing: their pairs do. ``postings`` is called once per term.
    """
    terms = set(terms)
    total = len(lengths)
    known: dict[str, Sequence[tuple[int, int]]] = {}

    def found(term: str) -> Sequence[tuple[int, int]]:
        if term not in known:
            known[term] = postings(term)
        return known[term]

    best = sorted(relevance, key=lambda n: (-relevance[n], n))[:FEEDBACK_DOCS]
    worth: dict[str, float] = {}
    rarity: dict[str, float] = {}
    if best:
        top = relevance[best[0]] or 1.0
        for number in best:
            tokens = tokens_of(number)
            for term, count in Counter(tokens).items():
                if term in terms or is_single(term):
                    continue
                if term not in rarity:
                    rarity[term] = _idf(total, len(found(term)))
                share = count / len(tokens) * relevance[number] / top
                worth[term] = worth.get(term, 0.0) + share * rarity[term]
    chosen = sorted((t for t in worth if worth[t] > 0), key=lambda t: (-worth[t], t))
    chosen = chosen[:FEEDBACK_TERMS]
    weights = dict.fromkeys(terms, 1.0)
    if chosen:
        strongest = worth[chosen[0]]
        weights.update((t, FEEDBACK_WEIGHT * worth[t] / strongest) for t in chosen)
    order = dict.fromkeys(relevance, 0.0)
    for term, weight in weights.items():
        holding = found(term)
        idf = _idf(total, len(holding)) * weight
        for number, count in holding:
            if number in order:
                norm = K1 * (1 - B + B * lengths[number] / (average or 1))
                order[number] += idf * count * (K1 + 1) / (count + norm)
    return order


def rank(standing: float, recency_value: float, strength: float, replaced: bool) -> float:
    """The order of a hit: its standing (relevance, or its fused rank, as a share of the best
    one's), recency and strength (its anchor score, undecayed), weighed by :data:`WEIGHTS`.

    A memory another one replaced ("works at Google" after "joined Meta") is found, but below
    what replaced it: it is history, not the current fact.
    """
    if replaced:
        standing *= REPLACED_STANDING
    return (
        WEIGHTS["relevance"] * standing
        + WEIGHTS["recency"] * recency_value
        + WEIGHTS["score"] * strength
    )
