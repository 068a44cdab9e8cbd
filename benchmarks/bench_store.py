"""Benchmark: load, merge and save at 100, 1,000 and 10,000 entries; `prompt` and hook start-up.

Run: python benchmarks/bench_store.py [--repeat N]

Prints medians. Load is shown beside markdown-it-py's own parse of the same file (the ratio is
what the engine adds on top of the Markdown parser), and the `everbot-memory prompt` process on
1,000 entries beside a bare interpreter importing the same libraries.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corpus import NOW, make_entries
from markdown_it import MarkdownIt

from everbot_memory import MemoryMerger, MemoryStore
from everbot_memory.core.candidate import Candidate


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
        changed = loaded[0].replace(content=f"changed {next(counter)}")
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
