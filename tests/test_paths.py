"""Where the side files live: the backup and the lock beside MEMORY.md, the rest in one hidden
folder that git ignores by itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

from everbot_memory import Memory
from everbot_memory.storage.paths import SideFiles


def test_a_project_root_gets_the_file_and_one_hidden_folder(
    tmp_path: Path,
) -> None:
    memory = Memory(tmp_path / "MEMORY.md")
    memory.remember("The user prefers pytest over unittest.")
    memory.remember("The user lives in Lyon.")
    memory.recall("pytest")
    memory.jobs.log("a line")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".MEMORY.md.everbot",
        "MEMORY.md",
    ]
    folder = tmp_path / ".MEMORY.md.everbot"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert {"index", "log", "versions", "MEMORY.md.bak", "lock"} <= {
        p.name for p in folder.iterdir()
    }
    assert folder.stat().st_mode & 0o777 == 0o700


def test_git_ignores_the_hidden_folder_unasked(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    Memory(tmp_path / "MEMORY.md").remember("The user prefers tabs.")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".MEMORY.md.everbot" not in status
    assert "MEMORY.md" in status


def test_side_files_an_earlier_version_left_beside_the_file_are_moved_in(
    tmp_path: Path,
) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("# Agent Memory\n", encoding="utf-8")
    # As an earlier version laid them out: everything beside the file.
    (tmp_path / "MEMORY.md.sessions.json").write_text('{"s-1": {"merged": 4}}')
    (tmp_path / "MEMORY.md.log").write_text("a line\n")
    (tmp_path / "MEMORY.md.jobs").mkdir()
    (tmp_path / "MEMORY.md.jobs" / "job.json").write_text("{}")
    files = SideFiles.of(path)
    folder = tmp_path / ".MEMORY.md.everbot"
    assert files.sessions == folder / "sessions.json"
    assert files.sessions.read_text() == '{"s-1": {"merged": 4}}'  # moved, not lost
    assert (folder / "log").read_text() == "a line\n"
    assert (folder / "jobs" / "job.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".MEMORY.md.everbot", "MEMORY.md"]


def test_a_swapped_out_file_an_earlier_version_left_is_moved_in_too(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("# Agent Memory\n", encoding="utf-8")
    (tmp_path / "MEMORY.md.previous-0123456789abcdef").write_text("an editor's late write\n")
    folder = SideFiles.of(path).previous.parent
    assert (folder / "previous-0123456789abcdef").read_text() == "an editor's late write\n"
    assert not (tmp_path / "MEMORY.md.previous-0123456789abcdef").exists()


def test_the_lock_file_is_private_like_the_others(tmp_path: Path) -> None:
    Memory(tmp_path / "MEMORY.md").remember("The user prefers tabs.")
    assert SideFiles.of(tmp_path / "MEMORY.md").lock.stat().st_mode & 0o777 == 0o600
