"""Benchmark: load, merge and save at 100, 1,000 and 10,000 entries; `prompt` and hook start-up.

Run: python tests/benchmarks/bench_store.py [--repeat N]

Prints medians. Load is shown beside markdown-it-py's own parse of the same file (the ratio is
what the engine adds on top of the Markdown parser), and the `everbot-memory prompt` process on
1,000 entries beside a bare interpreter importing the same libraries.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from markdown_it import MarkdownIt

from everbot_memory import MemoryMerger, MemoryStore
from everbot_memory.core.candidate import Candidate
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.rules import CATEGORIES

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
PHRASES_EN = [
    "The user prefers pytest over unittest for new projects",
    "The user deploys the billing service every Friday afternoon",
    "When Nginx returns 502 the user checks gunicorn first",
    "The team decided to use PostgreSQL instead of MongoDB",
]
PHRASES_ZH = [
    "用户喜欢简洁的代码风格，不喜欢过多注释",
    "用户每天早上 9 点查看 A 股行情，关注新能源板块",
    "用户的主要开发语言是 Python，常用 FastAPI 框架",
    "用户提到下周三有产品评审会议，需要准备演示材料",
]


def make_entries(n: int, seed: int = 7) -> list[MemoryEntry]:
    rng = random.Random(seed)
    entries = []
    for i in range(n):
        phrase = rng.choice(PHRASES_ZH if i % 2 else PHRASES_EN)
        activated = NOW - timedelta(days=rng.randint(0, 120), minutes=rng.randint(0, 1440))
        entries.append(
            MemoryEntry(
                id=f"{i:06x}",
                content=f"{phrase} (#{i})",
                category=rng.choice(CATEGORIES),
                score=rng.uniform(0.05, 1.0),
                created_at=activated - timedelta(days=rng.randint(0, 60)),
                last_activated=activated,
                activation_count=rng.randint(1, 30),
                source_session=f"s-{rng.randint(1, 500)}",
            )
        )
    return entries


def median_ms(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_size(n: int, repeat: int, folder: Path) -> str:
    """One row of the table: the medians for a file of ``n`` entries."""
    path = folder / f"MEMORY-{n}.md"
    MemoryStore(path).save(make_entries(n))
    text = path.read_text(encoding="utf-8")
    md = MarkdownIt("commonmark")
    store = MemoryStore(path)
    loaded = store.load()

    load = median_ms(lambda: MemoryStore(path).load(), repeat)
    parse = median_ms(lambda: md.parse(text), repeat)
    candidates = [
        Candidate(content=loaded[0].content),  # a reinforcement
        Candidate(content="The user just adopted a new habit.", importance="high"),
        Candidate(content="用户最近开始学习 Rust", category="skill_usage"),
    ]
    merger = MemoryMerger()
    merge = median_ms(lambda: merger.merge(loaded, candidates, "bench", NOW), repeat)
    counter = iter(range(10**9))

    def save() -> None:
        # Each save writes: the content changes a little every time.
        changed = loaded[0].model_copy(update={"content": f"changed {next(counter)}"})
        store.save([changed, *loaded[1:]])

    save_ms = median_ms(save, repeat)
    return (
        f"{n:>8,} {load:>9.1f} {parse:>9.1f} {load / parse:>6.2f} "
        f"{merge:>8.1f} {save_ms:>9.1f} {load / n * 1000:>9.1f}µs"
    )


def bench_sizes(repeat: int) -> None:
    print(f"median of {repeat} runs, milliseconds; 'md parse' is markdown-it-py on the same file")
    print(
        f"{'entries':>8} {'load':>9} {'md parse':>9} {'ratio':>6} "
        f"{'merge':>8} {'save':>9} {'load/entry':>11}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in (100, 1_000, 10_000):
            print(bench_size(n, repeat, Path(tmp)))


def bench_prompt(repeat: int) -> None:
    script = Path(sys.executable).with_name("everbot-memory")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "everbot_memory"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        MemoryStore(path).save(make_entries(1_000))
        prompt = [*command, "prompt", "--file", str(path)]
        bare = [sys.executable, "-c", "import typer, pydantic, markdown_it, filelock"]
        subprocess.run(prompt, check=True, capture_output=True)  # warm the OS caches
        p = median_ms(lambda: subprocess.run(prompt, check=True, capture_output=True), repeat)
        b = median_ms(lambda: subprocess.run(bare, check=True, capture_output=True), repeat)
        print(f"`everbot-memory prompt` on 1,000 entries: {p:.0f} ms (process wall time)")
        print(f"bare `python -c 'import typer, pydantic, markdown_it, filelock'`: {b:.0f} ms")
        print(f"what prompt adds over the imports: {p - b:.0f} ms")
        event = json.dumps(
            {
                "hook_event_name": "SessionStart",
                "session_id": "bench",
                "source": "startup",
                "cwd": tmp,
                "transcript_path": str(Path(tmp) / "none.jsonl"),
            }
        )
        hook = [*command, "hook", "claude-code", "--file", str(path)]

        def run_hook() -> None:
            subprocess.run(hook, input=event, text=True, check=True, capture_output=True)

        h = median_ms(run_hook, repeat)
        print(f"SessionStart hook (`everbot-memory hook claude-code`) on 1,000 entries: {h:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} on {shutil.which('python3') or sys.executable}")
    bench_sizes(args.repeat)
    print()
    bench_prompt(max(args.repeat, 10))


if __name__ == "__main__":
    main()
