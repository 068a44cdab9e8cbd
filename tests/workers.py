"""Programs the concurrency tests run in separate processes (``python tests/workers.py ...``).

- ``remember PATH WORKER COUNT [unsafe]``: make COUNT ``remember`` writes. ``unsafe`` turns off
  the lock and the check for outside changes, as a naive writer would, so the test can show that
  it detects lost updates.
- ``crash PATH TRIALS SEED``: TRIALS times, fork a writer that saves version after version,
  SIGKILL it at a random moment, and check what is on disk. Prints a JSON summary.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.document import parse
from everbot_memory.storage import backend as backend_module
from everbot_memory.storage import store as store_module
from everbot_memory.storage.atomic import digest, write_atomically


def remember(path: str, worker: str, count: int, unsafe: bool) -> None:
    if unsafe:
        # A writer with no protection: no lock, no re-read before replacing the file.
        store_module.MemoryStore.lock = lambda self: contextlib.nullcontext()  # type: ignore[assignment,method-assign,misc,return-value]
        store_module.rebase = lambda base, ours, theirs: list(ours)  # type: ignore[assignment]

        def write_blindly(self, data, expected, backup=None, version=None):  # type: ignore[no-untyped-def]
            write_atomically(self.files.target, data)
            return backend_module.WriteResult(digest(data))

        backend_module.LocalFile.write = write_blindly  # type: ignore[method-assign]
    manager = MemoryManager(path, lock_timeout=60)
    for i in range(count):
        manager.remember(f"Worker {worker} memory number {i}.", "fact", "medium")


T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
BASE = [
    MemoryEntry(
        id=f"{i:06x}",
        content=f"Fixed memory {i}: 用户喜欢第 {i} 条。",
        score=0.1 + (i % 9) / 10,
        created_at=T0,
        last_activated=T0,
    )
    for i in range(1, 41)
]


def version(k: int) -> list[MemoryEntry]:
    marker = MemoryEntry(
        id="00beef", content=f"version {k}", score=0.5, created_at=T0, last_activated=T0
    )
    return [*BASE, marker]


def version_of(text: str) -> int | None:
    """Which version the text holds, or None if it is not exactly one of them."""
    doc = parse(text)
    marker = [e for e in doc.entries if e.id == "00beef"]
    if doc.problems or doc.notes or len(marker) != 1:
        return None
    k = int(marker[0].content.split()[1])
    expected = sorted(version(k), key=lambda e: e.id)
    return k if sorted(doc.entries, key=lambda e: e.id) == expected else None


def crash(path: str, trials: int, seed: int) -> None:
    rng = random.Random(seed)
    memory = Path(path)
    MemoryStore(memory).save(version(-1))
    MemoryStore(memory).save(version(0))  # so that a .bak exists from the first trial on
    next_version = 1
    summary = {"trials": 0, "exact": 0, "torn": 0, "bak_ok": 0, "bak_bad": 0, "mid_write": 0}
    summary["versions"] = 0
    last = 0
    for _ in range(trials):
        start = next_version
        next_version += 10_000
        pid = os.fork()
        if pid == 0:  # the writer: save versions until killed
            try:
                store = MemoryStore(memory)
                k = start
                while True:
                    store.save(version(k))
                    k += 1
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0, 0.06))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        summary["trials"] += 1
        temps = [p for p in memory.parent.rglob("*") if p.name.endswith(".tmp")]
        summary["mid_write"] += bool(temps)
        for temp in temps:  # as if left minutes ago: the next save must remove them
            os.utime(temp, (time.time() - 3600, time.time() - 3600))
        k = version_of(memory.read_text(encoding="utf-8"))
        bak = version_of(
            (memory.parent / f".{memory.name}.everbot" / f"{memory.name}.bak").read_text(
                encoding="utf-8"
            )
        )
        summary["bak_ok" if bak is not None else "bak_bad"] += 1
        if k is None:
            summary["torn"] += 1
            continue
        summary["exact"] += 1
        summary["versions"] += k != last  # the kill came after at least one new save
        last = k
    summary["temps_left"] = sum(p.name.endswith(".tmp") for p in memory.parent.rglob("*"))
    MemoryStore(memory).save(version(next_version))
    summary["temps_after_next_save"] = sum(
        p.name.endswith(".tmp") for p in memory.parent.rglob("*")
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    command, target = sys.argv[1], sys.argv[2]
    if command == "remember":
        remember(target, sys.argv[3], int(sys.argv[4]), sys.argv[5:] == ["unsafe"])
    elif command == "crash":
        crash(target, int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit(f"unknown command {command!r}")
