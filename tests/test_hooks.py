"""Claude Code hooks and the job queue, with hook input in Claude Code's own format."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES
from fake_anthropic import answer, fake_anthropic

from everbot_memory import Memory, MemoryManager, MemoryStore
from everbot_memory.faces import hooks as hooks_module
from everbot_memory.faces.hooks import handle_claude_code
from everbot_memory.storage.queue import Job, JobQueue

SESSION = "4f0c8a2e-1111-4222-8333-444455556666"


def hook_input(event: str, cwd: Path, transcript: Path | None = None, **extra: str) -> str:
    data = {
        "session_id": SESSION,
        "transcript_path": str(transcript or cwd / "session.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": event,
        **extra,
    }
    return json.dumps(data)


def user_line(text: str, n: int) -> str:
    record = {
        "type": "user",
        "sessionId": SESSION,
        "uuid": f"u{n}",
        "timestamp": "2026-03-01T09:00:00Z",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(record) + "\n"


def installed() -> list[str]:
    script = Path(sys.executable).with_name("everbot-memory")
    return [str(script)] if script.exists() else [sys.executable, "-m", "everbot_memory"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVERBOT_"))}
    return {**env, **extra}


@pytest.fixture
def no_worker(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Hooks record jobs but start no worker; the test runs the queue itself."""
    started: list[Path] = []
    monkeypatch.setattr(hooks_module, "start_worker", lambda path: started.append(Path(path)))
    return started


def test_session_start_prints_the_memories_as_additional_context(tmp_path: Path) -> None:
    manager = MemoryManager(tmp_path / "MEMORY.md")
    manager.remember("The user prefers pytest over unittest.", "preference", "high")
    manager.remember("用户住在柏林", "fact", "high")
    result = subprocess.run(
        [*installed(), "hook", "claude-code"],
        input=hook_input("SessionStart", tmp_path, source="startup"),
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert result.returncode == 0 and result.stderr == ""
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    context = output["additionalContext"]
    assert "- The user prefers pytest over unittest." in context and "- 用户住在柏林" in context
    assert len(context) < 10_000


def test_session_start_context_stays_under_10000_characters(tmp_path: Path) -> None:
    manager = MemoryManager(tmp_path / "MEMORY.md")
    for i in range(30):
        manager.remember(f"Memory {i}: " + "long detail " * 60, "fact", "high")
    result = handle_claude_code(hook_input("SessionStart", tmp_path))
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert 1_000 < len(context) < 10_000


def test_session_end_returns_fast_and_the_memories_appear_later(tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(
        user_line("I prefer pytest over unittest.", 1) + user_line("我住在柏林。", 2)
    )
    started = time.monotonic()
    result = subprocess.run(
        [*installed(), "hook", "claude-code"],
        input=hook_input("SessionEnd", tmp_path, transcript, reason="exit"),
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    assert elapsed < 1.0, f"SessionEnd took {elapsed:.2f}s"
    memory = tmp_path / "MEMORY.md"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        # The worker saves the memories, then removes the job: wait for both.
        done = memory.exists() and len(MemoryStore(memory).load()) == 2
        if done and JobQueue(memory).pending() == []:
            break
        time.sleep(0.1)
    contents = {e.content for e in MemoryStore(memory).load()}
    assert contents == {"The user prefers pytest over unittest.", "用户住在柏林"}
    assert JobQueue(memory).pending() == []


def test_pre_compact_then_session_end_counts_each_mention_once(
    tmp_path: Path, no_worker: list[Path]
) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(user_line("I prefer pytest over unittest.", 1))
    assert handle_claude_code(hook_input("PreCompact", tmp_path, transcript, trigger="auto"))
    Memory(tmp_path / "MEMORY.md").jobs.process()
    with transcript.open("a") as handle:
        handle.write(user_line("I live in Porto.", 2))
    handle_claude_code(hook_input("SessionEnd", tmp_path, transcript, reason="exit"))
    report = Memory(tmp_path / "MEMORY.md").jobs.process()
    assert report is not None and report.done == 1
    entries = {e.content: e for e in MemoryStore(tmp_path / "MEMORY.md").load()}
    assert entries["The user prefers pytest over unittest."].activation_count == 1
    assert entries["The user lives in Porto."].activation_count == 1
    assert len(no_worker) == 2  # each hook started a worker


def test_a_job_whose_worker_was_killed_is_finished_by_the_next_run(tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(user_line("I prefer pytest over unittest.", 1))
    memory = tmp_path / "MEMORY.md"
    handle = JobQueue(memory)

    handle.add(Job(session_id=SESSION, transcript_path=str(transcript), event="SessionEnd"))
    with fake_anthropic() as fake:
        # The worker's API call never comes back in time: it is killed while it waits.
        slow = answer([])
        slow.delay = 30
        fake.replies = [slow]
        env = clean_env(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.url)
        worker = subprocess.Popen(
            [*installed(), "process-pending", "--file", str(memory)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake.requests, "the worker never called the API"
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    assert len(JobQueue(memory).pending()) == 1  # the job survived its worker
    result = subprocess.run(
        [*installed(), "process-pending", "--file", str(memory), "--json"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["done"] == 1
    assert [e.content for e in MemoryStore(memory).load()] == [
        "The user prefers pytest over unittest."
    ]


@pytest.mark.parametrize(
    "stdin",
    ["garbage", "[1, 2]", "", '{"hook_event_name": "SessionEnd", "cwd": "%s"}'],
    ids=["not-json", "not-an-object", "empty", "missing-fields"],
)
def test_bad_input_exits_0_with_one_line_and_a_logged_error(tmp_path: Path, stdin: str) -> None:
    result = subprocess.run(
        [*installed(), "hook", "claude-code"],
        input=stdin.replace("%s", str(tmp_path)),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
        timeout=60,
    )
    assert result.returncode == 0
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "failed" in result.stderr
    log = (tmp_path / "MEMORY.md.log").read_text()
    assert "failed" in log


def test_memory_file_location_follows_file_then_env_then_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = {"cwd": str(tmp_path / "project")}
    monkeypatch.delenv("EVERBOT_MEMORY_FILE", raising=False)
    assert hooks_module.memory_path_for(data, None) == tmp_path / "project" / "MEMORY.md"
    monkeypatch.setenv("EVERBOT_MEMORY_FILE", str(tmp_path / "env.md"))
    assert hooks_module.memory_path_for(data, None) == tmp_path / "env.md"
    assert hooks_module.memory_path_for(data, tmp_path / "flag.md") == tmp_path / "flag.md"


def test_other_events_do_nothing(tmp_path: Path, no_worker: list[Path]) -> None:
    result = handle_claude_code(hook_input("UserPromptSubmit", tmp_path))
    assert (result.stdout, result.stderr) == ("", "")
    assert no_worker == [] and not (tmp_path / "MEMORY.md.jobs").exists()


def test_a_job_that_keeps_failing_is_set_aside(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    queue = JobQueue(memory)

    queue.add(Job(session_id="s", transcript_path=str(tmp_path / "gone.jsonl"), event="SessionEnd"))
    for _ in range(3):
        report = Memory(memory).jobs.process()
        assert report is not None and report.failed == 1
    assert queue.pending() == []
    assert len(list((queue.folder / "failed").glob("*.json"))) == 1
    assert "gave up" in queue.log_path.read_text()


def test_fixture_transcript_goes_through_the_queue(tmp_path: Path, no_worker: list[Path]) -> None:
    transcript = FIXTURES / "transcripts" / "claude_code_session.jsonl"
    handle_claude_code(hook_input("SessionEnd", tmp_path, transcript))
    report = Memory(tmp_path / "MEMORY.md").jobs.process()
    assert report is not None and report.done == 1 and report.new == 3


def test_the_log_is_private(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "MEMORY.md")
    queue.log("something happened")
    assert oct(queue.log_path.stat().st_mode & 0o777) == oct(0o600)
    assert "something happened" in queue.log_path.read_text()


def test_side_files_stay_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from everbot_memory.storage import ledger, queue
    from everbot_memory.storage.ledger import SessionLedger

    memory = tmp_path / "MEMORY.md"
    monkeypatch.setattr(ledger, "MAX_SESSIONS", 50)
    sessions = SessionLedger(memory)
    for i in range(200):
        sessions.record(f"s{i}", [{"role": "user", "content": f"m{i}"}])
    assert not sessions.seen("s0") and sessions.seen("s199")
    assert len(json.loads(sessions.path.read_text())) == 50

    monkeypatch.setattr(queue, "LOG_MAX_BYTES", 1_000)
    jobs = JobQueue(memory)
    for i in range(200):
        jobs.log(f"line {i} " + "x" * 50)
    assert jobs.log_path.stat().st_size <= 1_100
    assert jobs.log_path.with_name("MEMORY.md.log.1").exists()

    jobs.failed_folder.mkdir(parents=True)
    old, new = jobs.failed_folder / "old.json", jobs.failed_folder / "new.json"
    for path in (old, new):
        path.write_text("{}")
    os.utime(old, (0, 0))
    assert jobs.expire_failed() == 1 and new.exists() and not old.exists()
