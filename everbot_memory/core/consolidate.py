"""Consolidation (seed 002, "10 -> 3 -> 1"): related, weaker memories condensed into one
stronger memory.

:func:`plan` finds the clusters: memories of one category (and one group) scoring under
:data:`CONSOLIDATE_MAX_SCORE`, each cluster gathered around its strongest member from those at
least ``min_similarity`` alike to it: the overlap of their words, each word weighed by how
rare it is in the file (texts whose numbers differ are never alike). Offline the threshold is
:data:`NEAR_DUPLICATE_SIMILARITY` (near-duplicates: the same thing said a few times, each time
a little differently) and the condensed text is the member that holds the most of the
cluster's words; with an LLM the threshold is :data:`RELATED_SIMILARITY` and the model writes
the condensed sentence.

:func:`apply` makes the new memory (its score: the strongest member's, reinforced once for
each other member; hits added up; ``condensed_from`` lists the members) and moves every member
to Archived with ``condensed_into`` naming it. Nothing is deleted by this step: the members
stay findable by recall, and decay forgets them later like any archived memory.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from .clock import stable_id
from .entry import MemoryEntry
from .rules import EXPIRED_SCORE, KEEP_MIN_SCORE, REINFORCE_RATE
from .scoring import score_at
from .text import numbers, token_set

__all__ = [
    "CONSOLIDATE_MAX_SCORE",
    "NEAR_DUPLICATE_SIMILARITY",
    "RELATED_SIMILARITY",
    "Cluster",
    "apply",
    "plan",
]

#: Only memories scoring under this (as of now) are condensed: the strong ones stand alone.
CONSOLIDATE_MAX_SCORE = 0.6
#: Offline, memories this alike say the same thing (looser than dedupe's rewording, 0.8).
NEAR_DUPLICATE_SIMILARITY = 0.7
#: With an LLM writing the condensed text, memories this alike are about one thing.
RELATED_SIMILARITY = 0.25
#: A token in more than this share of the memories pairs nothing ("user", "prefers").
_COMMON_SHARE = 0.05
#: A memory made by consolidation is not condensed again before this.
RECONDENSE_AFTER = timedelta(days=30)


@dataclass(frozen=True)
class Cluster:
    """Memories to condense into one, strongest first, and the text they become."""

    members: tuple[MemoryEntry, ...]
    content: str

    @property
    def ids(self) -> tuple[str, ...]:
        """The members' ids."""
        return tuple(member.id for member in self.members)


def _eligible(entry: MemoryEntry, now: datetime, replaced: set[str]) -> bool:
    return (
        entry.condensed_into is None
        # A memory another one replaced (a home moved from, a choice reversed) is history:
        # condensing it would bring it back as an Active memory.
        and entry.id not in replaced
        # A memory condensed lately waits before it is condensed again (seed 002: 10 -> 3 at
        # 30 days, -> 1 at 90).
        and not (entry.condensed_from and now - entry.created_at < RECONDENSE_AFTER)
        and entry.category != "todo"  # a todo ends on its day; it is not condensed
        and entry.expires_at is None
        and KEEP_MIN_SCORE <= score_at(entry, now) < CONSOLIDATE_MAX_SCORE
    )


def _covering(members: Sequence[MemoryEntry]) -> str:
    """The member's text that holds the most of the cluster's words (the strongest on a tie)."""
    words: Counter[str] = Counter()
    for member in members:
        words.update(token_set(member.content))
    best = max(members, key=lambda m: sum(words[t] for t in token_set(m.content)))
    return best.content


def _near(tokens: Iterable[str], by_token: Mapping[str, list[int]], common: int) -> set[int]:
    """The memories sharing a word with one of ``tokens``: through its words that are not
    common (pairing every memory by "user" would compare each with all the others); when
    every word it shares is common (more than ``common`` memories saying the same thing),
    through its rarest shared word, so a large cluster of alike memories is still found."""
    near: set[int] = set()
    shared: list[list[int]] = [by_token[t] for t in tokens if len(by_token[t]) > 1]
    for postings in shared:
        if len(postings) <= common:
            near.update(postings)
    if not near and shared:
        rarest: list[int] = min(shared, key=len)
        near.update(rarest)
    return near


def plan(
    entries: Sequence[MemoryEntry],
    now: datetime,
    min_similarity: float = NEAR_DUPLICATE_SIMILARITY,
    min_size: int = 2,
) -> list[Cluster]:
    """The clusters to condense, strongest first; each member in one cluster at most."""
    replaced = {old for entry in entries for old in entry.replaces}
    pool = sorted(
        (e for e in entries if _eligible(e, now, replaced)),
        key=lambda e: (-score_at(e, now), e.id),
    )
    by_token: dict[str, list[int]] = defaultdict(list)
    for number, entry in enumerate(pool):
        for token in token_set(entry.content):
            by_token[token].append(number)
    # Words weigh by how rare they are in the file: "likes ... these days a lot" said of
    # many things does not make two memories alike; the thing they are about does.
    weight = {t: math.log(1 + len(pool) / len(found)) for t, found in by_token.items()}

    def alike(a: str, b: str) -> float:
        ta, tb = token_set(a), token_set(b)
        if not ta or not tb or numbers(a) != numbers(b):
            return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0
        union = sum(weight[t] for t in ta | tb)
        return sum(weight[t] for t in ta & tb) / union if union else 0.0

    common = max(20, int(len(pool) * _COMMON_SHARE))
    taken: set[int] = set()
    clusters: list[Cluster] = []
    for number, seed in enumerate(pool):
        if number in taken:
            continue
        near = _near(token_set(seed.content), by_token, common) - {number}
        members, picked = [seed], [number]
        for other in sorted(near):
            if other == number or other in taken:
                continue
            candidate = pool[other]
            # One category and one group: the condensed memory has one of each, so a member
            # of another group (or of none) would be lost to a filter on its own.
            if (candidate.category, candidate.group) != (seed.category, seed.group):
                continue
            if alike(seed.content, candidate.content) >= min_similarity:
                members.append(candidate)
                picked.append(other)
        if len(members) < min_size:
            continue
        taken.update(picked)
        clusters.append(Cluster(tuple(members), _covering(members)))
    return clusters


def apply(
    entries: Sequence[MemoryEntry],
    clusters: Sequence[Cluster],
    now: datetime,
    texts: Mapping[tuple[str, ...], str] | None = None,
    fresh_id: Callable[[str, set[str]], str] | None = None,
) -> tuple[list[MemoryEntry], list[MemoryEntry]]:
    """``entries`` with each cluster condensed (``texts``: the condensed text by the cluster's
    ids, else the cluster's own); returns the entries and the new memories. A cluster whose
    members are no longer all there as planned is skipped."""
    by_id = {e.id: e for e in entries}
    taken = set(by_id)
    made: list[MemoryEntry] = []
    now = now.replace(microsecond=0)
    for cluster in clusters:
        current = [by_id.get(m.id) for m in cluster.members]
        if any(c is None or c != m for c, m in zip(current, cluster.members, strict=True)):
            continue  # changed since the plan (a session, an editor): plan again
        members = cluster.members
        score = max(score_at(m, now) for m in members)
        for _ in members[1:]:
            score += (1 - score) * REINFORCE_RATE
        # The id comes from the members', so a dry run names the memory the real run makes.
        made_id = (fresh_id or stable_id)(f"consolidate|{'|'.join(cluster.ids)}", taken)
        new = MemoryEntry(
            id=made_id,
            content=(texts or {}).get(cluster.ids) or cluster.content,
            category=members[0].category,
            score=min(1.0, score),
            created_at=min(m.created_at for m in members),
            last_activated=now,
            activation_count=sum(m.activation_count for m in members),
            source_session="consolidate",
            group=members[0].group,
            condensed_from=cluster.ids,
        )
        taken.add(new.id)
        made.append(new)
        for member in members:
            archived = min(score_at(member, now), EXPIRED_SCORE)
            by_id[member.id] = member.replace(
                score=archived, base_score=archived, base_at=now, condensed_into=new.id
            )
    return [*by_id.values(), *made], made
