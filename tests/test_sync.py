"""One memory on many machines: the merge driver, git-setup, sync (issue 13).

Real git in temporary folders (no user or system config, no network: the "remote" is a bare
repository beside the clones), the driver run by git as the installed command; and a property
test of the three-way merge over random pairs of edit scripts from a common ancestor.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import shutil
import subprocess
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import FIXTURES
from freezegun import freeze_time
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.rules import CATEGORIES
from everbot_memory.core.scoring import decay, reinforce
from everbot_memory.document import Document, parse, render
from everbot_memory.document.content import json_string
from everbot_memory.document.merge3 import base_entries, conflict_line, merge_texts
from everbot_memory.errors import EverbotMemoryError, StoreError
from everbot_memory.facade import sync as service
from everbot_memory.faces.cli import app
from everbot_memory.storage.store import MemoryStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")

DEMO = FIXTURES / "conversations" / "demo.txt"
NOW = datetime(2026, 3, 10, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """git as on a fresh machine: no user or system config, a fixed identity."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.com")
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)


def git(cwd: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if ok:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def run(*args: str) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def contents(path: Path) -> dict[str, str]:
    return {e.id: e.content for e in parse(path.read_text(encoding="utf-8")).entries}


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Path, Path]:
    """A laptop and a desktop sharing a memory through a bare repository, set up and synced."""
    hub, laptop = tmp_path / "hub.git", tmp_path / "laptop"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(hub))
    git(tmp_path, "init", "-q", "-b", "main", str(laptop))
    git(laptop, "remote", "add", "origin", str(hub))
    memory = Memory(laptop / "MEMORY.md")
    memory.init()
    memory.remember("The user prefers pytest over unittest.", "preference")
    setup = service.git_setup(laptop / "MEMORY.md")
    assert setup.changed and setup.driver.endswith("merge-driver %O %A %B %L %P")
    git(laptop, "add", ".gitattributes", ".gitignore")
    git(laptop, "commit", "-q", "-m", "Merge MEMORY.md with everbot-memory")
    report = service.sync(laptop / "MEMORY.md")
    assert (report.committed, report.pulled, report.pushed) == (True, "new", True)
    desktop = tmp_path / "desktop"
    git(tmp_path, "clone", "-q", str(hub), str(desktop))
    service.git_setup(desktop / "MEMORY.md")
    return laptop, desktop


# -- two machines --------------------------------------------------------------------------


def test_two_machines_keep_every_session_and_hand_edit(machines: tuple[Path, Path]) -> None:
    laptop, desktop = machines
    on_laptop, on_desktop = Memory(laptop / "MEMORY.md"), Memory(desktop / "MEMORY.md", "rules")
    pytest_id = on_laptop.entries()[0].id
    # The desktop closes a session, confirms a memory; the laptop adds one, confirms the same
    # memory, and a person edits the file there by hand.
    report = on_desktop.close_transcript(DEMO, session_id="demo")
    assert report.stats["new"] >= 3
    on_desktop.mark_used([pytest_id])
    on_laptop.remember("The user drinks green tea in the afternoon.", "preference")
    on_laptop.mark_used([pytest_id])
    text = (laptop / "MEMORY.md").read_text(encoding="utf-8")
    (laptop / "MEMORY.md").write_text(
        text.replace("green tea in the afternoon", "green tea every afternoon"), encoding="utf-8"
    )
    hits = on_laptop.get(pytest_id).activation_count + on_desktop.get(pytest_id).activation_count
    assert service.sync(laptop / "MEMORY.md").pushed
    synced = service.sync(desktop / "MEMORY.md")
    assert (synced.committed, synced.pulled, synced.pushed) == (True, "merged", True)
    assert service.sync(laptop / "MEMORY.md").pulled == "fast-forward"
    both = [(m / "MEMORY.md").read_bytes() for m in machines]
    assert both[0] == both[1]
    merged = contents(laptop / "MEMORY.md")
    assert "The user drinks green tea every afternoon." in merged.values()
    learned = [c for c in merged.values() if "DuckDB" in c or "Berlin" in c or "柏林" in c]
    assert learned, merged
    # Confirmed on both machines: the ancestor's hit, plus what each side added to it.
    assert on_laptop.get(pytest_id).activation_count == hits - 1
    assert conflict_line((laptop / "MEMORY.md").read_text(encoding="utf-8")) is None
    # A memory forgotten on one machine stays forgotten once the other has pulled and written.
    on_laptop.forget(pytest_id)
    service.sync(laptop / "MEMORY.md")
    service.sync(desktop / "MEMORY.md")
    on_desktop.remember("The user reads on Sundays.")
    assert pytest_id not in contents(desktop / "MEMORY.md")
    assert "The user drinks green tea every afternoon." in contents(desktop / "MEMORY.md").values()


def test_a_plain_git_pull_that_fast_forwards_keeps_a_forgotten_memory_forgotten(
    machines: tuple[Path, Path],
) -> None:
    """A fast-forward runs no merge driver: the post-merge hook git-setup wrote tells the
    engine what the pull brought, so its next save does not bring back what the other machine
    forgot."""
    laptop, desktop = machines
    hook = Path(git(desktop, "rev-parse", "--git-path", "hooks/post-merge").stdout.strip())
    hook = hook if hook.is_absolute() else desktop / hook
    assert "sync --after-pull" in hook.read_text(encoding="utf-8")
    on_laptop, on_desktop = Memory(laptop / "MEMORY.md"), Memory(desktop / "MEMORY.md")
    on_desktop.remember("The user reads on Sundays.")  # the desktop's engine writes the file
    git(desktop, "commit", "-q", "-am", "desktop")
    git(desktop, "push", "-q", "origin", "main")
    git(laptop, "pull", "-q", "origin", "main")
    [forgotten] = [e.id for e in on_laptop.entries() if "pytest" in e.content]
    on_laptop.forget(forgotten)
    git(laptop, "commit", "-q", "-am", "laptop forgets")
    git(laptop, "push", "-q", "origin", "main")
    git(desktop, "pull", "-q", "origin", "main")
    merges = git(desktop, "rev-list", "--count", "--merges", "ORIG_HEAD..HEAD").stdout
    assert merges.strip() == "0"  # a fast-forward: no merge commit, so no merge driver ran
    assert forgotten not in contents(desktop / "MEMORY.md")
    on_desktop.remember("The user drinks green tea.")  # the next save on the desktop
    assert forgotten not in contents(desktop / "MEMORY.md")
    assert "The user reads on Sundays." in contents(desktop / "MEMORY.md").values()


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_settled_conflict_stays_settled_after_hand_edits_and_pulls(
    machines: tuple[Path, Path],
) -> None:
    """A person settles a conflict on one machine; the other pulls it (a fast-forward, over
    a hand edit its engine never read), is edited by hand again, and writes: the settled text
    stays. (The engine's own older text of that memory came back: the pulled file had no
    ancestor the journal knew.)"""
    laptop, desktop = machines
    service.sync(desktop / "MEMORY.md")
    on_desktop = Memory(desktop / "MEMORY.md")
    on_desktop.remember("The user lives in Berlin.")
    _replace(desktop / "MEMORY.md", "pytest over unittest.", "pytest over nose.")
    service.sync(desktop / "MEMORY.md")
    _replace(laptop / "MEMORY.md", "pytest over unittest.", "pytest over tox.")
    with pytest.raises(EverbotMemoryError, match="conflict for a person"):
        service.sync(laptop / "MEMORY.md")
    text = (laptop / "MEMORY.md").read_text(encoding="utf-8")
    start, end = text.index("<<<<<<<"), text.index("\n", text.index(">>>>>>>"))
    (laptop / "MEMORY.md").write_text(text[:start] + text[end + 1 :], encoding="utf-8")
    [settled] = [c for c in contents(laptop / "MEMORY.md").values() if "pytest" in c]
    git(laptop, "commit", "-q", "-am", "settled")
    assert service.sync(laptop / "MEMORY.md").pushed
    assert service.sync(desktop / "MEMORY.md").pulled == "fast-forward"
    # Hand edits on both machines, committed without the engine reading them; a merge on
    # the laptop, then a fast-forward pull on the desktop.
    _replace(
        desktop / "MEMORY.md",
        "## Archived",
        "### fact | 0.7\nThe user owns a bicycle.\n\n## Archived",
    )
    git(desktop, "commit", "-q", "-am", "desktop by hand")
    git(desktop, "push", "-q", "origin", "main")
    _replace(
        laptop / "MEMORY.md", "## Archived", "### fact | 0.7\nThe user owns a kayak.\n\n## Archived"
    )
    git(laptop, "commit", "-q", "-am", "laptop by hand")
    git(laptop, "pull", "-q", "--no-rebase", "origin", "main")
    git(laptop, "push", "-q", "origin", "main")
    git(desktop, "pull", "-q", "origin", "main")
    _replace(
        desktop / "MEMORY.md",
        "## Archived",
        "### fact | 0.7\nThe user was born in Paris.\n\n## Archived",
    )
    on_desktop.remember("The user has a cat named Tom.")
    found = contents(desktop / "MEMORY.md").values()
    assert [c for c in found if "pytest" in c] == [settled]
    for memory in ("bicycle", "kayak", "Paris", "Tom", "Berlin"):
        assert any(memory in c for c in found), memory


def test_a_pull_with_rebase_over_a_hand_edit_keeps_a_forgotten_memory_forgotten(
    machines: tuple[Path, Path],
) -> None:
    """In a rebase git gives the other machine's copy as "ours" and this clone's commit as
    "theirs": that commit (a hand edit the engine never read) must still descend from this
    clone's versions, or the next save keeps what either side holds."""
    laptop, desktop = machines
    service.sync(desktop / "MEMORY.md")
    on_laptop, on_desktop = Memory(laptop / "MEMORY.md"), Memory(desktop / "MEMORY.md")
    on_laptop.remember("The user likes bananas.")
    service.sync(laptop / "MEMORY.md")
    service.sync(desktop / "MEMORY.md")
    [bananas] = [e.id for e in on_laptop.entries() if "bananas" in e.content]
    on_laptop.forget(bananas)
    service.sync(laptop / "MEMORY.md")
    on_desktop.remember("The user likes dates.")
    _replace(desktop / "MEMORY.md", "pytest over unittest.", "pytest over nose.")
    git(desktop, "commit", "-q", "-am", "desktop by hand")
    git(desktop, "pull", "-q", "--rebase", "origin", "main")
    on_desktop.remember("The user likes figs.")
    found = list(contents(desktop / "MEMORY.md").values())
    assert not any("bananas" in c for c in found), found
    assert "The user prefers pytest over nose." in found
    assert {"The user likes dates.", "The user likes figs."} <= set(found)


def test_a_conflict_is_left_for_a_person_and_writers_wait(machines: tuple[Path, Path]) -> None:
    laptop, desktop = machines
    service.sync(desktop / "MEMORY.md")
    for machine, text in ((desktop, "oolong"), (laptop, "black")):
        path = machine / "MEMORY.md"
        path.write_text(
            path.read_text(encoding="utf-8").replace("pytest over unittest", f"{text} tea"),
            encoding="utf-8",
        )
    service.sync(desktop / "MEMORY.md")
    with pytest.raises(EverbotMemoryError, match="conflict for a person") as raised:
        service.sync(laptop / "MEMORY.md")
    assert "changed differently on both sides" in str(raised.value)
    text = (laptop / "MEMORY.md").read_text(encoding="utf-8")
    assert "oolong tea" in text and "black tea" in text and conflict_line(text) is not None
    assert {e.content for e in parse(text).entries} == {"The user prefers black tea."}
    # Every writer refuses while the merge is in progress, and after it while the markers stay.
    with pytest.raises(StoreError, match="a merge is in progress"):
        Memory(laptop / "MEMORY.md").remember("The user likes cats.")
    doctor = run("doctor", "--file", laptop / "MEMORY.md")
    assert doctor.exit_code == 1 and "a merge is in progress" in doctor.output  # type: ignore[attr-defined]
    with pytest.raises(EverbotMemoryError, match="in progress"):
        service.sync(laptop / "MEMORY.md")
    git(laptop, "commit", "-q", "-a", "-m", "merged, markers left")
    with pytest.raises(StoreError, match="merge conflict at line"):
        Memory(laptop / "MEMORY.md").remember("The user likes cats.")
    assert text == (laptop / "MEMORY.md").read_text(encoding="utf-8")
    # The person keeps one text and deletes the marked lines: writing and syncing resume.
    (laptop / "MEMORY.md").write_text(text[: text.index("<<<<<<<")], encoding="utf-8")
    Memory(laptop / "MEMORY.md").remember("The user likes cats.")
    assert service.sync(laptop / "MEMORY.md").pushed
    assert service.sync(desktop / "MEMORY.md").pulled == "fast-forward"
    assert set(contents(desktop / "MEMORY.md").values()) == {
        "The user prefers black tea.",
        "The user likes cats.",
    }


def test_a_conflict_elsewhere_or_a_deleted_file_is_named_with_what_to_do(
    machines: tuple[Path, Path],
) -> None:
    laptop, desktop = machines
    service.sync(desktop / "MEMORY.md")
    for machine, text in ((desktop, "desk"), (laptop, "lap")):
        (machine / "notes.txt").write_text(f"{text}\n", encoding="utf-8")
        git(machine, "add", "notes.txt")
        git(machine, "commit", "-q", "-m", f"{text} notes")
    git(desktop, "push", "-q", "origin", "HEAD:main")
    with pytest.raises(EverbotMemoryError, match=r"conflict for a person in notes\.txt") as raised:
        service.sync(laptop / "MEMORY.md")
    said = str(raised.value)
    assert "`git add notes.txt`" in said and "git add MEMORY.md" not in said
    git(laptop, "merge", "--abort")
    git(laptop, "reset", "-q", "--hard", "HEAD~1")  # the laptop's notes commit undone
    git(desktop, "rm", "-q", "MEMORY.md")
    git(desktop, "commit", "-q", "-m", "no memory here")
    git(desktop, "push", "-q", "origin", "HEAD:main")
    Memory(laptop / "MEMORY.md").remember("The user likes cats.")
    with pytest.raises(EverbotMemoryError, match=r"conflict for a person in MEMORY\.md") as raised:
        service.sync(laptop / "MEMORY.md")
    said = str(raised.value)
    assert "was deleted on one side" in said and "git rm MEMORY.md" in said
    assert "<<<<<<<" not in said


def test_sync_says_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    Memory(alone / "MEMORY.md").init()
    with pytest.raises(EverbotMemoryError, match="not in a git repository"):
        service.sync(alone / "MEMORY.md")
    git(alone, "init", "-q", "-b", "main")
    with pytest.raises(EverbotMemoryError, match="git-setup"):
        service.sync(alone / "MEMORY.md")
    service.git_setup(alone / "MEMORY.md")
    assert service.git_setup(alone / "MEMORY.md").changed == []  # set up once is enough
    result = run("sync", "--file", alone / "MEMORY.md")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "no remote to sync with" in result.stderr  # type: ignore[attr-defined]
    assert len(result.stderr.splitlines()) == 1  # type: ignore[attr-defined]


def test_a_rejected_push_is_retried_then_reported(
    machines: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop = machines
    Memory(desktop / "MEMORY.md").remember("The user reads on Sundays.")
    service.sync(desktop / "MEMORY.md")
    Memory(laptop / "MEMORY.md").remember("The user owns a bike.")
    real = service._git

    def no_fetch(folder: Path, *args: str, check: bool = False) -> object:
        if args[0] == "fetch":  # the remote moves on between every fetch and push
            return subprocess.CompletedProcess(args, 0, "", "")
        return real(folder, *args, check=check)

    monkeypatch.setattr(service, "_git", no_fetch)
    result = run("sync", "--file", laptop / "MEMORY.md")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "was rejected 3 times" in result.stderr  # type: ignore[attr-defined]
    monkeypatch.setattr(service, "_git", real)
    assert run("sync", "--file", laptop / "MEMORY.md").exit_code == 0  # type: ignore[attr-defined]
    assert "The user reads on Sundays." in contents(laptop / "MEMORY.md").values()


def test_doctor_warns_when_a_clone_lacks_the_driver(machines: tuple[Path, Path]) -> None:
    laptop, desktop = machines
    git(desktop, "config", "--unset", "merge.everbot-memory.driver")
    result = run("doctor", "--file", desktop / "MEMORY.md")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "git: problem:" in result.output and "git-setup" in result.output  # type: ignore[attr-defined]
    result = run("git-setup", "--file", desktop / "MEMORY.md")
    assert "never commits or clones its config" in result.output  # type: ignore[attr-defined]
    result = run("doctor", "--file", desktop / "MEMORY.md", "--json")
    assert '"problems": []' in result.output  # type: ignore[attr-defined]
    assert "merged memory by memory" in run("doctor", "--file", laptop / "MEMORY.md").output  # type: ignore[attr-defined]


# -- merge, rebase, cherry-pick ----------------------------------------------------------------


def _branches(tmp_path: Path) -> Path:
    """A repository whose branches ``a`` and ``b`` each changed the memory in one commit."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    path = repo / "MEMORY.md"
    base = Memory(path)
    with freeze_time("2026-03-01 09:00:00"):
        ids = [
            base.remember(text)[0].id
            for text in (
                "The user prefers pytest over unittest.",
                "The user lives in Berlin.",
                "The user drinks green tea.",
                "The user deploys on Fridays.",
            )
        ]
    service.git_setup(path)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "a")
    with freeze_time("2026-03-12 10:00:00"):
        side = Memory(path, "rules")
        side.close_transcript(DEMO, session_id="a")
        side.mark_used([ids[0]])
        side.forget(ids[1])
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("green tea", "green tea after lunch"), encoding="utf-8")
    git(repo, "commit", "-q", "-a", "-m", "a")
    git(repo, "checkout", "-q", "-b", "b", "main")
    with freeze_time("2026-03-14 10:00:00"):
        side = Memory(path)
        side.mark_used([ids[0], ids[3]])
        side.remember("The user is learning Rust.", "skill_usage")
        side.maintain()
    git(repo, "commit", "-q", "-a", "-m", "b")
    return repo


def test_merge_rebase_and_cherry_pick_agree(tmp_path: Path) -> None:
    repo = _branches(tmp_path)
    path = repo / "MEMORY.md"
    git(repo, "checkout", "-q", "-b", "merged", "a")
    git(repo, "merge", "-q", "--no-edit", "b")
    merged = path.read_bytes()
    git(repo, "checkout", "-q", "-b", "swapped", "b")
    git(repo, "merge", "-q", "--no-edit", "a")
    assert path.read_bytes() == merged  # the same whichever side is ours
    git(repo, "checkout", "-q", "-b", "rebased", "b")
    git(repo, "rebase", "-q", "a")
    assert path.read_bytes() == merged
    git(repo, "checkout", "-q", "-b", "picked", "a")
    git(repo, "cherry-pick", "b")
    assert path.read_bytes() == merged
    text = merged.decode("utf-8")
    doc = parse(text)
    assert not doc.problems and conflict_line(text) is None
    found = {e.content: e for e in doc.entries}
    assert "The user lives in Berlin." not in found  # forgotten on a, untouched on b
    assert "The user drinks green tea after lunch." in found  # edited by hand on a
    assert "The user is learning Rust." in found  # b's addition
    # One hit at first; a's session and a's use confirmed it, and b's use: hits add up.
    assert found["The user prefers pytest over unittest."].activation_count == 4
    assert found["The user deploys on Fridays."].activation_count == 2
    assert any("DuckDB" in c for c in found)  # a's session
    # The driver told the engine what the merged file came from: its next save merges from
    # there, so what one side deleted stays deleted.
    git(repo, "checkout", "-q", "merged")
    Memory(path).remember("The user reads on Sundays.")
    assert "The user lives in Berlin." not in contents(path).values()


def test_the_driver_never_takes_one_side_of_a_file_it_cannot_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    path = repo / "MEMORY.md"
    Memory(path).remember("The user likes café au lait.")
    service.git_setup(path)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "latin")
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.replace("café", "cafe noir and café").encode("latin-1"))
    git(repo, "commit", "-q", "-a", "-m", "latin-1")
    git(repo, "checkout", "-q", "main")
    path.write_text(text.replace("café au lait", "café crème"), encoding="utf-8")
    git(repo, "commit", "-q", "-a", "-m", "utf-8")
    done = git(repo, "merge", "--no-edit", "latin", ok=False)
    assert done.returncode == 1 and "merged line by line" in done.stderr
    assert "keep the right lines, then `git add MEMORY.md`" in done.stderr
    data = path.read_bytes()
    assert b"<<<<<<< MEMORY.md (ours)" in data and b">>>>>>> MEMORY.md (theirs)" in data
    assert "café crème".encode() in data and "cafe noir and café".encode("latin-1") in data


def test_the_driver_command(tmp_path: Path) -> None:
    base = Document([_entry("a", "The user likes tea.")], last_updated="2026-03-01T09:00:00Z")
    ours = Document(
        [*base.entries, _entry("b", "The user owns a bike.")], last_updated="2026-03-02T09:00:00Z"
    )
    theirs = Document([], last_updated="2026-03-03T09:00:00Z")
    files = []
    for name, doc in (("O", base), ("A", ours), ("B", theirs)):
        files.append(tmp_path / name)
        files[-1].write_text(render(doc), encoding="utf-8")
    result = run("merge-driver", *files, "7", "notes/MEMORY.md", "--json")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert '"deleted": 1' in result.output  # type: ignore[attr-defined]
    merged = files[1].read_text(encoding="utf-8")
    assert contents(files[1]) == {"b": "The user owns a bike."}
    assert "<!-- Last updated: 2026-03-03T09:00:00Z -->" in merged
    missing = run("merge-driver", tmp_path / "nothing", *files[1:])
    assert missing.exit_code == 255 and "cannot read" in missing.stderr  # type: ignore[attr-defined]


# -- the rules, one by one ----------------------------------------------------------------------


def _merged(base: list[MemoryEntry], ours: list[MemoryEntry], theirs: list[MemoryEntry]) -> str:
    texts = [
        render(Document(entries), f"2026-03-0{n}T12:00:00Z")
        for n, entries in enumerate((base, ours, theirs), 1)
    ]
    one, other = merge_texts(*texts, now=NOW), merge_texts(texts[0], texts[2], texts[1], now=NOW)
    assert one.text is not None and one.text == other.text
    return one.text


def test_scores_combine_by_the_engine_rules() -> None:
    start = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)
    base = _entry("e1", "The user likes tea.")
    ours = reinforce(base, start + timedelta(days=1))  # one more hit
    theirs = reinforce(reinforce(base, start + timedelta(days=1)), start + timedelta(days=2))
    [merged] = parse(_merged([base], [ours], [theirs])).entries
    assert merged.activation_count == 1 + 1 + 2  # the ancestor's, plus each side's
    assert merged.last_activated == theirs.last_activated  # the later activation
    # The later side's anchor (0.6 reinforced twice: 0.744), confirmed once more by ours.
    assert merged.score == pytest.approx(0.744 + (1 - 0.744) * 0.2)
    assert merged.anchor == (merged.score, theirs.last_activated)


def test_what_both_sides_learned_is_one_memory() -> None:
    at = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
    ours = _entry("a1", "The user is learning Rust.", created_at=at, last_activated=at)
    theirs = _entry("b1", "The user is learning rust", created_at=at, last_activated=at)
    [merged] = parse(_merged([], [ours], [theirs])).entries
    assert merged.activation_count == 2 and merged.score == pytest.approx(0.68)
    assert {merged.id, *merged.merged_ids} == {"a1", "b1"}


def test_a_change_outlives_a_deletion_and_decay_does_not() -> None:
    base = [_entry("e1", "The user likes tea."), _entry("e2", "The user owns a bike.")]
    later = datetime(2026, 4, 20, tzinfo=timezone.utc)
    ours = [decay(base[0], later), base[1].replace(category="decision")]  # only decayed; changed
    merged = parse(_merged(base, ours, [])).entries
    assert [(e.id, e.category) for e in merged] == [("e2", "decision")]


def test_markers_inside_a_memory_are_data(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "MEMORY.md")
    memory.remember("Resolve git conflicts:\n<<<<<<< ours\nmine\n=======\ntheirs\n>>>>>>> theirs")
    memory.remember("The user likes tea.")  # the store does not take it for a conflict
    assert conflict_line((tmp_path / "MEMORY.md").read_text(encoding="utf-8")) is None


# -- the file as plain text --------------------------------------------------------------------


def test_the_header_changes_only_with_the_memories(tmp_path: Path) -> None:
    """The file merges as well as plain text can: ``Last updated`` and ``Total entries`` are
    written only when a memory changed; a save that changes nothing writes nothing."""
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-01 09:00:00"):
        Memory(path).remember("The user likes tea.")
    before = path.read_bytes()
    stat = path.stat()
    with freeze_time("2026-03-04 09:00:00"):  # within the grace period: nothing decays
        store = MemoryStore(path)
        assert store.save(store.load()) is False
        Memory(path).maintain()
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stat.st_mtime_ns


# -- the property test -------------------------------------------------------------------------

WORDS = (
    "tea",
    "coffee",
    "bikes",
    "trains",
    "Rust",
    "Python",
    "pytest",
    "Berlin",
    "Paris",
    "柏林",
    "上海",
    "咖啡",
    "chess",
    "piano",
    "hiking",
    "sailing",
    "Vim",
    "Emacs",
    "tabs",
    "spaces",
    "dogs",
    "cats",
    "jazz",
    "opera",
    "tofu",
    "ramen",
    "Fridays",
    "Mondays",
)
ODD = [
    "### [zzz999] fact | 0.90 | 2026-01-01 | 3\nnot a heading",
    "Code:\n```\nprint('hi')\n```",
    "<!-- a comment -->\nand text",
    "## Archived Memories\nis data",
    "line one\n\nline two",
    "- a list\n- of things",
    "<<<<<<< HEAD\nmarkers as data\n=======\n>>>>>>> x",
]
NOTES = [
    "A note a person wrote.",
    "```\na fenced note\n\nwith a blank line\n```",
    "### [bad] this | is | not an entry",
    "- [ ] a todo note",
    "Another note.",
    "> quoted",
]


def _entry(entry_id: str, content: str, **fields: object) -> MemoryEntry:
    at = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)
    values: dict[str, object] = {
        "score": 0.6,
        "created_at": at,
        "last_activated": at,
        "source_session": "s",
    }
    values.update(fields)
    return MemoryEntry(id=entry_id, content=content, **values)  # type: ignore[arg-type]


def _content(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return rng.choice(ODD) + f" {rng.randrange(10**6)}"
    words = rng.sample(WORDS, 4)
    verb = rng.choice(["likes", "avoids", "knows"])
    return f"The user {verb} {' and '.join(words)} {rng.randrange(10**6)}."


def _base(rng: random.Random) -> Document:
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    entries = []
    for n in range(rng.randint(0, 7)):
        at = start + timedelta(days=rng.randint(0, 40), minutes=rng.randint(0, 1440))
        entries.append(
            _entry(
                f"e{n}",
                _content(rng),
                category=rng.choice(CATEGORIES),
                score=round(rng.uniform(0.06, 0.95), 4),
                created_at=at - timedelta(days=rng.randint(0, 9)),
                last_activated=at,
                activation_count=rng.randint(1, 9),
            )
        )
    notes = rng.sample(NOTES, rng.randint(0, 2))
    preamble = ["Kept by hand."] if rng.random() < 0.3 else []
    return Document(entries, preamble, notes, "2026-02-15T00:00:00Z")


def _edit(rng: random.Random, base: Document, shared: list[str], side: str) -> str:
    """One side's file: a random script of the engine's and a person's edits of ``base``."""
    entries = {e.id: e for e in base.entries}
    notes, preamble = list(base.notes), list(base.preamble)
    day = datetime(2026, 2, 20, tzinfo=timezone.utc) + timedelta(days=rng.randint(0, 20))
    for step in range(rng.randint(1, 6)):
        now = day + timedelta(hours=step)
        ids = sorted(entries)
        action = rng.choice(
            [
                *("add", "shared", "shared", "reinforce", "reinforce", "decay", "forget"),
                *("content", "content", "category", "note", "unnote", "score"),
            ]
        )
        if action == "add":
            new = f"{side}{rng.randrange(10**6):x}"
            entries[new] = _entry(new, _content(rng), created_at=now, last_activated=now)
        elif action == "shared":  # both sides may learn the same thing, in the same words or not
            text = rng.choice(shared)
            new = rng.choice(["s1", f"{side}{rng.randrange(10**6):x}"])
            entries[new] = _entry(new, text, created_at=now, last_activated=now)
        elif action == "note":
            notes.append(rng.choice([*NOTES, f"note {side} {rng.randrange(100)}"]))
        elif action == "unnote" and notes:
            notes.pop(rng.randrange(len(notes)))
        elif ids:
            # Half the time one of the first two memories, so that both sides often touch one.
            target = rng.choice(ids[:2] if rng.random() < 0.5 else ids)
            entry = entries[target]
            if action == "reinforce":
                entries[target] = reinforce(entry, now)
            elif action == "decay":
                entries = {i: decay(e, now + timedelta(days=30)) for i, e in entries.items()}
            elif action == "forget":
                del entries[target]
            elif action == "content":
                entries[target] = entry.replace(content=_content(rng))
            elif action == "category":
                entries[target] = entry.replace(category=rng.choice(CATEGORIES))
            elif action == "score":  # set by hand: honoured from then on
                score = round(rng.uniform(0.2, 0.99), 2)
                entries[target] = entry.replace(score=score, base_score=score, base_at=now)
    stamp = (day + timedelta(hours=9)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return _by_hand(rng, render(Document(list(entries.values()), preamble, notes), stamp), side)


def _by_hand(rng: random.Random, text: str, side: str) -> str:
    """What a person may do to the file in an editor: add a memory without an id, write a
    note among the memories, change a score in a heading."""
    if rng.random() < 0.25:
        added = (
            f"### fact | 0.70 | 2026-02-0{rng.randint(1, 9)}\nThe {side} note {rng.randrange(99)}."
        )
        text = text.replace("## Active Memories\n\n", f"## Active Memories\n\n{added}\n\n", 1)
    if rng.random() < 0.2:
        free = f"Free text from {side}, {rng.randrange(99)}."
        text = text.replace("## Archived Memories", f"{free}\n\n## Archived Memories", 1)
    if rng.random() < 0.2:
        text = re.sub(r"^(### \[[^]]+\] \w+ \| )0\.\d\d", r"\g<1>0.77", text, count=1, flags=re.M)
    return text


def _units(doc: Document) -> set[str]:
    return {u for chunk in [*doc.preamble, *doc.notes] for u in chunk.split("\n\n")}


def _no_text_lost(base: Document, side: Document, other: Document, merged_text: str) -> None:
    """Every text ``side`` wrote is in the result: its memories' texts (unless it only kept
    the ancestor's, which the other side may change or delete), and its notes (unless the
    other side deleted one it only kept)."""
    merged = parse(merged_text)
    held = {e.content for e in merged.entries}
    absorbed = {i for e in merged.entries for i in e.merged_ids}
    base_by = {e.id: e for e in base.entries}
    for entry in side.entries:
        old = base_by.get(entry.id)
        if old is not None and old.content == entry.content:
            continue
        written = (entry.content, json_string(entry.content))  # in a conflict: maybe as JSON
        found = entry.content in held or entry.id in absorbed
        found = found or any(text in merged_text for text in written)
        assert found, f"lost [{entry.id}] {entry.content!r}"
    base_units, other_units = _units(base), _units(other)
    for unit in _units(side):
        if unit not in merged_text:
            assert unit in base_units and unit not in other_units, f"lost note {unit!r}"
    # Deleted on the other side: gone when this side only let it decay, else kept.
    merged_ids = {e.id for e in merged.entries}
    other_ids = {e.id for e in other.entries}
    for entry in side.entries:
        old = base_by.get(entry.id)
        if old is not None and entry.id not in other_ids:
            untouched = dataclasses.replace(entry, score=old.score) == old
            assert (entry.id in merged_ids) != untouched, entry


def test_random_edit_scripts_merge_the_same_either_way_and_lose_nothing() -> None:
    rng = random.Random(13)
    cases = 0
    seen: Counter[str] = Counter()
    for _ in range(300):
        base_doc = _base(rng)
        base = render(base_doc)
        shared = [_content(rng) for _ in range(2)]
        ours, theirs = _edit(rng, base_doc, shared, "a"), _edit(rng, base_doc, shared, "b")
        one = merge_texts(base, ours, theirs, now=NOW)
        other = merge_texts(base, theirs, ours, now=NOW)
        assert one.text is not None, one.reason
        assert one.text == other.text and len(one.conflicts) == len(other.conflicts)
        a_doc, b_doc, merged = (parse(text, NOW) for text in (ours, theirs, one.text))
        # Readable: no warning but those about blocks a side already held as unreadable notes.
        assert {p.message for p in merged.problems if p.kind == "warning"} <= {
            p.message for doc in (a_doc, b_doc) for p in doc.problems if p.kind == "warning"
        }
        assert (conflict_line(one.text) is not None) == bool(one.conflicts)
        _no_text_lost(base_doc, a_doc, b_doc, one.text)
        _no_text_lost(base_doc, b_doc, a_doc, one.text)
        # Idempotent: the result merged with itself is itself; a side merged with the result
        # (nothing new on that side) gives the result.
        assert merge_texts(base, one.text, one.text, now=NOW).text == one.text
        assert merge_texts(ours, ours, one.text, now=NOW).text == one.text
        # Reading only the memories the merge needs gives what reading it all gives.
        wanted = {e.id for e in [*a_doc.entries, *b_doc.entries]}
        every = {e.id: e for e in parse(base, NOW).entries}
        assert base_entries(base, wanted, NOW) == {i: every[i] for i in wanted if i in every}
        cases += 1
        seen.update(conflict=bool(one.conflicts), combined=one.combined, folded=one.folded)
    # Every rule ran: conflicts, memories changed on both sides, the same learned on both.
    assert cases == 300 and all(seen.values()), seen


def test_a_document_that_is_not_a_memory_file_is_merged_line_by_line(tmp_path: Path) -> None:
    """Another document committed under the file's name (here one that quotes the format
    further down) is never read as every memory deleted."""
    memory = tmp_path / "MEMORY.md"
    Memory(memory).init()
    Memory(memory).remember("The user likes tea.")
    base, ours, theirs = tmp_path / "b", tmp_path / "o", tmp_path / "t"
    base.write_bytes(memory.read_bytes())
    Memory(memory).remember("The user likes jazz.")
    ours.write_bytes(memory.read_bytes())
    theirs.write_text(
        "# Notes on the project\n\nThe file looks like this:\n\n# Agent Memory\n"
        "## Active Memories\n### [a1b2c3] fact | 0.5 | 2026-01-01 | 1\nexample\n",
        encoding="utf-8",
    )
    report = service.merge_files(base, ours, theirs)
    assert not report.by_memory and not report.clean
    assert "t is not a memory file" in report.conflicts[0]
    merged = ours.read_text(encoding="utf-8")
    assert "<<<<<<<" in merged and "The user likes jazz." in merged and "Notes on the" in merged


def test_git_errors_are_said_by_their_fatal_line(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    git(tmp_path, "init", "-q", "-b", "main", str(folder))
    git(folder, "remote", "add", "origin", str(tmp_path / "nowhere.git"))
    Memory(folder / "MEMORY.md").init()
    service.git_setup(folder / "MEMORY.md")
    with pytest.raises(EverbotMemoryError, match="does not appear to be a git repository"):
        service.sync(folder / "MEMORY.md")


def test_a_clean_line_merge_of_a_file_it_cannot_read_is_left_to_check(tmp_path: Path) -> None:
    """Merged line by line without conflicts, a file that is not UTF-8 is still left for a
    person (exit 1), and the message says so instead of "without conflicts"."""
    text = "# Agent Memory\n\n## Active Memories\n\n### fact | 0.6\nThe user likes tea.\n"
    text += "\n### fact | 0.6\nThe user owns a cat.\n\n### fact | 0.6\nThe user cycles.\n"
    base, ours, theirs = (tmp_path / name for name in ("base", "ours", "theirs"))
    base.write_text(text, encoding="utf-8")
    ours.write_text(text.replace("cycles", "reads"), encoding="utf-8")
    theirs.write_bytes(text.replace("likes tea", "likes café").encode("latin-1"))
    report = service.merge_files(base, ours, theirs)
    assert not report.clean
    [said] = report.conflicts
    assert "without conflict markers: check it, then `git add MEMORY.md`" in said
    assert "The user reads." in ours.read_bytes().decode("latin-1")
    assert "likes café".encode("latin-1") in ours.read_bytes()


def test_sync_says_to_check_a_file_git_merged_line_by_line(machines: tuple[Path, Path]) -> None:
    """Not "deleted on one side: ... `git rm`": both sides changed it, and git merged it line
    by line, without markers, because the driver could not read one side."""
    laptop, desktop = machines
    service.sync(desktop / "MEMORY.md")
    on_laptop = Memory(laptop / "MEMORY.md")
    for fruit in ("apples", "bananas", "cherries", "dates"):
        on_laptop.remember(f"The user likes {fruit}.")
    service.sync(laptop / "MEMORY.md")
    service.sync(desktop / "MEMORY.md")
    path = laptop / "MEMORY.md"
    path.write_bytes(
        path.read_bytes().replace(b"likes apples", "likes café apples".encode("latin-1"))
    )
    git(laptop, "commit", "-q", "-am", "latin-1")
    git(laptop, "push", "-q", "origin", "main")
    _replace(desktop / "MEMORY.md", "likes dates.", "likes dried dates.")
    with pytest.raises(EverbotMemoryError) as raised:
        service.sync(desktop / "MEMORY.md")
    said = str(raised.value)
    assert "the theirs version is not UTF-8 text" in said and ".merge_file" not in said
    assert "merged line by line without conflict markers: check it" in said
    assert "git rm" not in said


def test_a_memory_whose_line_looks_like_a_marker_is_fenced(tmp_path: Path) -> None:
    """Written plain, its line read as the start of a conflict git left further down, and
    the file was split into sides in the wrong place."""
    from everbot_memory.document.conflicts import sides

    path = tmp_path / "MEMORY.md"
    pasted = "The user pasted what git printed:\n<<<<<<< HEAD"
    Memory(path).remember(pasted)
    Memory(path).remember("The user prefers tabs.")
    text = path.read_text(encoding="utf-8")
    assert "```memory\nThe user pasted what git printed:\n<<<<<<< HEAD\n```" in text
    assert pasted in contents(path).values()
    # A line conflict git leaves on another memory: the sides split there, not at the paste.
    conflicted = text.replace(
        "The user prefers tabs.",
        "<<<<<<< HEAD\nThe user prefers tabs.\n=======\nThe user prefers spaces.\n>>>>>>> b",
    )
    found = sides(conflicted)
    assert found is not None
    ours, theirs, _ = found
    assert pasted in ours and pasted in theirs
    assert "prefers tabs" in ours and "prefers spaces" in theirs
