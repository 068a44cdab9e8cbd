"""Benchmark: recall latency over 10,000 memories.

Run: python benchmarks/bench_recall.py [--repeat N] [--semantic]

Cold: building the index from the file (with no index cache beside it, and with one), then the
first query. Warm: a query against an index already in memory (as in a long-running MCP
server); a search only reads, so the file, and so the index, stays the same. New process:
``everbot-memory recall QUERY --file F`` run as a command, the index cache present, against a
bare ``python -c pass`` measured in the same loop. Every query shares its words with about
1,250 memories (the corpus repeats eight phrases).

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

from corpus import QUERIES as CORPUS_QUERIES
from corpus import make_entries

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.recall.index import RecallIndex
from everbot_memory.storage.paths import SideFiles

#: A query sharing a word with each of the four English phrases: half the memories match it.
BROAD = "pytest, PostgreSQL, Nginx and the billing service"
QUERIES = [*CORPUS_QUERIES, BROAD]


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
    vectors = SideFiles.of(path).vectors
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


def command() -> list[str]:
    """The installed ``everbot-memory`` command, or the same entry point run by this Python."""
    script = Path(sys.executable).with_name("everbot-memory")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from everbot_memory.faces.entry import main; main()"]


def new_process(path: Path, repeat: int) -> tuple[float, float]:
    """Median seconds of a bare Python and of a ``recall`` command, run alternately."""
    bare, recall = [], []
    for _ in range(repeat):
        for query in QUERIES:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            subprocess.run(
                [*command(), "recall", query, "--file", str(path)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            recall.append(time.perf_counter() - started)
    return statistics.median(bare), statistics.median(recall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    parser.add_argument("--semantic", action="store_true", help="also semantic search")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        MemoryStore(path).save(make_entries(10_000))
        cache = SideFiles.of(path).index
        no_cache, with_cache, first = [], [], []
        for _ in range(args.repeat):
            cache.unlink(missing_ok=True)
            started = time.perf_counter()
            RecallIndex.for_file(path)
            no_cache.append(time.perf_counter() - started)
            for query in QUERIES:
                started = time.perf_counter()
                index = RecallIndex.for_file(path)
                with_cache.append(time.perf_counter() - started)
                started = time.perf_counter()
                index.search(query, k=5)
                first.append(time.perf_counter() - started)
        manager = MemoryManager(path)
        manager.recall(QUERIES[0], k=5)  # builds the index once
        warm = []
        for _ in range(args.repeat):
            for query in QUERIES:
                started = time.perf_counter()
                manager.recall(query, k=5)
                warm.append(time.perf_counter() - started)
        bare, command_time = new_process(path, args.repeat)
        print(f"recall over 10,000 memories, medians of {args.repeat} runs of each query")
        print(f"cold, building the index from the file, no cache: {median_ms(no_cache):7.1f} ms")
        print(f"cold, reading the index cache:                    {median_ms(with_cache):7.1f} ms")
        print(f"cold, the first query of that index:              {median_ms(first):7.1f} ms")
        print(f"warm query (index in memory; file checked):       {median_ms(warm):7.1f} ms")
        print(f"new process, everbot-memory recall (cache):       {command_time * 1000:7.1f} ms")
        print(f"new process, bare python -c pass:                 {bare * 1000:7.1f} ms")
        print(f"  ratio recall / bare python:                     {command_time / bare:7.1f}")
        if args.semantic:
            semantic(path, args.repeat)


if __name__ == "__main__":
    main()
