"""Benchmark: recall latency over 10,000 memories.

Run: python benchmarks/bench_recall.py [--repeat N] [--semantic]

Cold: building the index from the file (with no index cache beside it, and with one). Warm: a
query against an index already in memory (as in a long-running MCP server); a search only
reads, so the file, and so the index, stays the same.

With ``--semantic`` (the embeddings extra): the first semantic search of a new process, with the
memories' vectors absent (every memory is embedded) and present (``MEMORY.md.vectors``), model
loading included; then a warm semantic query.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import QUERIES, make_entries

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.recall.index import RecallIndex


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def first_semantic_search(path: Path) -> float:
    """Seconds for a new process's first semantic search (run in a child process)."""
    code = (
        "import sys, time; started = time.perf_counter()\n"
        "from everbot_memory import MemoryManager\n"
        "MemoryManager(sys.argv[1]).recall(sys.argv[2], k=5, semantic=True)\n"
        "print(time.perf_counter() - started)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), QUERIES[0]],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(done.stdout)


def semantic(path: Path, repeat: int) -> None:
    vectors = path.with_name("MEMORY.md.vectors")
    vectors.unlink(missing_ok=True)
    absent = first_semantic_search(path)
    present = [first_semantic_search(path) for _ in range(max(1, repeat // 2))]
    manager = MemoryManager(path)
    manager.recall(QUERIES[0], k=5, semantic=True)
    warm = []
    for _ in range(repeat):
        for query in QUERIES:
            started = time.perf_counter()
            manager.recall(query, k=5, semantic=True)
            warm.append(time.perf_counter() - started)
    print(f"semantic, first search of a process, no vectors:  {absent * 1000:7.0f} ms")
    print(f"semantic, first search of a process, vectors:     {median_ms(present):7.0f} ms")
    print(f"semantic, warm query:                             {median_ms(warm):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    parser.add_argument("--semantic", action="store_true", help="also semantic search")
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
        if args.semantic:
            semantic(path, args.repeat)


if __name__ == "__main__":
    main()
