"""How long each Claude Code hook takes as Claude Code runs it, against a bare interpreter.

Each run starts the installed ``everbot-memory hook claude-code`` as a new process with the
hook's JSON on stdin, exactly as Claude Code does (the package compiled first, as pip leaves
it), and a bare ``python -c pass`` in the same loop, in turn, so the ratio holds whatever the
machine's speed does meanwhile. The user's memory holds N entries (1k and 10k by default),
activated over the last weeks; the caches beside it are those the last save wrote.

    python benchmarks/bench_hooks.py [--sizes 1000 10000] [--runs 21]

Prints, per size and hook, the median wall time and the median of the paired ratios
(hook / bare interpreter). The budget: SessionStart 2x at 1k and 3x at 10k, UserPromptSubmit
2.5x and 4x, SessionEnd 1.5x.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import make_entries

from everbot_memory import MemoryStore

BUDGET = {
    ("SessionStart", 1000): 2.0,
    ("SessionStart", 10000): 3.0,
    ("UserPromptSubmit", 1000): 2.5,
    ("UserPromptSubmit", 10000): 4.0,
    ("SessionEnd", 1000): 1.5,
    ("SessionEnd", 10000): 1.5,
}
PROMPTS = [
    "Which test framework should I use for the new billing service?",
    "用户喜欢什么样的代码风格？",
    "Can you set up the PostgreSQL migration for me?",
    "what was that thing about the A 股 market again",
]


def command() -> list[str]:
    """The installed command, as ``everbot-memory install`` writes it into the hooks."""
    script = Path(sys.executable).with_name("everbot-memory")
    return [str(script)] if script.exists() else [sys.executable, "-m", "everbot_memory"]


def fill(path: Path, n: int) -> None:
    """``n`` entries activated over the last 60 days, so that the strongest are worth showing."""
    rng = random.Random(n)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    entries = []
    for entry in make_entries(n):
        at = now - timedelta(days=rng.uniform(0, 60))
        entries.append(
            entry.replace(
                created_at=at,
                last_activated=at,
                base_at=at,
                base_score=entry.score,
                expires_at=None,
            )
        )
    store = MemoryStore(path)
    store.load()
    store.save(entries)


def timed(args: list[str], stdin: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, input=stdin, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument(
        "--hooks", nargs="+", default=["SessionStart", "UserPromptSubmit", "SessionEnd"]
    )
    options = parser.parse_args()
    bare = [sys.executable, "-c", "pass"]
    # As an installed package runs: compiled once (pip compiles at install time), so that no
    # run pays for compiling (PYTHONDONTWRITEBYTECODE would otherwise make every run compile).
    import everbot_memory

    package = Path(everbot_memory.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    print(f"{'entries':>8} {'hook':<17} {'median':>9} {'bare':>8} {'ratio':>6} {'budget':>6}")
    for size in options.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            project = root / "project"
            project.mkdir()
            memory = root / "data" / "everbot-memory" / "MEMORY.md"
            memory.parent.mkdir(parents=True)
            fill(memory, size)
            transcript = root / "session.jsonl"
            transcript.write_text("", encoding="utf-8")
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("EVERBOT_")},
                "HOME": str(root / "home"),
                "XDG_DATA_HOME": str(root / "data"),
                "CLAUDE_PROJECT_DIR": str(project),
            }
            for event in options.hooks:
                hook_times, bare_times, ratios = [], [], []
                for run in range(options.runs + 1):
                    data = {
                        "hook_event_name": event,
                        "session_id": f"bench-{run}",
                        "transcript_path": str(transcript),
                        "cwd": str(project),
                        "source": "startup",
                        "prompt": PROMPTS[run % len(PROMPTS)],
                    }
                    stdin = json.dumps(data, ensure_ascii=False).encode()
                    base = timed(bare, b"", env)
                    spent = timed([*command(), "hook", "claude-code"], stdin, env)
                    if event == "SessionEnd":
                        time.sleep(0.8)  # the worker it starts is done before the next pair
                    if run == 0:
                        continue  # the first run warms the file cache
                    hook_times.append(spent)
                    bare_times.append(base)
                    ratios.append(spent / base)
                budget = BUDGET.get((event, size))
                print(
                    f"{size:>8} {event:<17} {statistics.median(hook_times) * 1000:>7.1f}ms"
                    f" {statistics.median(bare_times) * 1000:>6.1f}ms"
                    f" {statistics.median(ratios):>5.2f}x"
                    f" {f'{budget:.1f}x' if budget else '':>6}"
                )


if __name__ == "__main__":
    main()
