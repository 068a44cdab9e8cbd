"""Benchmark: the merge driver on two 10,000-entry sides, against one load plus one save.

Run: python benchmarks/bench_merge.py [--entries N] [--repeat N]

The ancestor is a file of N memories; each side is a day of work on it, as two machines do it:
100 memories confirmed (20 of them on both sides), 100 learned (10 the same on both), 50
forgotten, 20 reworded (2 differently on both sides: conflicts), then decay brought up to
that side's day, which rewrites the score of most memories. Measured in the same run, as
medians:

- ``driver``: what ``everbot-memory merge-driver`` does in-process (read the three files,
  merge, check, write the result);
- ``load + save``: ``MemoryStore.load()`` of one side's file, then a save that changes one
  memory (the engine's own file, as a session finds it);
- ``command``: the whole ``everbot-memory merge-driver`` process, interpreter start included.

The issue's bar: the driver at most 2x one load plus one save.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from corpus import NOW, make_entries

from everbot_memory import MemoryEntry, MemoryStore
from everbot_memory.core.scoring import decay, reinforce
from everbot_memory.facade.sync import merge_files


def median_ms(function: Callable[[], object], repeat: int, before: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def side(
    entries: list[MemoryEntry], name: str, day: int, shared: list[str], both: list[str]
) -> list[MemoryEntry]:
    """One machine's day of work on ``entries``."""
    rng = random.Random(name)
    now = NOW + timedelta(days=day, hours=rng.randint(0, 8))
    by_id = {e.id: e for e in entries}
    ids = sorted(by_id)
    for entry_id in [*both, *rng.sample(ids, 80)]:
        by_id[entry_id] = reinforce(by_id[entry_id], now)
    for entry_id in rng.sample(ids, 50):
        by_id.pop(entry_id, None)
    for n, entry_id in enumerate([*both[:2], *rng.sample(ids, 18)]):
        if entry_id in by_id:
            by_id[entry_id] = by_id[entry_id].replace(content=f"Reworded on {name}, {n}.")
    for n in range(100):
        number = n + day * 1000  # numbers differ: not taken for the other side's memories
        content = shared[n] if n < len(shared) else f"Learned on {name}: fact number {number}."
        new = MemoryEntry(
            id=f"{name}{n:05d}",
            content=content,
            score=0.6,
            created_at=now,
            last_activated=now,
            source_session=name,
        )
        by_id[new.id] = new
    return [decay(e, now) for e in by_id.values()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base, ours, theirs, work = (folder / n / "MEMORY.md" for n in ("O", "A", "B", "W"))
        for path in (base, ours, theirs, work):
            path.parent.mkdir()
        entries = make_entries(args.entries)
        MemoryStore(base).save(entries)
        rng = random.Random(1)
        both = rng.sample(sorted(e.id for e in entries), 20)
        shared = [f"The user started a new hobby, number {n}." for n in range(10)]
        MemoryStore(ours).save(side(entries, "a", 30, shared, both))
        MemoryStore(theirs).save(side(entries, "b", 32, shared, both))
        a_bytes = ours.read_bytes()

        def reset() -> None:
            work.write_bytes(a_bytes)

        reset()
        report = merge_files(base, work, theirs, name="MEMORY.md")
        counter = iter(range(10**9))

        def load_and_save() -> None:
            # The engine's own file, as a session finds it: one load, one save that writes.
            store = MemoryStore(ours)
            loaded = store.load()
            store.save([loaded[0].replace(content=f"changed {next(counter)}"), *loaded[1:]])

        driver = median_ms(lambda: merge_files(base, work, theirs), args.repeat, reset)
        io = median_ms(load_and_save, args.repeat, lambda: None)
        program = Path(sys.executable).parent / "everbot-memory"
        command = [str(program), "merge-driver", str(base), str(work), str(theirs)]
        whole = median_ms(lambda: subprocess.run(command, capture_output=True), args.repeat, reset)
    print(
        f"{args.entries:,} entries a side, {len(a_bytes) / 1e6:.1f} MB; the merge: "
        f"{report.entries:,} memories, {report.added} added, {report.deleted} deleted, "
        f"{report.combined} combined, {report.folded} folded, {len(report.conflicts)} "
        "conflict(s)"
    )
    print(f"median of {args.repeat} runs, milliseconds")
    print(f"{'driver':>14} {'load + save':>12} {'ratio':>6} {'command':>9}")
    print(f"{driver:>14.0f} {io:>12.0f} {driver / io:>6.2f} {whole:>9.0f}")


if __name__ == "__main__":
    main()
