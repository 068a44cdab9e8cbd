"""Editors that save while the engine writes: nothing either side wrote is lost (SPEC §3)."""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import make_entry

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.storage import atomic, backend
from everbot_memory.storage.journal import KEEP, Journal
from everbot_memory.storage.paths import SideFiles

STRESS = Path(__file__).parent.parent / "benchmarks" / "stress_editors.py"


def _seed(path: Path, n: int = 100) -> list[str]:
    now = datetime.now(timezone.utc)
    entries = [make_entry(f"e{i:05d}", f"Seeded memory number {i}.", 0.5, at=now) for i in range(n)]
    MemoryStore(path).save(entries)
    return [e.content for e in entries]


def _seeded_contents(n: int) -> list[str]:
    return [f"Seeded memory number {i}." for i in range(n)]


def _slow_in_place_save(path: Path, data: bytes, chunk: int = 512, pause: float = 0.002) -> None:
    """What nano, or vim with backupcopy=yes, does: truncate the file, then write into it."""
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.flush()
        for start in range(0, len(data), chunk):
            handle.write(data[start : start + chunk])
            handle.flush()
            time.sleep(pause)


def test_a_half_written_in_place_save_is_waited_for_not_taken_as_deletions(
    memory_path: Path,
) -> None:
    seeded = _seed(memory_path)
    edited = memory_path.read_bytes().replace(b"Seeded memory number 7.", b"Hand edit 7.")
    editor = threading.Thread(target=_slow_in_place_save, args=(memory_path, edited))
    editor.start()
    time.sleep(0.01)  # the editor has truncated the file and is writing it
    MemoryManager(memory_path).remember("The engine adds this while the editor saves.")
    editor.join()
    text = memory_path.read_text(encoding="utf-8")
    assert "Hand edit 7." in text
    assert "The engine adds this while the editor saves." in text
    for content in seeded:
        assert content in text or content == "Seeded memory number 7."
    assert len(MemoryStore(SideFiles.of(memory_path).backup).load()) >= 100  # whole


def test_an_empty_file_mid_truncate_is_not_read_as_the_person_emptying_it(
    memory_path: Path,
) -> None:
    _seed(memory_path, 20)
    original = memory_path.read_bytes()
    memory_path.write_bytes(b"")  # the editor truncated and has not written yet

    def finish() -> None:
        time.sleep(0.1)
        memory_path.write_bytes(original)

    threading.Thread(target=finish).start()
    entries = MemoryStore(memory_path).load()
    assert len(entries) == 20


def test_a_file_that_never_settles_fails_closed(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(memory_path, 5)
    before = memory_path.read_bytes()
    monkeypatch.setattr(backend, "SETTLE_TIMEOUT", 0.3)
    monkeypatch.setattr("everbot_memory.storage.store.SETTLE_TIMEOUT", 0.3)
    stop = threading.Event()

    def keep_writing() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            memory_path.write_bytes(before[: len(before) // 2] + str(n).encode())
            time.sleep(0.01)
        memory_path.write_bytes(before)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        from everbot_memory.errors import StoreError

        with pytest.raises(StoreError, match="keeps changing"):
            MemoryManager(memory_path).remember("Never written.")
    finally:
        stop.set()
        writer.join()
    assert memory_path.read_bytes() == before


@pytest.mark.skipif(not atomic.can_exchange(), reason="needs renameat2 (Linux)")
def test_a_save_landing_at_the_instant_of_the_swap_is_merged_not_lost(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(memory_path, 10)
    real_exchange = backend.exchange
    fired = []

    def editor_saves_first(src: Path, dst: Path, *, new: bool = False) -> bool:
        if not fired:  # an editor's rename-style save lands just before our swap
            fired.append(True)
            text = dst.read_text(encoding="utf-8").replace(
                "Seeded memory number 3.", "Edited in the window."
            )
            tmp = dst.with_name("editor.tmp")
            tmp.write_text(text + "\nA note the person added.\n", encoding="utf-8")
            tmp.replace(dst)
        return real_exchange(src, dst, new=new)

    monkeypatch.setattr(backend, "exchange", editor_saves_first)
    MemoryManager(memory_path).remember("The engine's memory.")
    text = memory_path.read_text(encoding="utf-8")
    assert fired
    assert "Edited in the window." in text
    assert "A note the person added." in text
    assert "The engine's memory." in text
    assert not list(memory_path.parent.glob(".MEMORY.md.displaced.*"))  # merged, then removed


def test_an_editor_saving_an_older_copy_keeps_what_the_engine_added_meanwhile(
    memory_path: Path,
) -> None:
    _seed(memory_path, 20)
    opened = memory_path.read_text(encoding="utf-8")  # the person opens the file
    memory = MemoryManager(memory_path)
    memory.remember("Added by the engine while the editor was open.")
    # The person saves their older copy, with an edit and one memory deleted.
    lines = opened.replace("Seeded memory number 5.", "Edited by the person.").split("\n")
    at = lines.index(next(line for line in lines if line.startswith("### [e00009]")))
    del lines[at : at + 4]
    memory_path.write_text("\n".join(lines), encoding="utf-8")
    memory.remember("Added by the engine after the editor saved.")
    text = memory_path.read_text(encoding="utf-8")
    assert "Edited by the person." in text
    assert "Added by the engine while the editor was open." in text
    assert "Added by the engine after the editor saved." in text
    assert "Seeded memory number 9." not in text  # the person's deletion stands


def test_a_person_deleting_from_the_newest_copy_is_a_deletion(memory_path: Path) -> None:
    _seed(memory_path, 5)
    memory = MemoryManager(memory_path)
    memory.remember("The engine's newest memory.")
    text = memory_path.read_text(encoding="utf-8")
    lines = text.split("\n")
    at = lines.index(next(line for line in lines if "The engine's newest memory." in line))
    del lines[at - 2 : at + 2]  # heading, metadata, content, blank line
    memory_path.write_text("\n".join(lines), encoding="utf-8")
    memory.remember("Another one.")
    after = memory_path.read_text(encoding="utf-8")
    assert "The engine's newest memory." not in after and "Another one." in after


def test_doctor_reports_an_editors_save_a_crash_left_aside(memory_path: Path) -> None:
    _seed(memory_path, 3)
    kept = memory_path.with_name(".MEMORY.md.displaced.abc123")
    kept.write_text("a person's save", encoding="utf-8")
    problems = MemoryManager(memory_path).diagnose().problems
    assert any(str(kept) in p.message and p.kind == "warning" for p in problems)


def _hand_saved(path: Path, copy: str, n: int) -> str:
    """The person's copy with one more hand-written memory, saved over the file (as an editor
    saves the buffer it holds, whatever the file now says)."""
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    at = copy.find("\n## Archived Memories")
    at = at if at >= 0 else len(copy)
    copy = copy[:at] + f"\n### fact | 0.9 | {today}\nHand edit number {n}.\n" + copy[at:]
    path.write_text(copy, encoding="utf-8")
    return copy


def test_a_person_saving_again_and_again_from_their_own_buffer_keeps_every_hand_edit(
    memory_path: Path,
) -> None:
    # The person never reloads: each save is their buffer plus one memory, made from a copy
    # the engine wrote over many times since. Two engine processes read every save; one
    # writes now and then. More saves and writes than the journal keeps versions.
    _seed(memory_path, 20)
    copy = memory_path.read_text(encoding="utf-8")
    reader, writer = MemoryManager(memory_path), MemoryManager(memory_path)
    engine: list[str] = []
    for n in range(2 * KEEP + 5):
        copy = _hand_saved(memory_path, copy, n)
        reader.store.load_document()  # a hook reads the file
        if n % 3 == 1:
            engine.append(f"Engine memory {n}.")
            writer.remember(engine[-1])
    writer.remember("The engine's last memory.")
    text = memory_path.read_text(encoding="utf-8")
    assert [n for n in range(2 * KEEP + 5) if f"Hand edit number {n}." not in text] == []
    assert [c for c in engine if c not in text] == []
    assert "The engine's last memory." in text
    assert all(text.count(c) == 1 for c in engine)  # merged, not duplicated
    assert len(list(Journal(memory_path).folder.glob("*.gz"))) <= 2 * KEEP


def test_a_copy_older_than_every_kept_version_loses_nothing_and_forgetting_stands(
    memory_path: Path,
) -> None:
    _seed(memory_path, 10)
    memory = MemoryManager(memory_path)
    forgotten = memory.store.load()[0]
    opened = memory_path.read_text(encoding="utf-8")  # the editor opens it, and stays open
    memory.forget(forgotten.id)
    added = [f"Engine memory {n}." for n in range(KEEP + 4)]  # the journal drops the rest
    for content in added:
        memory.remember(content)
    # The person saves their old buffer with a memory of their own; no kept version is an
    # ancestor of it, so nothing either side lacks is taken as deleted, but what the engine
    # forgot on purpose stays forgotten.
    _hand_saved(memory_path, opened, 1)
    memory.remember("After the old copy was saved.")
    text = memory_path.read_text(encoding="utf-8")
    assert "Hand edit number 1." in text
    assert [c for c in added if c not in text] == []
    assert "After the old copy was saved." in text
    assert forgotten.content not in text
    assert all(c in text for c in _seeded_contents(10) if c != forgotten.content)


def test_editors_of_every_style_against_three_writers_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A few seconds of benchmarks/stress_editors.py. The journal keeps 4 versions instead of
    # 16, so that a merge base pruned from it (the way saves used to be lost) comes soon.
    spec = importlib.util.spec_from_file_location("stress_editors", STRESS)
    assert spec is not None and spec.loader is not None
    stress = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "stress_editors", stress)
    spec.loader.exec_module(stress)
    monkeypatch.setattr(Journal.__init__, "__defaults__", (4,))
    out = stress.run(tmp_path / "MEMORY.md", 8.0, 3, ["rename", "in-place", "in-place-slow"])
    assert len(out.editor_done) > 30
    assert out.editor_lost == []
    assert out.engine_lost == []
    assert out.seeded_lost == []


@pytest.mark.parametrize("stall", [0.6, 1.6])
def test_an_editor_stalling_mid_save_loses_nothing(memory_path: Path, stall: float) -> None:
    # A slow disk or a network folder: the editor writes half its save, stalls, and writes
    # the rest while the engine saves (its rest lands in the file the engine swapped out).
    seeded = _seed(memory_path, 30)
    text = memory_path.read_text(encoding="utf-8")
    edited = text.replace(
        "\n## Archived Memories",
        "\n### fact | 0.9 | 2026-11-26\nA hand-written note.\n\n## Archived Memories",
    ).encode()
    half = len(edited) // 2
    handle = open(memory_path, "r+b")  # noqa: SIM115 - kept open across the stall, as an editor
    handle.truncate(0)
    handle.write(edited[:half])
    handle.flush()
    memory = MemoryManager(memory_path)
    done = threading.Event()

    def finish() -> None:
        time.sleep(stall)
        handle.write(edited[half:])
        handle.close()
        done.set()

    threading.Thread(target=finish).start()
    memory.remember("The engine adds this while the editor stalls.")
    done.wait()
    memory.remember("One more memory after the editor's save.")
    final = memory_path.read_text(encoding="utf-8")
    for content in seeded:
        assert content in final
    assert "A hand-written note." in final
    assert "The engine adds this while the editor stalls." in final
    assert "One more memory after the editor's save." in final


@pytest.mark.parametrize("cut", ["mid-line", "emptied", "at a line, before the archive"])
def test_a_file_cut_short_keeps_every_memory_and_says_so(memory_path: Path, cut: str) -> None:
    # Left so (the editor crashed): the memories it lacks are kept, with a warning.
    seeded = _seed(memory_path, 12)
    data = memory_path.read_bytes()
    if cut == "mid-line":
        data = data[: len(data) // 2]
    elif cut == "emptied":
        data = b""
    else:
        half = data[: len(data) // 2]
        data = half[: half.rindex(b"\n") + 1]
    memory_path.write_bytes(data)
    store = MemoryStore(memory_path)
    entries = store.load()
    assert {e.content for e in entries} == set(seeded)
    assert any("half-written" in w for w in store.warnings)
    store.save([*entries, make_entry("z9", "A memory saved after the cut.", 0.5)])
    final = memory_path.read_text(encoding="utf-8")
    assert all(content in final for content in seeded)


def test_a_person_deleting_memories_without_fixing_the_header_count_is_a_deletion(
    memory_path: Path,
) -> None:
    _seed(memory_path, 12)
    lines = memory_path.read_text(encoding="utf-8").split("\n\n")
    kept = [chunk for chunk in lines if "Seeded memory number 3." not in chunk]
    kept = [chunk for chunk in kept if "Seeded memory number 4." not in chunk]
    memory_path.write_text("\n\n".join(kept), encoding="utf-8")  # "Total entries: 12" stays
    store = MemoryStore(memory_path)
    store.save([*store.load(), make_entry("z9", "A memory saved after the edit.", 0.5)])
    final = memory_path.read_text(encoding="utf-8")
    assert "Seeded memory number 3." not in final and "Seeded memory number 4." not in final
    assert "A memory saved after the edit." in final


@pytest.mark.parametrize(
    "style",
    ["CRLF", "CR", "no final line break", "CRLF, no final line break", "CR, no final line break"],
)
def test_a_save_in_any_line_ending_style_keeps_every_change_the_person_made(
    memory_path: Path, style: str
) -> None:
    # Windows editors write CRLF, old Mac ones CR, and some drop the file's last line break.
    seeded = _seed(memory_path, 6)
    text = memory_path.read_text(encoding="utf-8")
    text = text.replace("Seeded memory number 1.", "Seeded memory number 1, edited by hand.")
    text = "\n\n".join(c for c in text.split("\n\n") if "Seeded memory number 2." not in c)
    text = text.replace(
        "## Archived Memories", "A note typed among the entries.\n\n## Archived Memories"
    )
    if "no final" in style:
        text = text.rstrip("\n")
    ending = "\r\n" if style.startswith("CRLF") else "\r" if style.startswith("CR") else "\n"
    memory_path.write_bytes(text.replace("\n", ending).encode("utf-8"))
    memory = MemoryManager(memory_path)
    memory.remember("The engine adds this after the person's save.")
    final = memory_path.read_text(encoding="utf-8")
    assert "Seeded memory number 1, edited by hand." in final
    assert "Seeded memory number 2." not in final  # deleted by the person, not brought back
    assert "A note typed among the entries." in final
    assert "The engine adds this after the person's save." in final
    for content in seeded[3:]:
        assert content in final
    assert "half-written" not in " ".join(memory.store.warnings)


def test_a_file_cut_short_keeps_the_persons_new_text_beside_the_engines(memory_path: Path) -> None:
    _seed(memory_path, 12)
    text = memory_path.read_text(encoding="utf-8")
    text = text.replace("Seeded memory number 1.\n", "Seeded memory number 1.\n\nA note typed.\n")
    data = text.encode("utf-8")
    memory_path.write_bytes(data[: len(data) // 2])  # left so: the editor crashed mid-save
    store = MemoryStore(memory_path)
    entries = store.load()
    assert any("half-written" in w for w in store.warnings)
    store.save([*entries, make_entry("z9", "A memory saved after the cut.", 0.5)])
    final = memory_path.read_text(encoding="utf-8")
    assert "A note typed." in final
    # Where the bytes stopped (inside a memory) is not kept as a note.
    assert all(line.endswith("-->") for line in final.splitlines() if line.startswith("<!--"))


def test_a_file_without_its_last_line_break_ending_in_a_new_line_is_taken_as_cut(
    memory_path: Path,
) -> None:
    # Its last line is not one the engine wrote: it may be a line stopped short, so every
    # memory the engine has is kept (and the person's text too).
    seeded = _seed(memory_path, 6)
    text = memory_path.read_text(encoding="utf-8").rstrip("\n") + "\n\nA last note, or part of"
    memory_path.write_bytes(text.encode("utf-8"))
    store = MemoryStore(memory_path)
    entries = store.load()
    assert {e.content for e in entries} == set(seeded)
    store.save([*entries, make_entry("z9", "A memory saved after it.", 0.5)])
    assert "A last note, or part of" in memory_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("after", ["## Archived Memories", "Archived memory number 3."])
def test_a_save_cut_right_before_a_line_break_keeps_the_memories_after_it(
    memory_path: Path, after: str
) -> None:
    # A line the engine's version holds, but not its last: more may have been on the way.
    entries = [make_entry(f"a{i:04d}", f"Active memory number {i}.", 0.8) for i in range(6)]
    entries += [make_entry(f"r{i:04d}", f"Archived memory number {i}.", 0.1) for i in range(6)]
    MemoryStore(memory_path).save(entries)
    whole = memory_path.read_bytes()
    at = whole.index(after.encode(), whole.index(b"## Archived Memories")) + len(after)
    memory_path.write_bytes(whole[:at])
    store = MemoryStore(memory_path)
    assert len(store.load()) == 12
    assert any("half-written" in w for w in store.warnings)


def test_a_persons_new_block_is_kept_when_the_bytes_stop_inside_a_memory(
    memory_path: Path,
) -> None:
    _seed(memory_path, 6)
    text = memory_path.read_text(encoding="utf-8")
    block = "#### Deploys\nWe deploy with Nomad.\n"
    text = text.replace("Seeded memory number 1.\n", f"Seeded memory number 1.\n\n{block}")
    cut = text.index("Seeded memory number 4.") + len("Seeded memory")
    memory_path.write_text(text[:cut], encoding="utf-8")
    store = MemoryStore(memory_path)
    entries = store.load()
    store.save([*entries, make_entry("z9", "A memory saved after the cut.", 0.5)])
    assert "We deploy with Nomad." in memory_path.read_text(encoding="utf-8")
