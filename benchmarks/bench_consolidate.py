"""Consolidation on a large file: the plan, the result, and every original still findable.

Run: python benchmarks/bench_consolidate.py [--size 1000] [--repeat 5] [--seed 11] [--show 5]

Builds a memory file of ``--size`` entries in English and Chinese: facts said once, and facts
said two to four times in other words over the weeks (the near-duplicates consolidation is
for), with scores from 0.05 to 1 and activation dates over four months. Then, with the offline
rules (no LLM):

1. the plan (``consolidate --dry-run``): how many clusters, their sizes, a few of them, and
   the size of the diff; the file must be byte-identical afterwards;
2. the result (``consolidate``): memories before and after, new memories, originals archived;
3. every original still in the file, Archived, linked to its new memory, and found by recall
   with its own text (top 10);
4. a second run plans nothing (the originals are linked, the new memories are strong).

Times are medians over ``--repeat`` fresh copies, with a baseline measured in the same loop on
the same file: one locked load and save that changes nothing but the stamp (``maintain``).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from freezegun import freeze_time

from everbot_memory import Memory, MemoryEntry
from everbot_memory.storage.store import MemoryStore

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)

SUBJECTS_EN = [
    "hiking in the Alps",
    "oolong tea",
    "the billing service",
    "Neovim",
    "dark roast coffee",
    "pytest fixtures",
    "the Berlin office",
    "jazz records",
    "PostgreSQL",
    "long bike rides",
    "Rust side projects",
    "the Friday deploy",
    "sourdough bread",
    "chess openings",
    "the staging cluster",
    "Kotlin",
    "mechanical keyboards",
    "sci-fi novels",
    "Grafana",
    "the quarterly report",
    "Terraform",
    "morning runs",
    "the data pipeline",
    "Go",
]
SUBJECTS_ZH = [
    "周末爬山",
    "乌龙茶",
    "记账服务",
    "深色主题",
    "手冲咖啡",
    "单元测试",
    "杭州办公室",
    "爵士乐",
    "数据库迁移",
    "骑行",
    "发布流程",
    "做面包",
    "下围棋",
    "测试集群",
    "季度报告",
    "晨跑",
]
TEMPLATES_EN = [
    (
        "The user likes {s}.",
        "The user really likes {s}.",
        "The user likes {s} a lot.",
        "The user has always liked {s}.",
    ),
    (
        "The user often talks about {s}.",
        "The user talks about {s} often.",
        "The user often talks about {s} at work.",
    ),
    (
        "The user wants to learn more about {s}.",
        "The user wants to learn about {s}.",
        "The user wants to learn more about {s} this year.",
    ),
    (
        "The user had trouble with {s} last month.",
        "The user had trouble with {s}.",
        "The user had some trouble with {s} last month.",
    ),
]
TEMPLATES_ZH = [
    ("用户喜欢{s}", "用户很喜欢{s}", "用户一直喜欢{s}"),
    ("用户经常提到{s}", "用户常常提到{s}", "用户经常在工作中提到{s}"),
    ("用户想多了解{s}", "用户想了解{s}", "用户今年想多了解{s}"),
]
CATEGORIES = ("preference", "fact", "experience", "workflow")


def build(size: int, seed: int) -> list[MemoryEntry]:
    """``size`` entries: facts said once and facts said two to four times in other words."""
    rng = random.Random(seed)
    entries: list[MemoryEntry] = []
    qualifiers = ["", " on weekends", " these days", " at home", " for work", " with friends"]
    while len(entries) < size:
        chinese = rng.random() < 0.4
        subject = rng.choice(SUBJECTS_ZH if chinese else SUBJECTS_EN)
        if not chinese:
            subject += rng.choice(qualifiers)
        variants = rng.choice(TEMPLATES_ZH if chinese else TEMPLATES_EN)
        times = rng.choice([1, 1, 1, 2, 2, 3, 4])
        category = rng.choice(CATEGORIES)
        for variant in rng.sample(variants, min(times, len(variants))):
            if len(entries) >= size:
                break
            at = NOW - timedelta(days=rng.randint(0, 120), minutes=rng.randint(0, 1440))
            entries.append(
                MemoryEntry(
                    id=f"{len(entries):06x}",
                    content=variant.format(s=subject),
                    category=category,  # type: ignore[arg-type]
                    score=round(rng.uniform(0.05, 1.0), 4),
                    created_at=at - timedelta(days=rng.randint(0, 30)),
                    last_activated=at,
                    activation_count=rng.randint(1, 12),
                    source_session=f"s-{rng.randint(1, 400)}",
                )
            )
    return entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--show", type=int, default=5, help="clusters to print")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-consolidate-"))
    source = work / "source.md"
    with freeze_time(NOW):
        MemoryStore(source).save(build(args.size, args.seed))
    print(f"{args.size} memories, {source.stat().st_size / 1024:.0f} KiB, seed {args.seed}")

    plan_times, apply_times, base_times = [], [], []
    for run in range(args.repeat):
        path = work / f"run{run}" / "MEMORY.md"
        path.parent.mkdir()
        shutil.copyfile(source, path)
        # The clock is not frozen while timing (a frozen clock stops perf_counter too):
        # every call is given NOW instead.
        started = time.perf_counter()
        Memory(path, "rules").maintain(now=NOW)
        base_times.append(time.perf_counter() - started)
        before = path.read_bytes()
        started = time.perf_counter()
        plan = Memory(path, "rules").consolidate(dry_run=True, now=NOW)
        plan_times.append(time.perf_counter() - started)
        assert path.read_bytes() == before, "the dry run changed the file"
        originals = {e.id: e for e in Memory(path).entries()}
        started = time.perf_counter()
        done = Memory(path, "rules").consolidate(now=NOW)
        apply_times.append(time.perf_counter() - started)
    base = statistics.median(base_times)
    planned, applied = statistics.median(plan_times), statistics.median(apply_times)
    print(
        f"baseline (locked load + save, maintain): median {base * 1000:.0f} ms\n"
        f"plan (--dry-run, with the diff):         median {planned * 1000:.0f} ms, "
        f"{planned / base:.2f}x the baseline\n"
        f"consolidate:                             median {applied * 1000:.0f} ms, "
        f"{applied / base:.2f}x the baseline"
    )

    # The last run's plan and result, checked.
    sizes = Counter(len(c.members) for c in plan.clusters)
    members = sum(len(c.members) for c in plan.clusters)
    print(
        f"\nplan: {len(plan.clusters)} clusters of {members} memories "
        f"(sizes {dict(sorted(sizes.items()))}); diff {plan.diff.count(chr(10))} lines"
    )
    for cluster in plan.clusters[: args.show]:
        print(f"  {' | '.join(m.content for m in cluster.members)}\n    -> {cluster.content}")
    with freeze_time(NOW):
        after = {e.id: e for e in Memory(path).entries()}
        made = {e.id: e for e in done.made}
        missing = [i for i in originals if i not in after]
        linked = [i for c in plan.clusters for i in c.ids]
        archived = [i for i in linked if after[i].is_active is False and after[i].condensed_into]
        unfound = []
        memory = Memory(path)
        for entry_id, entry in originals.items():
            hits = memory.recall(entry.content, k=10)
            if entry_id not in [h.entry.id for h in hits]:
                unfound.append(entry_id)
        # Those not in the top 10: how far down, and how many memories say nearly the same.
        deeper = {}
        for entry_id in unfound:
            hits = memory.recall(originals[entry_id].content, k=len(after))
            ranked = [h.entry.id for h in hits]
            ties = sum(1 for h in hits if h.relevance >= 0.999)
            deeper[entry_id] = (ranked.index(entry_id) + 1 if entry_id in ranked else None, ties)
        again = Memory(path, "rules").consolidate(dry_run=True)
    scores = [e.score for e in made.values()]
    print(
        f"result: {len(originals)} memories before, {len(after)} after; {len(made)} new "
        f"(scores {min(scores):.2f}-{max(scores):.2f}), {len(archived)} of {len(linked)} "
        "members archived and linked\n"
        f"every original kept: {len(originals) - len(missing)} of {len(originals)}; "
        f"found by recall with its own text (top 10): {len(originals) - len(unfound)} of "
        f"{len(originals)}\nsecond run plans {len(again.clusters)} clusters"
    )
    for entry_id, (rank, ties) in deeper.items():
        print(
            f"  [{entry_id}] {originals[entry_id].content!r}: rank {rank}; "
            f"{ties} memories match all of its words"
        )
    shutil.rmtree(work)
    lost = [i for i, (rank, _) in deeper.items() if rank is None]
    return 0 if not missing and not lost else 1


if __name__ == "__main__":
    sys.exit(main())
