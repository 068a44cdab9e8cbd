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
from everbot_memory.facade import jobs as jobs_module
from everbot_memory.facade.jobs import MAX_ATTEMPTS, RETRY_DELAYS, Jobs
from everbot_memory.facade.reports import SessionReport
from everbot_memory.faces import hooks as hooks_module
from everbot_memory.faces.hooks import handle_claude_code
from everbot_memory.storage.queue import Job, JobQueue

SESSION = "4f0c8a2e-1111-4222-8333-444455556666"


@pytest.fixture(autouse=True)
def _user_memory_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's own memory (the hooks' default) is ``tmp_path / "MEMORY.md"``, the project
    folder these tests run in: one memory, as with ``--file``."""
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(tmp_path / "MEMORY.md"))


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
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "EVERBOT_")) or k == "EVERBOT_MEMORY_USER_FILE"
    }
    return {**env, **extra}


@pytest.fixture
def no_worker(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Hooks record jobs but start no worker; the test runs the queue itself."""
    started: list[Path] = []

    def start(path: Path, *extra: str, **_: str) -> None:
        if "--sweep" not in extra:  # a sweep for idle sessions is tested on its own
            started.append(Path(path))

    monkeypatch.setattr(hooks_module, "start_worker", start)
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
    log = (tmp_path / ".MEMORY.md.everbot" / "log").read_text()
    assert "failed" in log


def test_memory_file_location_follows_file_then_env_then_the_users_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = {"cwd": str(tmp_path / "project")}
    monkeypatch.delenv("EVERBOT_MEMORY_USER_FILE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    user = tmp_path / "data" / "everbot-memory" / "MEMORY.md"
    assert hooks_module.memory_path_for(data, None) == user
    monkeypatch.setenv("EVERBOT_MEMORY_FILE", str(tmp_path / "env.md"))
    assert hooks_module.memory_path_for(data, None) == tmp_path / "env.md"
    assert hooks_module.memory_path_for(data, tmp_path / "flag.md") == tmp_path / "flag.md"


def test_other_events_do_nothing(tmp_path: Path, no_worker: list[Path]) -> None:
    result = handle_claude_code(hook_input("UserPromptSubmit", tmp_path))
    assert (result.stdout, result.stderr) == ("", "")
    assert no_worker == [] and not (tmp_path / ".MEMORY.md.everbot" / "jobs").exists()


class Clock:
    """The worker's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(jobs_module, "time", fake)
    return fake


def test_a_job_that_keeps_failing_is_retried_later_then_set_aside(
    tmp_path: Path, clock: Clock
) -> None:
    memory = tmp_path / "MEMORY.md"
    queue = JobQueue(memory)
    queue.add(Job(session_id="s", transcript_path=str(tmp_path / "gone.jsonl"), event="SessionEnd"))
    assert RETRY_DELAYS == (30, 120, 600) and MAX_ATTEMPTS == 4
    for attempt, delay in enumerate(RETRY_DELAYS, start=1):
        report = Memory(memory).jobs.process()
        assert report is not None and report.failed == 1
        [job] = queue.pending()
        assert job.attempts == attempt and job.not_before == clock.now + delay
        assert "does not exist" in job.error
        # Not due yet: the next run leaves it alone, and says so.
        report = Memory(memory).jobs.process()
        assert report is not None and (report.failed, report.waiting) == (0, 1)
        assert "waiting" in report.messages[0] and "does not exist" in report.messages[0]
        assert Memory(memory).jobs.due() == []
        clock.now += delay
    report = Memory(memory).jobs.process()
    assert report is not None and report.failed == 1
    assert queue.pending() == []
    [failed] = Memory(memory).jobs.failed()
    assert failed.attempts == MAX_ATTEMPTS and "does not exist" in failed.error
    assert "gave up" in queue.log_path.read_text()

    # The transcript is back: a retry of the failed jobs extracts it at once.
    (tmp_path / "gone.jsonl").write_text(user_line("I prefer pytest over unittest.", 1))
    assert Memory(memory).jobs.retry_failed() == 1
    assert Memory(memory).jobs.failed() == [] and queue.pending()[0].attempts == 0
    report = Memory(memory).jobs.process()
    assert report is not None and report.done == 1 and queue.pending() == []
    assert [e.content for e in MemoryStore(memory).load()] == [
        "The user prefers pytest over unittest."
    ]


def test_retry_failed_makes_a_waiting_job_due_now(tmp_path: Path, clock: Clock) -> None:
    memory = tmp_path / "MEMORY.md"
    JobQueue(memory).add(Job(session_id="s", transcript_path=str(tmp_path / "t"), event="x"))
    Memory(memory).jobs.process()
    assert Memory(memory).jobs.due() == []
    assert Memory(memory).jobs.retry_failed() == 1
    assert len(Memory(memory).jobs.due()) == 1
    assert Memory(memory).jobs.retry_failed() == 0  # nothing failed any more


@pytest.mark.parametrize(
    "problem",
    [ModuleNotFoundError("No module named 'anthropic'"), RuntimeError("a bug"), KeyError("x")],
    ids=["missing-module", "runtime-error", "key-error"],
)
def test_any_exception_from_a_job_is_counted_and_the_worker_goes_on(
    tmp_path: Path, clock: Clock, problem: Exception
) -> None:
    memory = tmp_path / "MEMORY.md"
    queue = JobQueue(memory)
    queue.add(Job(session_id="bad", transcript_path="bad.jsonl", event="SessionEnd"))
    queue.add(Job(session_id="good", transcript_path="good.jsonl", event="SessionEnd"))
    closed: list[str] = []

    def close(transcript_path: str, session_id: str) -> SessionReport:
        if session_id == "bad":
            raise problem
        closed.append(session_id)
        stats = {"new": 1, "updated": 0, "messages": 1}
        return SessionReport(session_id, "rules", stats)

    jobs = Jobs(memory, close)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report = jobs.process()
        assert report is not None and report.failed == 1
        assert type(problem).__name__ in report.messages[0]
        if attempt < MAX_ATTEMPTS:
            [job] = queue.pending()
            assert job.attempts == attempt and type(problem).__name__ in job.error
        clock.now += max(RETRY_DELAYS)
    assert closed == ["good"]  # the worker went on past the failing job
    assert queue.pending() == []
    [failed] = jobs.failed()
    assert failed.session_id == "bad" and failed.attempts == MAX_ATTEMPTS
    assert type(problem).__name__ in failed.error


def test_an_api_failure_ends_the_run_and_the_next_run_goes_on(tmp_path: Path, clock: Clock) -> None:
    from everbot_memory.errors import ExtractionError

    memory = tmp_path / "MEMORY.md"
    queue = JobQueue(memory)
    for name in ("first", "second"):
        queue.add(Job(session_id=name, transcript_path=name, event="SessionEnd"))
    down = [True]

    def close(transcript_path: str, session_id: str) -> SessionReport:
        if down[0]:
            raise ExtractionError("cannot reach the API: connection refused")
        return SessionReport(session_id, "claude", {"new": 0, "updated": 0, "messages": 1})

    jobs = Jobs(memory, close)
    report = jobs.process()
    assert report is not None and (report.failed, report.done) == (1, 0)
    assert [j.attempts for j in queue.pending()] == [1, 0]  # the second was not tried
    down[0] = False
    report = jobs.process()
    assert report is not None and (report.done, report.waiting) == (1, 1)
    clock.now += RETRY_DELAYS[0]
    report = jobs.process()
    assert report is not None and report.done == 1 and queue.pending() == []


def test_session_start_starts_no_worker_for_jobs_waiting_to_retry(
    tmp_path: Path, no_worker: list[Path], clock: Clock
) -> None:
    memory = tmp_path / "MEMORY.md"
    JobQueue(memory).add(Job(session_id="s", transcript_path=str(tmp_path / "t"), event="x"))
    handle_claude_code(hook_input("SessionStart", tmp_path))
    assert len(no_worker) == 1  # a due job: a worker is started
    Memory(memory).jobs.process()  # fails: the job now waits
    handle_claude_code(hook_input("SessionStart", tmp_path))
    assert len(no_worker) == 1


def test_a_worker_with_a_key_but_no_sdk_uses_the_rules_and_logs_why(tmp_path: Path) -> None:
    """A default install (no 'claude' extra) with ANTHROPIC_API_KEY set: the job is done with
    the offline rules, and the log says why in one line."""
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(user_line("I prefer pytest over unittest.", 1))
    memory = tmp_path / "MEMORY.md"
    JobQueue(memory).add(
        Job(session_id=SESSION, transcript_path=str(transcript), event="SessionEnd")
    )
    without_sdk = (
        "import runpy, sys; sys.modules['anthropic'] = None; sys.argv[0] = 'everbot-memory'; "
        "runpy.run_module('everbot_memory', run_name='__main__')"
    )
    result = subprocess.run(
        [sys.executable, "-c", without_sdk, "process-pending", "--file", str(memory), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(ANTHROPIC_API_KEY="test-key"),
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout)["done"] == 1
    assert [e.content for e in MemoryStore(memory).load()] == [
        "The user prefers pytest over unittest."
    ]
    log = (tmp_path / ".MEMORY.md.everbot" / "log").read_text()
    assert "ANTHROPIC_API_KEY is set but the 'claude' extra is not installed" in log
    assert JobQueue(memory).pending() == [] and not (JobQueue(memory).failed_folder).exists()


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
    assert jobs.log_path.with_name("log.1").exists()

    jobs.failed_folder.mkdir(parents=True)
    old, new = jobs.failed_folder / "old.json", jobs.failed_folder / "new.json"
    for path in (old, new):
        path.write_text("{}")
    os.utime(old, (0, 0))
    assert jobs.expire_failed() == 1 and new.exists() and not old.exists()


def test_process_pending_retry_failed_from_the_cli(tmp_path: Path, clock: Clock) -> None:
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    memory = tmp_path / "MEMORY.md"
    transcript = tmp_path / "session.jsonl"
    JobQueue(memory).add(Job(session_id="s", transcript_path=str(transcript), event="SessionEnd"))
    runner = CliRunner()
    first = runner.invoke(app, ["process-pending", "--file", str(memory)])
    assert first.exit_code == 1 and "will retry in 30 s" in first.stdout  # no transcript yet
    transcript.write_text(user_line("I prefer pytest over unittest.", 1))
    again = runner.invoke(app, ["process-pending", "--retry-failed", "--file", str(memory)])
    assert again.exit_code == 0, again.stdout
    assert "1 failed or waiting job(s) queued again" in again.stdout
    assert [e.content for e in MemoryStore(memory).load()] == [
        "The user prefers pytest over unittest."
    ]


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "PreCompact"])
def test_a_hook_inside_an_extractors_program_returns_at_once(
    tmp_path: Path, event: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claude-cli extractor marks its child: the child's hooks must neither inject nor
    queue (the extraction's own conversation would be extracted, again and again)."""
    memory = tmp_path / "MEMORY.md"
    Memory(memory).remember("The user prefers tea.")
    started: list[Path] = []
    monkeypatch.setattr(hooks_module, "start_worker", started.append)
    monkeypatch.setenv("EVERBOT_MEMORY_CHILD", "1")
    data = {
        "hook_event_name": event,
        "session_id": "s1",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(tmp_path),
    }
    assert handle_claude_code(json.dumps(data), memory) == hooks_module.HookResult()
    assert handle_claude_code("not even JSON", memory) == hooks_module.HookResult()
    assert Memory(memory).jobs.pending() == [] and started == []
    # The command as Claude Code runs it: exit 0, nothing printed, stdin not even read.
    done = subprocess.run(
        [sys.executable, "-m", "everbot_memory", "hook", "claude-code", "--file", str(memory)],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "EVERBOT_MEMORY_CHILD": "1"},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert Memory(memory).jobs.pending() == []


def test_jobs_lists_due_waiting_and_failed_and_retries_them(tmp_path: Path, clock: Clock) -> None:
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    memory = tmp_path / "MEMORY.md"
    JobQueue(memory).add(Job(session_id="s", transcript_path=str(tmp_path / "t"), event="x"))
    runner = CliRunner()
    listed = runner.invoke(app, ["jobs", "--file", str(memory)])
    assert listed.exit_code == 0 and listed.stdout.startswith("due  session s (x), 0 tries")
    Memory(memory).jobs.process()  # no transcript: it fails and waits
    waiting = runner.invoke(app, ["jobs", "--file", str(memory), "--json"])
    [job] = json.loads(waiting.stdout)
    assert job["state"] == "waiting" and job["attempts"] == 1 and "does not exist" in job["error"]
    again = runner.invoke(app, ["jobs", "--retry", "--file", str(memory)])
    assert "1 failed or waiting job(s) queued again" in again.stdout
    assert "due  session s" in again.stdout


def test_a_damaged_job_file_is_listed_by_jobs_and_doctor(tmp_path: Path) -> None:
    """Set aside at the first look, it was never mentioned again: doctor said no problems."""
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    memory = tmp_path / "MEMORY.md"
    Memory(memory).init()
    queue = JobQueue(memory)
    queue.folder.mkdir(parents=True, exist_ok=True)
    (queue.folder / "00000000000000000001-dead.json").write_text('{"session_id": "abc", "tr')
    assert queue.pending() == []
    [damaged] = queue.failed()
    assert damaged.transcript_path == "" and "cannot be read" in damaged.error
    runner = CliRunner()
    listed = runner.invoke(app, ["jobs", "--file", str(memory)])
    assert listed.stdout.startswith("failed  session 00000000000000000001-dead")
    assert "cannot be read" in listed.stdout
    doctor = runner.invoke(app, ["doctor", "--file", str(memory)])
    assert doctor.exit_code == 1 and "the job file cannot be read" in doctor.stdout
    assert "--retry-failed" not in doctor.stdout  # nothing to retry in it
    assert Memory(memory).jobs.retry_failed() == 0
    assert (queue.failed_folder / "00000000000000000001-dead.json").exists()


def test_process_pending_sweep_of_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    memory = tmp_path / "MEMORY.md"
    args = ["process-pending", "--sweep", str(tmp_path / "nowhere"), "--file", str(memory)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 1
    assert "no project folder at" in done.output and "give --sweep" in done.output
