"""Benchmark: this tree against another checkout of the project, in the same loop.

Run: python benchmarks/compare_trees.py --baseline-python /path/to/other/.venv/bin/python

Each round runs one measuring process per tree, alternating, so both see the same machine
load; the figures are the medians over the rounds, and the ratio is this tree / the baseline.
It uses only names both trees export (``MemoryStore``, ``MemoryManager``, ``MemoryEntry``)
and the command line, so it can measure a checkout from before a change:

- load: ``MemoryStore(path).load()`` of a 10,000-entry file;
- save: one changed entry saved into that file (render, checks, ``.bak``, atomic write);
- prompt: the ``everbot-memory prompt`` process on 1,000 entries (wall time);
- recall cold: the first ``recall(..., peek=True)`` in a new process, index cache present;
- recall warm: later queries in that process.
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import QUERIES, make_entries


def prepare(folder: Path) -> None:
    """Write the 10,000- and 1,000-entry files (in the measuring tree's own format)."""
    from everbot_memory import MemoryStore

    MemoryStore(folder / "big.md").save(make_entries(10_000))  # type: ignore[arg-type]
    MemoryStore(folder / "small.md").save(make_entries(1_000))  # type: ignore[arg-type]


def measure_load_save(folder: Path) -> dict[str, float]:
    """One process: load and save the 10,000-entry file."""
    from everbot_memory import MemoryStore

    path = folder / "big.md"
    start = time.perf_counter()
    entries = MemoryStore(path).load()
    load = time.perf_counter() - start
    store = MemoryStore(path)
    loaded = store.load()
    text = f"changed {time.time_ns()}"
    first: object = loaded[0]
    if hasattr(first, "replace"):  # the dataclass entry
        changed = first.replace(content=text)
    else:  # the pydantic entry of earlier versions
        changed = first.model_copy(update={"content": text})  # type: ignore[attr-defined]
    start = time.perf_counter()
    store.save([changed, *loaded[1:]])
    save = time.perf_counter() - start
    assert len(entries) == 10_000
    return {"load 10k": load, "save 10k": save}


def measure_recall(folder: Path) -> dict[str, float]:
    """One new process: the first recall (cold, index cache present), then warm queries."""
    from everbot_memory import MemoryManager

    manager = MemoryManager(folder / "big.md")
    # Older trees reinforced what a search found unless told to peek; newer ones only read.
    read_only = {"peek": True} if "peek" in inspect.signature(manager.recall).parameters else {}
    start = time.perf_counter()
    manager.recall(QUERIES[0], k=5, **read_only)
    cold = time.perf_counter() - start
    warm = []
    for query in QUERIES * 3:
        start = time.perf_counter()
        manager.recall(query, k=5, **read_only)
        warm.append(time.perf_counter() - start)
    return {"recall cold 10k": cold, "recall warm 10k": statistics.median(warm)}


def _worker(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    if args.worker == "prepare":
        prepare(folder)
        return
    function = measure_load_save if args.worker == "load-save" else measure_recall
    print(json.dumps(function(folder)))


def _run(python: str, folder: Path, what: str) -> dict[str, float]:
    done = subprocess.run(
        [python, __file__, "--worker", what, "--folder", str(folder)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout)) if done.stdout.strip() else {}


def _prompt(python: str, folder: Path) -> float:
    command = [python, "-m", "everbot_memory", "prompt", "--file", str(folder / "small.md")]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline-python", help="the other checkout's interpreter")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return
    if not args.baseline_python:
        parser.error("--baseline-python is required")
    trees = {"this tree": sys.executable, "baseline": args.baseline_python}
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {name: Path(tmp) / name.replace(" ", "-") for name in trees}
        for name, python in trees.items():
            folders[name].mkdir()
            _run(python, folders[name], "prepare")
            _run(python, folders[name], "recall")  # builds the index cache beside the file
            _prompt(python, folders[name])  # warms the OS caches
        for _ in range(args.rounds):
            for name, python in trees.items():
                got = _run(python, folders[name], "load-save")
                got |= _run(python, folders[name], "recall")
                got["prompt 1k (process)"] = _prompt(python, folders[name])
                for key, value in got.items():
                    samples[name].setdefault(key, []).append(value)
    print(f"medians of {args.rounds} alternating rounds, milliseconds")
    print(f"{'measure':<22} {'this tree':>10} {'baseline':>10} {'ratio':>7}")
    for key in samples["this tree"]:
        mine = statistics.median(samples["this tree"][key]) * 1000
        base = statistics.median(samples["baseline"][key]) * 1000
        print(f"{key:<22} {mine:>10.1f} {base:>10.1f} {mine / base:>7.2f}")


if __name__ == "__main__":
    main()
