"""The Claude Code bridges: sweeping sessions whose end was never seen, exporting memories into
Claude Code's auto memory, importing a CLAUDE.md or an auto-memory file.

Claude Code's own folder is a scratch one in every test ($HOME and $CLAUDE_CONFIG_DIR), and its
session files are written as Claude Code 2.1 writes them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.facade import claude_code
from everbot_memory.facade.auto_memory import (
    AUTO_MEMORY_MAX_BYTES,
    AUTO_MEMORY_MAX_LINES,
    SECTION_BEGIN,
    SECTION_END,
    auto_memory_path,
    export_auto_memory,
    import_notes,
    notes_in,
    render_digest,
)
from everbot_memory.facade.claude_code import project_key, project_transcripts, sweep
from everbot_memory.faces.cli import app

runner = CliRunner()
HOUR = 3600.0


@pytest.fixture(autouse=True)
def claude_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch home and Claude Code folder: the person's own are never read."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    config = home / ".claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    monkeypatch.delenv(claude_code.IDLE_ENV, raising=False)
    return config


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "etl"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    """A memory not created yet, in a folder that exists."""
    (tmp_path / "mem").mkdir()
    return Memory(tmp_path / "mem" / "MEMORY.md")


def _records(cwd: Path, session_id: str, said: list[str]) -> list[dict[str, Any]]:
    """A session as Claude Code 2.1 writes it: queue records, the user's turns, attachments,
    the assistant's answers with thinking and tool calls."""
    stamp = "2026-03-01T09:00:00.000Z"
    common = {
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "cli",
        "cwd": str(cwd),
        "sessionId": session_id,
        "version": "2.1.197",
        "gitBranch": "HEAD",
    }
    records: list[dict[str, Any]] = [
        {"type": "queue-operation", "operation": "enqueue", "timestamp": stamp,
         "sessionId": session_id, "content": said[0]},
    ]  # fmt: skip
    parent = None
    for text in said:
        user, answer = str(uuid.uuid4()), str(uuid.uuid4())
        records.append(
            {"parentUuid": parent, **common, "type": "user", "uuid": user, "timestamp": stamp,
             "message": {"role": "user", "content": text}, "permissionMode": "default"}
        )  # fmt: skip
        records.append(
            {"parentUuid": user, **common, "type": "attachment", "uuid": str(uuid.uuid4()),
             "timestamp": stamp, "attachment": {"type": "deferred_tools_delta", "addedNames": []}}
        )  # fmt: skip
        records.append(
            {"parentUuid": user, **common, "type": "assistant", "uuid": answer, "timestamp": stamp,
             "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": [
                 {"type": "thinking", "thinking": "Noted.", "signature": "x"},
                 {"type": "text", "text": "Got it."},
                 {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
             ]}}
        )  # fmt: skip
        parent = answer
    return records


def write_session(
    project: Path,
    said: list[str],
    *,
    age: float = 2 * HOUR,
    session_id: str | None = None,
    folder: Path | None = None,
) -> Path:
    """A session of ``project`` where Claude Code keeps it, last written ``age`` seconds ago."""
    session_id = session_id or str(uuid.uuid4())
    folder = folder or claude_code.claude_home() / "projects" / project_key(project.resolve())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    lines = [json.dumps(r, ensure_ascii=False) for r in _records(project, session_id, said)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    age_file(path, age)
    return path


def age_file(path: Path, age: float) -> None:
    then = time.time() - age
    os.utime(path, (then, then))


def run(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env=env)


# -- where Claude Code keeps a project's sessions ---------------------------------------------


@pytest.mark.parametrize(
    "path, key",
    [
        ("/home/lena/etl", "-home-lena-etl"),
        ("/home/lena/my_app.v2", "-home-lena-my-app-v2"),
        ("C:\\Users\\lena\\etl", "C--Users-lena-etl"),
        # Seen from Claude Code 2.1.197 itself: each non-ASCII character is one '-', a
        # character outside the BMP two (it counts UTF-16 units).
        ("/tmp/cc-scratch/proj/my_app.v2/中文 dir", "-tmp-cc-scratch-proj-my-app-v2----dir"),
        ("/tmp/cc-scratch/caf\u00e9/\U0001f600", "-tmp-cc-scratch-caf-" + "-" + "--"),
        # A key past 200 characters is cut, and a hash of the path appended (seen from 2.1.197).
        (
            "/tmp/cc-scratch/proj/" + "a" * 120 + "/" + "b" * 100,
            "-tmp-cc-scratch-proj-" + "a" * 120 + "-" + "b" * 58 + "-umjcvs",
        ),
    ],
)
def test_project_keys_are_claude_codes(path: str, key: str) -> None:
    assert project_key(path) == key


@pytest.mark.parametrize("name", ["etl", "my_app.v2", "données é", "项目 x", "a-b_c.d e"])
def test_sweep_finds_sessions_by_claude_codes_folder_name(
    tmp_path: Path, memory: Memory, name: str
) -> None:
    folder = tmp_path / name
    folder.mkdir()
    session = write_session(folder, ["I prefer pytest over unittest."])
    [swept] = sweep(memory, folder, 30 * 60)
    assert swept.transcript == session and swept.session_id == session.stem
    # Another project's sessions are not this one's.
    other = tmp_path / (name + "2")
    other.mkdir()
    assert sweep(memory, other, 30 * 60) == []


def test_a_symlinked_project_is_found_by_its_real_path(
    tmp_path: Path, memory: Memory, project: Path
) -> None:
    link = tmp_path / "link"
    link.symlink_to(project)
    session = write_session(project, ["I prefer pytest over unittest."])
    assert project_transcripts(link) == [session]
    [swept] = sweep(memory, link, 30 * 60)
    assert swept.transcript == session


def test_a_long_project_path_and_another_hash_of_it(tmp_path: Path, memory: Memory) -> None:
    project = tmp_path / ("p" * 120) / ("q" * 100)
    project.mkdir(parents=True)
    key = project_key(project)
    assert len(key) > 200 and key.startswith(project_key(project)[:200] + "-")
    mine = write_session(project, ["I prefer pytest over unittest."])
    # A folder with the same 200 characters under another hash (another release's): its
    # sessions are this project's only when they say they ran here.
    base = claude_code.claude_home() / "projects"
    other_hash = base / (key[:200] + "-zzzzzz")
    also_mine = write_session(project, ["I live in Berlin."], folder=other_hash)
    elsewhere = write_session(tmp_path / "other", ["I live in Rome."], folder=other_hash)
    found = project_transcripts(project)
    assert mine in found and also_mine in found and elsewhere not in found


# -- sweep --------------------------------------------------------------------------------------


def test_sweep_queues_an_idle_session_once(memory: Memory, project: Path) -> None:
    session = write_session(project, ["I prefer pytest over unittest.", "Thanks!"])
    [swept] = sweep(memory, project, 30 * 60)
    assert swept.messages == 4 and swept.idle_seconds >= 2 * HOUR - 5
    [job] = memory.jobs.pending()
    assert (job.session_id, job.transcript_path, job.event) == (
        session.stem,
        str(session),
        "Sweep",
    )
    assert job.path == swept.job
    assert sweep(memory, project, 30 * 60) == []  # already queued
    assert len(memory.jobs.pending()) == 1
    assert "queued Sweep of session" in memory.jobs.log_path.read_text()


def test_sweep_leaves_a_fresh_session(memory: Memory, project: Path) -> None:
    write_session(project, ["I prefer pytest over unittest."], age=60)
    assert sweep(memory, project, 30 * 60) == []
    # ... until it has been idle long enough (the clock comes in as ``now``).
    assert len(sweep(memory, project, 30 * 60, now=time.time() + HOUR)) == 1


def test_sweep_skips_a_merged_session_until_it_grows(memory: Memory, project: Path) -> None:
    session = write_session(project, ["I prefer pytest over unittest."])
    Memory(memory.path, "rules").close_transcript(session)
    age_file(session, 2 * HOUR)
    assert sweep(memory, project, 30 * 60) == []
    # The session was resumed later and left open again: only its new messages count.
    more = _records(project, session.stem, ["I live in Berlin."])[1:]
    with session.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in more)
    age_file(session, HOUR)
    [swept] = sweep(memory, project, 30 * 60)
    assert swept.messages == 2


def test_sweep_leaves_sessions_the_queue_holds(memory: Memory, project: Path) -> None:
    waiting = write_session(project, ["I prefer pytest over unittest."])
    failed = write_session(project, ["I live in Berlin."])
    memory.jobs.queue(waiting.stem, str(waiting), "SessionEnd")
    job = memory.jobs.queue(failed.stem, str(failed), "SessionEnd")
    from everbot_memory.storage.queue import JobQueue

    JobQueue(memory.path).fail(job)
    assert sweep(memory, project, 30 * 60) == []


def test_sweep_skips_what_has_nothing_to_merge(memory: Memory, project: Path) -> None:
    folder = claude_code.claude_home() / "projects" / project_key(project)
    folder.mkdir(parents=True)
    # A session opened and left: only a summary and a snapshot, nothing anyone said.
    (folder / "empty.jsonl").write_text(
        '{"type":"summary","summary":"Nothing","leafUuid":"x"}\n'
        '{"type":"file-history-snapshot","messageId":"x","snapshot":{}}\n'
    )
    # A sub-agent's transcript belongs to its session (older releases kept them beside it).
    agent = write_session(project, ["Sub-agent prompt: I live in Atlantis."])
    agent.rename(folder / "agent-1234.jsonl")
    for path in folder.iterdir():
        age_file(path, 2 * HOUR)
    assert sweep(memory, project, 30 * 60) == []


def test_sweep_reports_an_unreadable_transcript(memory: Memory, project: Path) -> None:
    session = write_session(project, ["I prefer pytest over unittest."])
    session.write_bytes(b"\xff\xfe not text")
    age_file(session, 2 * HOUR)
    assert sweep(memory, project, 30 * 60) == []
    assert memory.warnings == [f"skipped {session}: not UTF-8 text"]


def test_sweep_reads_the_fixture_session(memory: Memory, project: Path) -> None:
    folder = claude_code.claude_home() / "projects" / project_key(project)
    folder.mkdir(parents=True)
    session = folder / "4f0c8a2e-1111-4222-8333-444455556666.jsonl"
    session.write_bytes((FIXTURES / "transcripts" / "claude_code_session.jsonl").read_bytes())
    age_file(session, 2 * HOUR)
    [swept] = sweep(memory, project, 30 * 60)
    assert swept.session_id == "4f0c8a2e-1111-4222-8333-444455556666"


def test_sweep_leaves_sessions_older_than_the_maximum_age(memory: Memory, project: Path) -> None:
    write_session(project, ["I prefer pytest over unittest."], age=30 * 24 * HOUR)
    recent = write_session(project, ["I live in Berlin."], age=3 * HOUR)
    [swept] = sweep(memory, project, 30 * 60, max_age_seconds=7 * 24 * HOUR)
    assert swept.transcript == recent


def test_sweep_command_queues_then_processes(memory: Memory, project: Path) -> None:
    write_session(project, ["I prefer pytest over unittest."])
    args = ["sweep", "--project", str(project), "--file", str(memory.path)]
    result = run(*args, "--process")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("queued session ") and "1 done, 0 failed" in lines[-1]
    assert any("pytest" in e.content for e in memory.entries())
    again = run(*args, "--process")
    assert again.exit_code == 0 and again.output.startswith("nothing to sweep\n")


def test_sweep_command_uses_the_users_memory_by_default(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_memory = tmp_path / "user" / "MEMORY.md"
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(user_memory))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    write_session(project, ["I prefer pytest over unittest."])
    result = run("sweep", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["memory"] == str(user_memory) and len(data["queued"]) == 1
    assert len(Memory(user_memory).jobs.pending()) == 1


def test_sweep_command_queues_for_the_project_memory_too(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_memory = tmp_path / "user" / "MEMORY.md"
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(user_memory))
    Memory(project / "MEMORY.md").init()
    write_session(project, ["I prefer pytest over unittest."])
    result = run("sweep", "--project", str(project))
    assert result.exit_code == 0, result.output
    # As a SessionEnd hook queues it: in the user's queue, for the project's memory as well.
    [job] = Memory(user_memory).jobs.pending()
    stored = json.loads(job.path.read_text()) if job.path else {}
    assert stored["memories"] == [str(project / "MEMORY.md")]
    assert stored["event"] == "Sweep"


def test_sweep_command_idle_time_from_flag_and_environment(project: Path, memory: Memory) -> None:
    write_session(project, ["I prefer pytest over unittest."], age=10 * 60)
    args = ["sweep", "--project", str(project), "--file", str(memory.path)]
    assert run(*args).output == "nothing to sweep\n"
    assert run(*args, env={claude_code.IDLE_ENV: "20"}).output == "nothing to sweep\n"
    assert run(*args, env={claude_code.IDLE_ENV: "5"}).output.startswith("queued session")


def test_the_help_states_the_bridges_defaults() -> None:
    sweep_help = " ".join(run("sweep", "--help").output.split())
    assert f"${claude_code.IDLE_ENV}, else {claude_code.DEFAULT_IDLE_MINUTES:.0f})" in sweep_help
    export_help = " ".join(run("export", "--help").output.split())
    assert (AUTO_MEMORY_MAX_LINES, AUTO_MEMORY_MAX_BYTES) == (200, 25_000)
    assert "(200 lines, 25 KB)" in export_help


@pytest.mark.parametrize(
    "args, env, message",
    [
        (["--project", "{missing}"], {}, "no project folder at {missing}; run this in the project"),
        (
            [],
            {claude_code.IDLE_ENV: "soon"},
            "EVERBOT_MEMORY_IDLE_MINUTES: idle_minutes 'soon' is not a number",
        ),
    ],
)
def test_sweep_command_errors_are_one_line(
    project: Path, tmp_path: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    missing = str(tmp_path / "nowhere")
    args = [a.format(missing=missing) for a in args]
    base = ["sweep", "--file", str(tmp_path / "M.md")]
    result = run(*base, *(args or ["--project", str(project)]), env=env)
    assert result.exit_code == 1
    assert result.output.startswith("everbot-memory: " + message.format(missing=missing))
    assert result.output.count("\n") == 1


# -- the auto-memory digest ---------------------------------------------------------------------


def remember_all(memory: Memory, texts: list[str]) -> None:
    for text in texts:
        memory.remember(text, "fact", "high")


def test_auto_memory_path_follows_the_repository(tmp_path: Path, claude_home: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    base = claude_home / "projects"
    assert auto_memory_path(plain) == base / project_key(plain) / "memory" / "MEMORY.md"
    # In a repository, the repository's root, from any folder inside it ...
    repo = tmp_path / "repo"
    (repo / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (repo / "src").mkdir()
    assert auto_memory_path(repo / "src") == base / project_key(repo) / "memory" / "MEMORY.md"
    # ... and from a linked worktree, the main one's (as `git worktree add` lays them out).
    worktree = tmp_path / "wt"
    worktree.mkdir()
    git_dir = repo / ".git" / "worktrees" / "wt"
    (worktree / ".git").write_text(f"gitdir: {git_dir}\n")
    (git_dir / "commondir").write_text("../..\n")
    (git_dir / "gitdir").write_text(f"{worktree / '.git'}\n")
    assert auto_memory_path(worktree) == base / project_key(repo) / "memory" / "MEMORY.md"


def test_auto_memory_directory_setting(tmp_path: Path, project: Path, claude_home: Path) -> None:
    (project / ".claude").mkdir()
    # A repository's shared settings could point anywhere: Claude Code ignores them there.
    shared = {"autoMemoryDirectory": str(tmp_path / "shared")}
    (project / ".claude" / "settings.json").write_text(json.dumps(shared))
    assert auto_memory_path(project).parent.parent.parent == claude_home / "projects"
    claude_home.mkdir(parents=True)
    (claude_home / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/notes"}))
    assert auto_memory_path(project) == Path.home() / "notes" / "MEMORY.md"
    local = {"autoMemoryDirectory": str(tmp_path / "local")}
    (project / ".claude" / "settings.local.json").write_text(json.dumps(local))
    assert auto_memory_path(project) == tmp_path / "local" / "MEMORY.md"


def test_export_writes_a_section_and_keeps_the_rest(memory: Memory, project: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest.", "The user lives in Berlin."])
    target = auto_memory_path(project)
    target.parent.mkdir(parents=True)
    theirs = "# Project notes\n\n- [Testing](testing.md) — use the real database\n"
    target.write_text(theirs)
    digest = export_auto_memory(memory, project)
    assert digest.written and digest.kept == 2 and digest.left_out == 0
    text = target.read_text()
    assert text.startswith(theirs + "\n" + SECTION_BEGIN + "\n")
    assert text.endswith(SECTION_END + "\n")
    assert "- The user prefers pytest over unittest." in text
    # Someone adds text after the section; a later export replaces only its own section.
    target.write_text(text + "\n- Added later by hand.\n")
    memory.remember("The user drinks green tea.", "preference", "high")
    again = export_auto_memory(memory, project)
    assert again.kept == 3
    new = target.read_text()
    assert new.startswith(theirs) and new.endswith("\n- Added later by hand.\n")
    assert new.count(SECTION_BEGIN) == 1 and "green tea" in new
    # Nothing new: nothing written.
    assert not export_auto_memory(memory, project).written


def test_export_creates_the_file_and_a_dry_run_does_not(memory: Memory, project: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    target = auto_memory_path(project)
    preview = export_auto_memory(memory, project, dry_run=True)
    assert preview.changed and not preview.written and not target.exists()
    assert preview.text.startswith(SECTION_BEGIN)
    digest = export_auto_memory(memory, project)
    assert digest.written and target.read_text() == preview.text


def test_the_section_shrinks_to_the_line_limit(memory: Memory, project: Path) -> None:
    remember_all(memory, [f"The user keeps fact number {n} in mind." for n in range(120)])
    target = auto_memory_path(project)
    target.parent.mkdir(parents=True)
    theirs = "".join(f"- note {n} written by Claude\n" for n in range(150))
    target.write_text(theirs)
    digest = export_auto_memory(memory, project, top_k=500)
    text = target.read_text()
    assert text.startswith(theirs)
    assert digest.lines == len(text.splitlines()) == AUTO_MEMORY_MAX_LINES
    assert digest.kept + digest.left_out == 120 and 0 < digest.kept < 50
    # The strongest are kept: the same order as the prompt's.
    shown = [line[2:] for line in text.splitlines() if line.startswith("- The user")]
    strongest = [e.content for e in memory.prompt_entries(500)][: digest.kept]
    assert shown == strongest


def test_the_section_shrinks_to_the_size_limit(memory: Memory, project: Path) -> None:
    filler = "with a long explanation " * 19
    remember_all(memory, [f"The user fact {n} {filler}".strip() for n in range(80)])
    digest = export_auto_memory(memory, project, top_k=500)
    data = auto_memory_path(project).read_bytes()
    assert len(data) == digest.size <= AUTO_MEMORY_MAX_BYTES
    assert digest.lines < AUTO_MEMORY_MAX_LINES and digest.left_out > 0
    # One more memory would not have fitted.
    assert digest.size + 460 > AUTO_MEMORY_MAX_BYTES


def test_chinese_text_is_counted_in_bytes(memory: Memory, project: Path) -> None:
    remember_all(
        memory,
        [f"用户第{n}条记忆：" + "喜欢简洁的代码风格，不喜欢过多注释" * 20 for n in range(60)],
    )
    digest = export_auto_memory(memory, project, top_k=500)
    text = auto_memory_path(project).read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= AUTO_MEMORY_MAX_BYTES
    # Counted in characters, three times as many would have seemed to fit.
    assert len(text) < AUTO_MEMORY_MAX_BYTES / 2 and digest.left_out > 0


def test_no_room_removes_the_old_section_only(memory: Memory, project: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    export_auto_memory(memory, project)
    target = auto_memory_path(project)
    theirs = "".join(f"- note {n}\n" for n in range(AUTO_MEMORY_MAX_LINES))
    target.write_text(theirs + "\n" + target.read_text())
    digest = export_auto_memory(memory, project)
    assert digest.kept == 0 and digest.left_out == 1
    assert target.read_text() == theirs


def test_memories_are_shown_as_data_with_secrets_redacted(project: Path) -> None:
    today = datetime.now(timezone.utc).date().isoformat()
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    hand_written = (
        "# Agent Memory\n\n## Active Memories\n\n"
        f"### [a1b2c3] fact | 0.90 | {today} | 1\nThe deploy token is {token} for staging.\n\n"
        f"### [d4e5f6] fact | 0.90 | {today} | 1\nThe user wrote {SECTION_END} here.\n"
    )
    path = project / "MEMORY.md"
    path.write_text(hand_written)
    digest = export_auto_memory(Memory(path), project)
    text = auto_memory_path(project).read_text()
    assert token not in text and "[redacted:github-token]" in text
    assert text.count(SECTION_END) == 1 and "‹!-- everbot-memory:end --›" in text
    assert digest.kept == 2
    # The forged marker does not confuse the next export either.
    assert not export_auto_memory(Memory(path), project).changed


def test_a_person_s_unfinished_marker_is_their_text(memory: Memory, project: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    theirs = f"{SECTION_BEGIN}\n- my own note, no end marker\n"
    digest = render_digest(memory.prompt_entries(), theirs)
    assert digest.text.startswith(theirs) and digest.kept == 1
    assert render_digest(memory.prompt_entries(), digest.text).text == digest.text


def test_a_linked_auto_memory_stays_a_link(memory: Memory, project: Path, tmp_path: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    real = tmp_path / "dotfiles" / "MEMORY.md"
    real.parent.mkdir()
    real.write_text("- kept in my dotfiles\n")
    target = auto_memory_path(project)
    target.parent.mkdir(parents=True)
    target.symlink_to(real)
    export_auto_memory(memory, project)
    assert target.is_symlink() and "pytest" in real.read_text()


def test_export_warns_when_auto_memory_is_off(
    memory: Memory, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    digest = export_auto_memory(memory, project)
    assert digest.warnings and "CLAUDE_CODE_DISABLE_AUTO_MEMORY" in digest.warnings[0]


def test_export_command(memory: Memory, project: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    base = ["export", "--file", str(memory.path)]
    printed = run(*base)
    assert printed.exit_code == 0 and printed.output.startswith(SECTION_BEGIN)
    target = auto_memory_path(project)
    dry = run(*base, "--claude-auto-memory", "--project", str(project), "--dry-run")
    assert dry.exit_code == 0 and "would write 1 memories to" in dry.output
    assert not target.exists()
    wrote = run(*base, "--claude-auto-memory", "--project", str(project))
    assert wrote.exit_code == 0 and wrote.output.startswith(f"wrote 1 memories to {target}")
    same = run(*base, "--claude-auto-memory", "--project", str(project), "--json")
    data = json.loads(same.output)
    assert (data["memories"], data["written"], data["path"]) == (1, False, str(target))


def test_export_command_says_what_was_left_out(memory: Memory, project: Path) -> None:
    remember_all(memory, [f"The user keeps fact number {n} in mind." for n in range(40)])
    target = auto_memory_path(project)
    target.parent.mkdir(parents=True)
    target.write_text("".join(f"- note {n}\n" for n in range(180)))
    args = ["export", "--file", str(memory.path), "--claude-auto-memory", "--project", str(project)]
    result = run(*args, "--top", "40")
    assert result.exit_code == 0, result.output
    assert "left out to stay within 200 lines and 25 KB" in result.output


def test_export_command_needs_a_memory(tmp_path: Path) -> None:
    result = run("export", "--file", str(tmp_path / "none.md"))
    assert result.exit_code == 1
    assert result.output == (
        f"everbot-memory: no memory file at {tmp_path / 'none.md'}; "
        "create one with `everbot-memory init`\n"
    )


# -- import -------------------------------------------------------------------------------------

CLAUDE_MD = f"""---
description: front matter is not a note
---
# Project guide

@docs/architecture.md

## Style

- I prefer tabs over spaces in Makefiles.
- Always run the linter before committing.
  - Nested: the user works at Acme.
- [Coding standards](docs/standards.md)
- See @~/.claude/my-notes.md for more.
- ok

You must use pnpm, never npm, in this repository.

```bash
- this is a command, not a note
npm install
```

    - indented code is not a note either

| tool | use |
| --- | --- |
| pytest | tests |

<!-- a comment is not a note -->

我喜欢简洁的代码风格，不喜欢过多注释。

- Always run the linter before committing.

{SECTION_BEGIN}
- The user was exported here earlier.
{SECTION_END}
"""


def test_the_notes_of_a_claude_md() -> None:
    notes = notes_in(CLAUDE_MD)
    kept = [n.text for n in notes if not n.skip]
    assert kept == [
        "I prefer tabs over spaces in Makefiles.",
        "Always run the linter before committing.",
        "Nested: the user works at Acme.",
        "You must use pnpm, never npm, in this repository.",
        "我喜欢简洁的代码风格，不喜欢过多注释。",
    ]
    skipped = {n.text: n.skip for n in notes if n.skip}
    assert skipped == {
        "@docs/architecture.md": "an @import",
        "Coding standards": "only links",
        "See @~/.claude/my-notes.md for more.": "an @import",
        "ok": "too short",
        "Always run the linter before committing.": "said before in the file",
    }
    lines = {n.text: n.line for n in notes}
    assert lines["I prefer tabs over spaces in Makefiles."] == 10


def test_import_remembers_each_note_once(memory: Memory, tmp_path: Path) -> None:
    source = tmp_path / "CLAUDE.md"
    source.write_text(CLAUDE_MD)
    report = import_notes(memory, source)
    assert (report.count("added"), report.count("reinforced"), report.count("skipped")) == (5, 0, 5)
    kinds = {item.note.text: item.entry.category for item in report.items if item.entry}
    assert kinds["I prefer tabs over spaces in Makefiles."] == "preference"
    assert kinds["Always run the linter before committing."] == "workflow"
    # "must" reads as a todo in a conversation; a standing note in a file is no todo.
    assert kinds["You must use pnpm, never npm, in this repository."] != "todo"
    before = {e.id: e.content for e in memory.entries()}
    again = import_notes(memory, source)
    assert (again.count("added"), again.count("reinforced")) == (0, 5)
    assert {e.id: e.content for e in memory.entries()} == before


def test_import_dry_run_writes_nothing(memory: Memory, tmp_path: Path) -> None:
    source = tmp_path / "CLAUDE.md"
    source.write_text(CLAUDE_MD)
    report = import_notes(memory, source, dry_run=True)
    assert report.count("added") == 5 and not memory.path.exists()
    memory.remember("The user prefers tabs over spaces in Makefiles.", "preference")
    before = memory.path.read_bytes()
    report = import_notes(memory, source, dry_run=True)
    assert report.count("reinforced") == 1 and report.count("added") == 4
    assert memory.path.read_bytes() == before


def test_import_redacts_secrets_and_skips_a_bare_one(memory: Memory, tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    source = tmp_path / "MEMORY.md"
    source.write_text(f"- The staging deploy uses token {token} daily.\n- {token}\n")
    report = import_notes(memory, source, "fact")
    added, skipped = report.items
    assert added.entry is not None and token not in added.entry.content
    assert skipped.outcome == "skipped" and "only a secret" in skipped.reason
    assert token not in skipped.note.shown
    assert token not in memory.path.read_text()


def test_a_long_notes_file_is_imported_in_one_save(memory: Memory, tmp_path: Path) -> None:
    memory.remember("The user lives in Paris.", "fact")
    before = memory.path.read_bytes()
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    notes = [f"- Service number {n} is deployed from the blue pipeline." for n in range(300)]
    notes += [
        f"- {token}",
        "- The user lives in Berlin.",
        f"- The release bot posts with token {token} on Fridays.",
    ]
    source = tmp_path / "CLAUDE.md"
    source.write_text("\n".join(notes) + "\n")
    report = import_notes(memory, source, "fact")
    assert (report.count("added"), report.count("reinforced"), report.count("skipped")) == (
        302,
        0,
        1,
    )
    # One save: the backup is the file as it was before the import.
    assert memory.store.files.backup.read_bytes() == before
    skipped = next(item for item in report.items if item.outcome == "skipped")
    assert "only a secret" in skipped.reason
    assert report.warnings == ["line 303: redacted github-token in a new memory"]
    assert token not in memory.path.read_text()
    # A new home given by a note retires the old one, as a remember does.
    paris = next(e for e in memory.entries() if "Paris" in e.content)
    assert not paris.is_active


def test_a_later_note_replaces_an_earlier_one_of_the_same_import(
    memory: Memory, tmp_path: Path
) -> None:
    source = tmp_path / "notes.md"
    source.write_text(
        "- The user works at Stripe.\n- The user lives in Berlin.\n"
        "- The user works at Google.\n- The user lives in Munich.\n"
    )
    import_notes(memory, source, "fact")
    active = {e.content for e in memory.entries() if e.is_active}
    assert active == {"The user works at Google.", "The user lives in Munich."}


def test_a_home_said_again_last_in_the_notes_is_the_one_that_stands(
    memory: Memory, tmp_path: Path
) -> None:
    source = tmp_path / "notes.md"
    source.write_text(
        "- The user lives in Berlin.\n- The user lives in Lisbon.\n- The user lives in Berlin.\n"
    )
    report = import_notes(memory, source, "fact")
    assert report.items[0].reason == "said again later in the file"
    active = {e.content for e in memory.entries() if e.is_active}
    assert active == {"The user lives in Berlin."}


def test_a_note_said_twice_in_one_import_is_one_memory(memory: Memory, tmp_path: Path) -> None:
    source = tmp_path / "notes.md"
    source.write_text("- The user deploys on Tuesdays.\n\nThe user deploys on Tuesdays!\n")
    report = import_notes(memory, source, "workflow")
    outcomes = [item.outcome for item in report.items]
    first, second = (item.entry for item in report.items)
    assert first is not None and second is not None and first.id == second.id
    assert outcomes == ["added", "skipped"]
    assert report.items[1].reason == "an earlier note says it"
    assert len(memory.entries()) == 1


def test_importing_an_export_skips_the_exported_section(memory: Memory, project: Path) -> None:
    remember_all(memory, ["The user prefers pytest over unittest."])
    export_auto_memory(memory, project)
    target = auto_memory_path(project)
    target.write_text(
        "- [Deploys](deploys.md) — staging deploys need a ticket\n" + target.read_text()
    )
    report = import_notes(memory, target)
    [item] = report.items
    assert item.outcome == "added" and item.entry is not None
    assert item.entry.content == "Deploys — staging deploys need a ticket"


def test_import_command(memory: Memory, tmp_path: Path) -> None:
    source = tmp_path / "CLAUDE.md"
    source.write_text(CLAUDE_MD)
    args = ["import", str(source), "--file", str(memory.path)]
    dry = run(*args, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "would add [" in dry.output and not memory.path.exists()
    assert dry.output.endswith(
        f"5 added, 0 reinforced, 5 skipped from {source}, into {memory.path} "
        "(dry run: nothing written)\n"
    )
    result = run(*args, "--category", "workflow")
    assert result.exit_code == 0 and "added [" in result.output
    assert {e.category for e in memory.entries()} == {"workflow"}
    assert "skipped line 15 (too short): ok" in result.output
    again = run(*args, "--json")
    data = json.loads(again.output)
    assert (data["added"], data["reinforced"], data["skipped"]) == (0, 5, 5)


def test_import_command_missing_file(memory: Memory, tmp_path: Path) -> None:
    result = run("import", str(tmp_path / "CLAUDE.md"), "--file", str(memory.path))
    assert result.exit_code == 1
    assert result.output == (
        f"everbot-memory: no file at {tmp_path / 'CLAUDE.md'}; give the path of a CLAUDE.md "
        "or an auto-memory MEMORY.md\n"
    )


def test_the_idle_time_can_be_set_in_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg" / "everbot-memory" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("idle_minutes = 5\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert claude_code.idle_minutes() == 5.0
    monkeypatch.setenv(claude_code.IDLE_ENV, "12")
    assert claude_code.idle_minutes() == 12.0  # the environment wins over the file
    assert claude_code.idle_minutes(2) == 2.0  # and the flag over both


def test_importing_another_memory_file_takes_its_active_memories(
    memory: Memory, tmp_path: Path
) -> None:
    """Its archived memories (replaced or faded) and its profile are not notes: brought in as
    new memories, an old fact would retire the current one."""
    other = Memory(tmp_path / "other" / "MEMORY.md")
    other.init()
    other.remember("The user lives in Berlin.", "fact")
    other.remember("The user lives in Shanghai now.", "fact")  # Berlin is archived
    other.remember("The user prefers pytest over unittest.", "preference")
    archived = [e.content for e in other.entries() if not e.is_active]
    assert archived == ["The user lives in Berlin."]
    report = import_notes(memory, other.path)
    assert report.count("added") == 2
    found = {e.content: e for e in memory.entries()}
    assert set(found) == {
        "The user lives in Shanghai now.",
        "The user prefers pytest over unittest.",
    }
    assert found["The user prefers pytest over unittest."].category == "preference"
    assert all(e.is_active for e in found.values())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_import_reads_a_pipe_to_its_end_and_never_hangs(memory: Memory, tmp_path: Path) -> None:
    """Piped notes are read (`import /dev/stdin`); a named pipe no one writes to reads as
    empty instead of hanging, and a device that never ends (/dev/zero) is an error."""
    piped = subprocess.run(
        [sys.executable, "-m", "everbot_memory", "import", "/dev/stdin", "--file", memory.path],
        input="- The user prefers tabs over spaces in Python.\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert [e.content for e in memory.entries()] == ["The user prefers tabs over spaces in Python."]
    pipe = tmp_path / "notes.md"
    os.mkfifo(pipe)
    nobody = run("import", str(pipe), "--file", str(memory.path))
    assert nobody.exit_code == 0 and "0 added" in nobody.output
    endless = run("import", "/dev/zero", "--file", str(memory.path))
    assert endless.exit_code == 1 and "/dev/zero holds more than" in endless.output
    assert len(memory.entries()) == 1


@pytest.mark.parametrize(
    "command",
    [["sweep", "--process"], ["process-pending", "--extractor", "rules", "--sweep", "PROJECT"]],
)
def test_user_sweeps_feed_the_projects_memory_as_the_hooks_do(
    command: list[str], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_memory = tmp_path / "user" / "MEMORY.md"
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(user_memory))
    pinned = tmp_path / "pinned" / "MEMORY.md"
    monkeypatch.setenv("EVERBOT_MEMORY_FILE", str(pinned))  # --user names your own instead
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    Memory(project / "MEMORY.md").init()
    said = ["I prefer pytest over unittest.", "We decided to use PostgreSQL instead of MongoDB."]
    write_session(project, said)
    result = run("--user", *[str(project) if a == "PROJECT" else a for a in command])
    assert result.exit_code == 0, result.output
    mine = [e.content for e in Memory(user_memory).entries()]
    theirs = [e.content for e in Memory(project / "MEMORY.md").entries()]
    assert any("pytest" in c for c in mine) and not any("PostgreSQL" in c for c in mine)
    assert any("PostgreSQL" in c for c in theirs) and not any("pytest" in c for c in theirs)
    assert not pinned.exists()
