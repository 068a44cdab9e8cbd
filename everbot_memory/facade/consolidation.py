"""``consolidate``: related, weaker memories condensed into one stronger memory, the originals
archived (never deleted here). The rules are in :mod:`everbot_memory.core.consolidate`; this
module runs them on the file: plan on what is there, ask an LLM backend for the condensed
sentences (outside the lock, the slow part), then under the lock apply the plan to the file as
it is by then (a cluster changed meanwhile is left for next time), or with ``dry_run`` only
show the change as a diff.
"""

from __future__ import annotations

import difflib
import os
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..core.clock import utcnow
from ..core.consolidate import (
    NEAR_DUPLICATE_SIMILARITY,
    RELATED_SIMILARITY,
    Cluster,
    apply,
    plan,
)
from ..core.entry import MemoryEntry
from ..core.redaction import redact

if TYPE_CHECKING:
    from .changes import Changes

__all__ = ["Consolidation", "consolidate", "consolidation_due"]


@dataclass
class Consolidation:
    """What ``consolidate`` planned or did: per cluster, the memories and the text they
    become (and, once applied, the new memory); the change to the file as a unified diff."""

    clusters: list[Cluster]
    texts: dict[tuple[str, ...], str]
    made: list[MemoryEntry] = field(default_factory=list)
    diff: str = ""
    applied: bool = False
    #: How the condensed texts were written: "rules" (near-duplicates only) or the backend.
    writer: str = "rules"
    skipped: int = 0  # clusters that changed between the plan and the save

    def to_json(self) -> dict[str, Any]:
        """The plan or result as JSON values."""
        return {
            "applied": self.applied,
            "writer": self.writer,
            "clusters": [
                {
                    "members": [{"id": m.id, "content": m.content} for m in c.members],
                    "content": self.texts.get(c.ids, c.content),
                    "new_id": next((e.id for e in self.made if e.condensed_from == c.ids), None),
                }
                for c in self.clusters
            ],
            "skipped": self.skipped,
        }


def consolidate(
    memory: Changes,
    condenser: Any = None,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
) -> Consolidation:
    """Plan and (unless ``dry_run``) apply a consolidation of ``memory``'s file;
    ``condenser``: an LLM backend with ``condense(groups)`` (None: the rules)."""
    now = (now or utcnow()).replace(microsecond=0)
    if not callable(getattr(condenser, "condense", None)):
        condenser = None
    threshold = RELATED_SIMILARITY if condenser is not None else NEAR_DUPLICATE_SIMILARITY
    clusters = plan(memory.store.load(), now, threshold)
    texts: dict[tuple[str, ...], str] = {c.ids: c.content for c in clusters}
    writer = "rules"
    if condenser is not None and clusters:
        written = condenser.condense([[m.content for m in c.members] for c in clusters])
        writer = getattr(condenser, "name", type(condenser).__name__)
        for cluster, text in zip(clusters, written, strict=True):
            redacted = redact(text)
            # A sentence that is only a secret is no memory: the cluster keeps its own text.
            texts[cluster.ids] = cluster.content if redacted.only_secret else redacted.text
    result = Consolidation(clusters, texts, writer=writer)
    if dry_run:
        from ..document.render import render

        before = memory.store.load_document()
        after_entries, made = apply(before.entries, clusters, now, texts)
        after = type(before)(
            entries=after_entries,
            preamble=before.preamble,
            notes=before.notes,
            last_updated=before.last_updated,
        )
        # The old side is the file as it is on disk: what a person sees in an editor.
        old = (memory.store.read_bytes() or b"").decode("utf-8", errors="replace")
        new = render(after)
        result.diff = "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"{memory.path} (now)",
                f"{memory.path} (consolidated)",
            )
        )
        result.made = made
        return result
    made_now: list[MemoryEntry] = []

    def change(existing: list[MemoryEntry]) -> list[MemoryEntry]:
        entries, made = apply(existing, clusters, now, texts)
        made_now[:] = made
        return entries

    if clusters:
        memory._update(change)
    result.made, result.applied = made_now, True
    result.skipped = len(clusters) - len(made_now)
    _mark(memory, now)
    return result


def _mark(memory: Changes, now: datetime) -> None:
    """Record when a consolidation ran (the mtime of a side file)."""
    path = memory.store.files.last_consolidation
    memory.store.files.ensure()
    with open(path, "a", encoding="utf-8"):
        pass
    os.utime(path, (now.timestamp(), now.timestamp()))


def consolidation_due(memory: Changes, every_days: float, now: float | None = None) -> bool:
    """True when the last consolidation of ``memory`` is ``every_days`` old, or never ran."""
    now = time.time() if now is None else now
    try:
        last = memory.store.files.last_consolidation.stat().st_mtime
    except FileNotFoundError:
        return True
    return now - last >= every_days * 86_400
