"""Semantic recall's two numbers per memory: where it ranks, by reciprocal rank fusion of the
word ranking and the meaning ranking, and how relevant it is, on the lexical 0-to-1 scale.

Ranks are fused rather than scores because BM25 shares and cosines live on scales that do not
compare (a cosine of 0.5 means "close" for one model and "unrelated" for another), while "first
by words, third by meaning" means the same whatever the models; the meaning ranking counts by
how well the model ranks (its ``weight``). The fused rank only orders; it says nothing about
whether a memory is relevant at all, so the floor stays absolute: a memory is returned when its
words pass :data:`~.index.RELEVANCE_FLOOR` or its cosine reaches the model's ``threshold``,
calibrated so that texts unrelated to each other stay under it."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["MEANING_WEIGHT", "RRF_K", "fuse"]

#: The reciprocal rank fusion constant: a memory earns 1 / (RRF_K + rank) from each ranking.
#: The usual 60 suits long result lists; memories are searched for the first few, and 10 lets
#: those count more (LoCoMo dev R@10, unweighted: 0.620 with 60, 0.666 with 10).
RRF_K = 10
#: What a place in the meaning ranking earns against the same place in the word ranking, for
#: a model that does not say (each bundled model carries its own ``weight``, measured on
#: LoCoMo dev: a model that ranks worse than the words counts less).
MEANING_WEIGHT = 0.7


def fuse(
    lexical: dict[int, float],
    cosines: Any,
    threshold: float,
    floor: float,
    base: float,
    words: list[int] | None = None,
    weight: float = MEANING_WEIGHT,
) -> dict[int, tuple[float, float]]:
    """For each memory whose relevance by words or meaning reaches ``floor``: its fused order
    (higher first) and that relevance, from 0 to 1.

    ``lexical`` maps a memory's number to its BM25 share of the query, and ``words`` lists
    those memories in the word ranking's order (by that share if not given); ``cosines``
    holds every memory's cosine with the query. A cosine at ``threshold`` counts as relevance
    ``base`` (the default floor), and 1.0 as 1.0, so a memory found by meaning alone is on the
    same scale as one found by words.
    """
    semantic = base + (1 - base) * (numpy.asarray(cosines) - threshold) / (1 - threshold)
    relevance = {int(n): float(semantic[n]) for n in numpy.flatnonzero(semantic >= floor)}
    for number, value in lexical.items():
        relevance[number] = max(value, relevance.get(number, 0.0))
    relevance = {n: min(1.0, v) for n, v in relevance.items() if v >= floor and v > 0}
    if not relevance:
        return {}
    if words is None:
        words = sorted(lexical, key=lambda n: -lexical[n])
    by_words = {n: r for r, n in enumerate(words, 1)}
    # Only the candidates' places by meaning are needed, but among every memory.
    order = numpy.argsort(-numpy.asarray(cosines), kind="stable")
    by_meaning = numpy.empty(len(order), dtype=numpy.int64)
    by_meaning[order] = numpy.arange(1, len(order) + 1)
    fused = {}
    for number, value in relevance.items():
        lexically = 1 / (RRF_K + by_words[number]) if number in by_words else 0.0
        meaning = weight / (RRF_K + int(by_meaning[number]))
        fused[number] = (lexically + meaning, value)
    return fused
