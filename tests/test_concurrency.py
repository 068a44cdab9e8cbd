"""Many writers, one file: no lost updates, and no torn file whenever a writer dies (SPEC §3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from everbot_memory import MemoryStore

WORKERS = Path(__file__).resolve().parent / "workers.py"
PROCESSES = 8
WRITES = 25


def run_writers(memory_path: Path, *extra: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKERS),
                "remember",
                str(memory_path),
                str(w),
                str(WRITES),
                *extra,
            ],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(PROCESSES)
    ]
    errors = []
    for proc in procs:
        _, stderr = proc.communicate(timeout=300)
        if proc.returncode != 0:
            errors.append(stderr)
    return errors


def test_concurrent_writers_lose_nothing(memory_path: Path) -> None:
    assert run_writers(memory_path) == []
    store = MemoryStore(memory_path)
    contents = {e.content for e in store.load()}
    assert store.problems == []
    expected = {f"Worker {w} memory number {i}." for w in range(PROCESSES) for i in range(WRITES)}
    assert contents == expected  # all 200


def test_without_the_lock_the_same_test_detects_lost_updates(memory_path: Path) -> None:
    """The check above can fail: naive writers (no lock, no re-read) lose memories."""
    errors = run_writers(memory_path, "unsafe")
    assert errors == []
    assert len(MemoryStore(memory_path).load()) < PROCESSES * WRITES


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killing_a_writer_at_random_moments_never_tears_the_file(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, str(WORKERS), "crash", str(memory), "200", "20261122"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    summary = json.loads(out.stdout)
    assert summary["trials"] == 200
    assert summary["exact"] == 200 and summary["torn"] == 0  # always the old or the new version
    assert summary["bak_ok"] == 200 and summary["bak_bad"] == 0  # the .bak always parses
    # The kills did land in the middle of saves, and after completed ones.
    assert summary["mid_write"] > 0 and summary["versions"] > 0
    # Temp files the killed writers left are removed by the next save once they are stale.
    assert summary["temps_after_next_save"] == 0
