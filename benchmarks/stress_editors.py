"""Stress: a person's editor saving in every style while engine writers merge, for a while.

Run: python benchmarks/stress_editors.py [--seconds 60] [--writers 3]
(``STYLES=rename,in-place`` picks the save styles; ``STRESS_DEBUG=1 STRESS_KEEP=DIR`` keeps
every version and copies the folder to DIR, to see where a lost memory went.)

One editor process cycles through the ways editors save: rename a temp file over the file
(vim's default, VS Code), rewrite in place at once (nano), and rewrite in place slowly, 512
bytes every 2 ms (an IDE on a slow disk). Each save reads the file, waits a little as a person
would, adds one hand-written memory, and writes. Meanwhile engine writers each add memories
through the library. At the end every memory an engine writer was told was saved, and every
hand-written memory of a finished editor save, must be in the file.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path


def engine(path: str, worker: int, seconds: float, done: list[str], refused: list[str]) -> None:
    from everbot_memory import MemoryManager
    from everbot_memory.errors import StoreError

    if os.environ.get("STRESS_DEBUG"):
        from everbot_memory.storage.journal import Journal

        Journal.__init__.__defaults__ = (10**6,)  # keep every version, to see where one went

    memory = MemoryManager(path, lock_timeout=60)
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        content = f"Engine writer {worker} memory {n}."
        try:
            memory.remember(content)
        except StoreError:
            refused.append(content)  # told it was not saved: not a loss, but counted
        else:
            done.append(content)
        n += 1


def _hand_entry(style: str, n: int) -> str:
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    return f"\n### fact | 0.9 | {today}\nHand edit {style} {n}.\n"


def editor(path: str, seconds: float, done: list[str], seed: int, styles: list[str]) -> None:
    rng = random.Random(seed)
    target = Path(path)
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        style = styles[n % len(styles)]
        text = target.read_text(encoding="utf-8")
        time.sleep(rng.uniform(0, 0.05))  # the person types
        active = text.find("\n## Archived Memories")
        cut = active if active >= 0 else len(text)
        new = (text[:cut] + _hand_entry(style, n) + text[cut:]).encode("utf-8")
        if style == "rename":
            tmp = target.with_name(f".editor-{n}.tmp")
            tmp.write_bytes(new)
            tmp.replace(target)
        else:
            with open(target, "r+b") as handle:
                handle.truncate(0)
                handle.flush()
                step = len(new) if style == "in-place" else 512
                for start in range(0, len(new), step):
                    handle.write(new[start : start + step])
                    handle.flush()
                    if style == "in-place-slow":
                        time.sleep(0.002)
        done.append(f"Hand edit {style} {n}.")
        n += 1
        time.sleep(rng.uniform(0, 0.1))


@dataclass
class Outcome:
    """What one run found: what was acknowledged, and what of it the file lacks at the end."""

    engine_done: list[str]
    engine_lost: list[str]
    refused: list[str]
    editor_done: list[str]
    editor_lost: list[str]
    seeded_lost: list[int]


def run(path: Path, seconds: float, writers: int, styles: list[str]) -> Outcome:
    """Seed ``path`` with 100 memories, then run ``writers`` engine writers and one editor
    cycling ``styles`` against it for ``seconds``; see what the file keeps."""
    from everbot_memory import MemoryManager, MemoryStore
    from everbot_memory.core.entry import MemoryEntry

    now = datetime.now(timezone.utc)
    seeded = [
        MemoryEntry(
            id=f"{i:06x}",
            content=f"Seeded memory {i}.",
            score=0.9,
            created_at=now,
            last_activated=now,
        )
        for i in range(100)
    ]
    MemoryStore(path).save(seeded)
    with multiprocessing.Manager() as manager:
        engine_done, editor_done, refused = manager.list(), manager.list(), manager.list()
        processes = [
            multiprocessing.Process(
                target=engine, args=(str(path), w, seconds, engine_done, refused)
            )
            for w in range(writers)
        ]
        processes.append(
            multiprocessing.Process(
                target=editor, args=(str(path), seconds, editor_done, 1, styles)
            )
        )
        for process in processes:
            process.start()
        for process in processes:
            process.join()
        MemoryManager(path).maintain()  # one more locked save: a last editor save is merged
        text = path.read_text(encoding="utf-8")
        return Outcome(
            engine_done=list(engine_done),
            engine_lost=[c for c in engine_done if c not in text],
            refused=list(refused),
            editor_done=list(editor_done),
            editor_lost=[c for c in editor_done if c not in text],
            seeded_lost=[i for i in range(100) if f"Seeded memory {i}." not in text],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=3)
    args = parser.parse_args()
    styles = os.environ.get("STYLES", "rename,in-place,in-place-slow").split(",")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        out = run(path, args.seconds, args.writers, styles)
        print(f"{args.seconds:g} s, {args.writers} engine writers, one editor: {','.join(styles)}")
        print(f"engine merges acknowledged: {len(out.engine_done)}, lost: {len(out.engine_lost)}")
        print(f"engine merges refused with an error (nothing written): {len(out.refused)}")
        print(f"editor saves finished:      {len(out.editor_done)}, lost: {len(out.editor_lost)}")
        print(f"seeded memories lost:       {len(out.seeded_lost)} of 100")
        if os.environ.get("STRESS_DEBUG"):  # where did a lost memory go?
            import gzip
            import shutil

            kept = path.parent.glob("MEMORY.md.versions/*.gz")
            versions = [gzip.decompress(v.read_bytes()).decode(errors="replace") for v in kept]
            for content in (out.engine_lost + out.editor_lost)[:5]:
                seen = any(content in v for v in versions)
                print(f"  lost: {content} (in a kept version: {seen})")
            if os.environ.get("STRESS_KEEP"):
                shutil.copytree(path.parent, os.environ["STRESS_KEEP"], dirs_exist_ok=True)


if __name__ == "__main__":
    main()
