"""Benchmark: recall latency over 10,000 memories.

Run: python benchmarks/bench_recall.py [--repeat N]

Cold: building the index from the file (with no index cache beside it, and with one). Warm: a
query against an index already in memory (as in a long-running MCP server); a search only
reads, so the file, and so the index, stays the same.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from corpus import QUERIES, make_entries

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.recall.index import RecallIndex


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        MemoryStore(path).save(make_entries(10_000))
        cache = path.with_name("MEMORY.md.index")
        no_cache, with_cache = [], []
        for _ in range(args.repeat):
            cache.unlink(missing_ok=True)
            started = time.perf_counter()
            RecallIndex.for_file(path)
            no_cache.append(time.perf_counter() - started)
            started = time.perf_counter()
            RecallIndex.for_file(path)
            with_cache.append(time.perf_counter() - started)
        manager = MemoryManager(path)
        manager.recall(QUERIES[0], k=5)  # builds the index once
        warm = []
        for _ in range(args.repeat):
            for query in QUERIES:
                started = time.perf_counter()
                manager.recall(query, k=5)
                warm.append(time.perf_counter() - started)
    print(f"recall over 10,000 memories, median of {args.repeat} runs")
    print(f"cold, building the index from the file, no cache: {median_ms(no_cache):7.1f} ms")
    print(f"cold, building the index from the file and cache: {median_ms(with_cache):7.1f} ms")
    print(f"warm query (index in memory; file checked):       {median_ms(warm):7.1f} ms")


if __name__ == "__main__":
    main()
