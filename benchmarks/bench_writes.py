"""Benchmark: writes into large files, each beside the floor its I/O sets, in the same run.

Run: python benchmarks/bench_writes.py [--sizes 1000,10000,100000] [--repeat N]
     [--writers-seconds 20] [--tree PATH] [--later-days 1]

Prints medians and ratios:

- merge: one ``everbot-memory remember ... --file F`` process (a new one each time) against
  the floor, a process that takes the lock, reads the file, appends a few bytes, writes the
  ``.bak`` and writes the file atomically with fsync (:func:`floor_write`). CPU time, wall
  time and the child's peak memory (``os.wait4``'s ``ru_maxrss``).
- merge, days later: the same, into a copy of a file last saved ``--later-days`` ago (the
  first merge of a new day, when every memory has decayed and each one's score changes).
- save: ``MemoryStore.save`` of one changed entry against writing the file's bytes with a
  ``.bak`` and fsync (:func:`write_bytes`), taken in turn; wall time, and CPU time (which a
  busy machine disturbs less). Then 30 such saves in a row: their mean and slowest, the
  mean against the floor (a save appends its change to the parse record, and now and then
  writes the record whole again: the mean counts those), and a load by a new process after
  them (reading the record as those saves left it).
- load: ``MemoryStore.load`` against markdown-it-py's own parse of the same file.
- writers: 1, 2, 4 and 8 processes merging into a 1,000-entry file at once: merges a second.

``--tree`` measures another checkout of the project (its ``everbot_memory`` comes first on
``PYTHONPATH`` in every child), so a run before a change and after it use the same script.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def floor_write(path: Path) -> None:
    """The least a merge must do: lock, read, append, keep ``.bak``, write atomically."""
    from filelock import FileLock

    with FileLock(f"{path}.lock", timeout=60):
        data = path.read_bytes()
        data += b"\n### [floor] fact | 0.60 | 2026-03-01 | 1\nA few bytes more.\n"
        _write_synced(path.with_name(path.name + ".bak"), path.read_bytes())
        _write_synced(path, data)


def write_bytes(path: Path, data: bytes) -> None:
    """The least a save must do: keep ``.bak``, write the new bytes atomically with fsync."""
    _write_synced(path.with_name(path.name + ".bak"), path.read_bytes())
    _write_synced(path, data)


def _write_synced(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.floor.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _env(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")])
    return env


def run_child(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Run ``command``; its wall seconds, CPU seconds and peak memory in MiB."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command} failed with {process.returncode}")
    peak = usage.ru_maxrss / 1024  # kilobytes on Linux
    return wall, usage.ru_utime + usage.ru_stime, peak


def _medians(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    wall, cpu, peak = zip(*rows, strict=True)
    return statistics.median(wall), statistics.median(cpu), max(peak)


def current_entries(n: int) -> list[Any]:
    """``make_entries(n)`` moved to the present, so that a merge today forgets none of them."""
    from corpus import NOW, make_entries

    shift = datetime.now(timezone.utc).replace(microsecond=0) - NOW
    return [
        e.replace(created_at=e.created_at + shift, last_activated=e.last_activated + shift)
        for e in make_entries(n)
    ]


def make_file(path: Path, n: int, env: dict[str, str], days_ago: int = 0) -> None:
    """A file of ``n`` varied entries, written by the measured tree as a merge writes them
    (in the file's order), ``days_ago``: with its entries and the save itself that many days
    back, clock and all."""
    code = (
        "import sys; from datetime import timedelta; from freezegun import freeze_time; "
        "from bench_writes import current_entries; "
        "back = timedelta(days=int(sys.argv[3])); "
        "entries = [e.replace(created_at=e.created_at - back, last_activated=e.last_activated"
        " - back, base_at=e.base_at - back) for e in current_entries(int(sys.argv[2]))]; "
        "clock = freeze_time(max(e.last_activated for e in entries), tick=True); "
        "clock.start() if back else None; "
        "from everbot_memory import MemoryStore; "
        "from everbot_memory.core.scoring import sort_entries; "
        "MemoryStore(sys.argv[1]).save(sort_entries(entries))"
    )
    env = {**env, "PYTHONPATH": os.pathsep.join([env.get("PYTHONPATH", ""), str(HERE)])}
    command = [sys.executable, "-c", code, str(path), str(n), str(days_ago)]
    subprocess.run(command, env=env, check=True)


def bench_merge(path: Path, repeat: int, env: dict[str, str]) -> None:
    """CLI merges of one new entry against the floor, alternating, on the same file."""
    cli = [sys.executable, "-m", "everbot_memory", "remember"]
    # The floor writes a copy of the same file: written into the file itself, its bytes would
    # be a save the engine did not make, which the next merge must merge as a person's.
    copy = path.with_name(f"floor-{path.name}")
    floor = [sys.executable, __file__, "--floor-child", str(copy)]
    merges, floors = [], []
    run_child([*cli, "Warm the caches first.", "--file", str(path), "--quiet"], env)
    for i in range(repeat):
        copy.write_bytes(path.read_bytes())
        floors.append(run_child(floor, env))
        text = f"The user wrote benchmark note number {i} on {time.time_ns()}."
        merges.append(run_child([*cli, text, "--file", str(path), "--quiet"], env))
    m, f = _medians(merges), _medians(floors)
    size = path.stat().st_size / 2**20
    print(
        f"  merge (CLI):  wall {m[0] * 1000:8.0f} ms  cpu {m[1] * 1000:8.0f} ms  "
        f"peak {m[2]:6.0f} MiB   file {size:.1f} MiB"
    )
    print(
        f"  floor:        wall {f[0] * 1000:8.0f} ms  cpu {f[1] * 1000:8.0f} ms  "
        f"peak {f[2]:6.0f} MiB"
    )
    print(f"  ratio:        wall {m[0] / f[0]:8.2f}x     cpu {m[1] / f[1]:8.2f}x")


def bench_merge_later(path: Path, n: int, repeat: int, env: dict[str, str], days: int) -> None:
    """The first merge in ``days`` days, against the floor, alternating: every memory has
    decayed since the last save, so each one's score (and heading) changes. Each run merges
    into a fresh copy of a file (and its side folder) last saved ``days`` days ago."""
    import shutil

    stale = path.with_name(f"stale-{path.name}")
    make_file(stale, n, env, days_ago=days)
    copy = path.with_name(f"later-{path.name}")
    floor_copy = path.with_name(f"floor-{path.name}")
    cli = [sys.executable, "-m", "everbot_memory", "remember"]
    floor = [sys.executable, __file__, "--floor-child", str(floor_copy)]
    merges, floors = [], []
    for i in range(repeat):
        floor_copy.write_bytes(stale.read_bytes())
        floors.append(run_child(floor, env))
        shutil.rmtree(copy.with_name(f".{copy.name}.everbot"), ignore_errors=True)
        shutil.copytree(
            stale.with_name(f".{stale.name}.everbot"), copy.with_name(f".{copy.name}.everbot")
        )
        shutil.copyfile(stale, copy)
        text = f"The user wrote benchmark note number {i} on {time.time_ns()}."
        merges.append(run_child([*cli, text, "--file", str(copy), "--quiet"], env))
    m, f = _medians(merges), _medians(floors)
    print(
        f"  merge {days} d later: wall {m[0] * 1000:6.0f} ms  cpu {m[1] * 1000:8.0f} ms  "
        f"peak {m[2]:6.0f} MiB   ratio wall {m[0] / f[0]:5.2f}x  cpu {m[1] / f[1]:5.2f}x"
    )


_IN_PROCESS = """
import statistics, sys, time
from pathlib import Path
from markdown_it import MarkdownIt
from bench_writes import write_bytes
from everbot_memory import MemoryStore

path, repeat = Path(sys.argv[1]), int(sys.argv[2])
SAVES = 30
text = path.read_text(encoding="utf-8")

def median(function):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)

load = median(lambda: MemoryStore(path).load())
md = MarkdownIt("commonmark")
parse = median(lambda: md.parse(text))
store = MemoryStore(path)
loaded = store.load()
counter = iter(range(10**9))

def save():
    first = loaded[0]
    changed = f"The user changed this memory, version {next(counter)}."
    if hasattr(first, "replace"):
        first = first.replace(content=changed)
    else:
        first = first.model_copy(update={"content": changed})
    store.save([first, *loaded[1:]])

# A save and the floor in turn, so that a busy machine weighs on both alike; wall and CPU.
floor_copy = path.with_name("floor-" + path.name)
floor_copy.write_bytes(path.read_bytes())
times = {"save": ([], []), "floor": ([], [])}
for _ in range(repeat):
    data = path.read_bytes()
    for name, function in (("save", save), ("floor", lambda: write_bytes(floor_copy, data))):
        start, cpu = time.perf_counter(), time.process_time()
        function()
        times[name][0].append(time.perf_counter() - start)
        times[name][1].append(time.process_time() - cpu)
saved, floor = (statistics.median(times[n][0]) for n in ("save", "floor"))
saved_cpu, floor_cpu = (statistics.median(times[n][1]) for n in ("save", "floor"))
# Many saves in a row, each of one changed memory: the mean counts the ones that write a side
# file whole again now and then (the parse record, once its appended parts pile up).
row = []
for _ in range(SAVES):
    start = time.perf_counter()
    save()
    row.append(time.perf_counter() - start)
mean = statistics.mean(row)
# What those saves leave for the next process: a load reading the record they kept.
after = median(lambda: MemoryStore(path).load())
print(f"  load:         {load * 1000:8.1f} ms   markdown-it-py {parse * 1000:8.1f} ms   "
      f"ratio {load / parse:5.2f}x")
print(f"  save:         {saved * 1000:8.1f} ms   bytes+.bak+fsync {floor * 1000:8.1f} ms   "
      f"ratio {saved / floor:5.2f}x")
print(f"  save (cpu):   {saved_cpu * 1000:8.1f} ms   bytes+.bak+fsync {floor_cpu * 1000:8.1f} ms   "
      f"ratio {saved_cpu / floor_cpu:5.2f}x")
print(f"  {SAVES} saves:    mean {mean * 1000:6.1f} ms   max {max(row) * 1000:6.1f} ms   "
      f"ratio of the mean {mean / floor:5.2f}x")
print(f"  load after:   {after * 1000:8.1f} ms   (a new process, after those saves)")
"""


def bench_in_process(path: Path, repeat: int, env: dict[str, str]) -> None:
    """Load and save in one process, beside their floors."""
    env = {**env, "PYTHONPATH": os.pathsep.join([env.get("PYTHONPATH", ""), str(HERE)])}
    command = [sys.executable, "-c", _IN_PROCESS, str(path), str(repeat)]
    subprocess.run(command, env=env, check=True)


_WRITER = """
import sys, time
from everbot_memory import MemoryManager
path, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
manager = MemoryManager(path, lock_timeout=120)
end, count = time.monotonic() + seconds, 0
while time.monotonic() < end:
    manager.remember(f"Writer {name} noted benchmark fact {count} at {time.time_ns()}.")
    count += 1
print(count)
"""


def bench_writers(folder: Path, seconds: float, env: dict[str, str]) -> None:
    """Merges a second in total, with 1, 2, 4 and 8 writing processes on a 1,000-entry file."""
    print(f"concurrent writers on 1,000 entries, {seconds:.0f} s each (merges a second, total)")
    for writers in (1, 2, 4, 8):
        path = folder / f"writers-{writers}.md"
        make_file(path, 1_000, env)
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", _WRITER, str(path), str(n), str(seconds)],
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(writers)
        ]
        counts = [int(p.communicate()[0]) for p in processes]
        print(
            f"  {writers} writer(s): {sum(counts) / seconds:7.1f} merges/s  ({sum(counts)} merges)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="entry counts")
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    parser.add_argument("--writers-seconds", type=float, default=20.0, help="0: skip")
    parser.add_argument("--tree", type=Path, help="another checkout to measure")
    parser.add_argument(
        "--later-days", type=int, default=1, help="also merge this many days after a save; 0: skip"
    )
    parser.add_argument("--floor-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor_child is not None:
        floor_write(args.floor_child)
        return
    tree = None if args.tree is None else args.tree.resolve()
    env = _env(tree)
    # As an installed package runs: compiled once (pip compiles at install time), so that no
    # run pays for compiling (PYTHONDONTWRITEBYTECODE would otherwise make every run compile
    # what changed since the last compile, and all of a tree never compiled).
    package = (tree or HERE.parent) / "everbot_memory"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    print(f"Python {sys.version.split()[0]}; tree {tree or HERE.parent}; medians")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # Every child runs with ``-m`` or ``-c``, which put the working folder first on
        # sys.path: run from a checkout, they would import its package, not --tree's.
        os.chdir(folder)
        for n in (int(size) for size in args.sizes.split(",")):
            path = folder / f"MEMORY-{n}.md"
            make_file(path, n, env)
            print(f"{n:,} entries")
            runs = args.repeat if n < 100_000 else max(3, args.repeat // 2)
            bench_merge(path, runs, env)
            if args.later_days:
                bench_merge_later(path, n, runs, env, args.later_days)
            if n <= 10_000:
                bench_in_process(path, args.repeat, env)
        if args.writers_seconds:
            bench_writers(folder, args.writers_seconds, env)
    own = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"largest child peak: {own:.0f} MiB")


if __name__ == "__main__":
    main()
