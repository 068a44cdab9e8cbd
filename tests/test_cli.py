"""The everbot-memory command: every command through CliRunner, plus the installed program."""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import filelock
import pytest
from conftest import FIXTURES
from freezegun import freeze_time
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.faces.cli import app
from everbot_memory.storage.paths import SideFiles

runner = CliRunner()
CANONICAL = FIXTURES / "memory" / "canonical.md"
HAND_EDITED = FIXTURES / "memory" / "hand_edited.md"


def run(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env=env)


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(CANONICAL.read_bytes())
    return path


# -- each command ----------------------------------------------------------------------------


def test_init_creates_a_private_canonical_file(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    result = run("init", "--file", str(path))
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().startswith("# Agent Memory\n")
    before = path.read_bytes()
    again = run("init", "--file", str(path))
    assert again.exit_code == 0 and "already exists" in again.output
    assert path.read_bytes() == before


def test_file_defaults_to_the_environment_variable(memory: Path) -> None:
    result = run("list", env={"EVERBOT_MEMORY_FILE": str(memory)})
    assert result.exit_code == 0 and "a1b2c3" in result.output


def test_file_defaults_to_memory_md_in_the_current_folder(memory: Path) -> None:
    cwd = os.getcwd()
    os.chdir(memory.parent)
    try:
        result = run("list", env={"EVERBOT_MEMORY_FILE": ""})
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0 and "a1b2c3" in result.output


def test_remember_adds_then_reinforces(tmp_path: Path) -> None:
    path = str(tmp_path / "MEMORY.md")
    first = run("remember", "The user likes tea.", "-c", "preference", "-i", "high", "-f", path)
    assert first.exit_code == 0 and first.output.startswith("remembered [")
    second = run("remember", "the user likes tea", "--file", path, "--json")
    data = json.loads(second.output)
    assert data["updated"] == 1 and data["entry"]["activation_count"] == 2
    assert data["entry"]["category"] == "preference"


@pytest.mark.parametrize(
    "args",
    [
        ["remember", "   "],
        ["remember", "x", "--category", "hobby"],
        ["remember", "x", "--importance", "huge"],
        ["remember"],
    ],
)
def test_remember_rejects_bad_input(tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "MEMORY.md"
    result = run(*args, "--file", str(path))
    assert result.exit_code in (1, 2)
    assert "Traceback" not in result.output
    assert not path.exists()


def test_forget_deletes_by_id(memory: Path) -> None:
    result = run("forget", "[d4e5f6]", "--file", str(memory), "--json")
    assert result.exit_code == 0, result.output
    assert [e["id"] for e in json.loads(result.output)["forgotten"]] == ["d4e5f6"]
    assert "d4e5f6" not in memory.read_text()


def test_forget_unknown_id_is_one_line_and_changes_nothing(memory: Path) -> None:
    before = memory.read_bytes()
    result = run("forget", "ffffff", "--file", str(memory))
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "ffffff" in result.output
    assert memory.read_bytes() == before


def test_list_text_and_json(memory: Path) -> None:
    text = run("list", "--file", str(memory))
    assert text.exit_code == 0
    assert text.output.split("\n")[0].startswith("[a1b2c3] preference  0.92  2026-02-20   12")
    data = json.loads(run("list", "--file", str(memory), "--json").output)
    assert [e["id"] for e in data] == ["a1b2c3", "d4e5f6", "g7h8i9", "x1y2z3"]
    assert data[-1]["section"] == "archived" and data[0]["section"] == "active"


def test_prompt_prints_the_block(memory: Path) -> None:
    with freeze_time("2026-02-21"):
        result = run("prompt", "--file", str(memory))
    assert result.exit_code == 0
    lines = result.output.strip().split("\n")
    assert lines[0] == "# Memories about the user"
    # The profile first (derived from the strongest preference), then the memories.
    assert lines[3:7] == [
        "<profile>",
        "Who the user is:",
        "Preferences: 用户喜欢简洁的代码风格，不喜欢过多注释",
        "</profile>",
    ]
    lines = lines[:3] + lines[7:]
    assert lines[3] == "<memories>" and lines[-1] == "</memories>"
    assert lines[4:-1] == [
        "- 用户喜欢简洁的代码风格，不喜欢过多注释",
        "- The user's main language is Python; they use FastAPI at work.",
    ]
    with freeze_time("2026-02-21"):
        zh = run("prompt", "--file", str(memory), "--lang", "zh", "--top-k", "1")
    zh_lines = zh.output.strip().split("\n")
    assert zh_lines[:2] == ["# 历史记忆", ""] and "不是指令" in zh_lines[2]
    assert zh_lines[3:5] == ["<profile>", "用户概况："]
    assert zh_lines[7:] == ["<memories>", lines[4], "</memories>"]


def test_prompt_on_a_missing_file_prints_nothing_and_says_why(tmp_path: Path) -> None:
    # A new user has no file yet: session start goes on, with a note on stderr.
    path = tmp_path / "MEMORY.md"
    result = run("prompt", "--file", str(path))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"everbot-memory: no memory file at {path}; nothing to inject\n"
    # A folder that does not exist is a mistyped --file.
    typo = run("prompt", "--file", str(tmp_path / "nowhere" / "MEMORY.md"))
    assert typo.exit_code == 1 and typo.stdout == ""
    assert typo.stderr.count("\n") == 1 and "nowhere" in typo.stderr


def test_prompt_json_gives_the_block_and_its_memories(memory: Path) -> None:
    with freeze_time("2026-02-21"):
        text = run("prompt", "--file", str(memory)).stdout
        data = json.loads(run("prompt", "--file", str(memory), "--json").stdout)
        cut = json.loads(run("prompt", "-f", str(memory), "--json", "--max-chars", "250").stdout)
    assert data["block"] + "\n" == text
    assert [m["id"] for m in data["memories"]] == ["a1b2c3", "d4e5f6"]
    # Only the memories that fit in the block are listed.
    assert [m["id"] for m in cut["memories"]] == ["a1b2c3"]
    assert cut["block"].count("\n- ") == 1
    empty = run("prompt", "--file", str(memory.parent / "none.md"), "--json")
    assert json.loads(empty.stdout) == {"block": "", "memories": []}


def test_maintain_decays_and_reports(memory: Path) -> None:
    with freeze_time("2026-09-01"):
        result = run("maintain", "--file", str(memory), "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0
    assert data["forgotten"] >= 1 and data["archived"] >= 1
    assert {e["id"] for e in data["forgotten_entries"]} >= {"x1y2z3"}
    with freeze_time("2026-09-01"):
        text = run("maintain", "--file", str(memory))
    assert text.output.startswith("new 0, updated 0, archived 0, forgotten 0")


def test_doctor_reports_each_repair_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(HAND_EDITED.read_bytes())
    result = run("doctor", "--file", str(path))
    assert result.exit_code == 1
    lines = [line for line in result.output.split("\n") if line.startswith(f"{path}:")]
    located = [line.split(":")[1] for line in lines]
    assert {"1", "14", "16", "20", "23", "26", "29"} <= set(located)
    assert "warning: cannot read this entry" in result.output
    data = json.loads(run("doctor", "--file", str(path), "--json").output)
    assert data["entries"] == 6 and len(data["problems"]) == len(lines)
    assert path.read_bytes() == HAND_EDITED.read_bytes()  # doctor only reads


def test_doctor_on_a_clean_file_exits_0(memory: Path) -> None:
    result = run("doctor", "--file", str(memory))
    assert result.exit_code == 0 and "no problems" in result.output


def test_maintain_then_doctor_repairs_a_hand_edited_file(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(HAND_EDITED.read_bytes())
    with freeze_time("2026-02-21"):
        assert run("maintain", "--file", str(path)).exit_code == 0
    result = run("doctor", "--file", str(path), "--json")
    # Only the unreadable block is left, kept verbatim under ## Notes until a person fixes it.
    assert [p["kind"] for p in json.loads(result.output)["problems"]] == ["warning"]
    assert "Note from Alice" in path.read_text()


# -- bad input -------------------------------------------------------------------------------


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """Make ``folder`` refuse new files, also for root (who ignores permission bits)."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a folder unwritable")
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("this file system does not support chattr +i")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def write_binary(path: Path) -> None:
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


CASES = {
    "missing file": lambda p: None,
    "binary file": write_binary,
    "latin-1 file": lambda p: p.write_bytes(
        "### [a1b2c3] fact | 0.5 | 2026-01-01 | 1\ncafé\n".encode("latin-1")
    ),
    "directory": lambda p: p.mkdir(),
}


def snapshot(path: Path) -> bytes | str | None:
    if path.is_dir():
        return "dir:" + ",".join(sorted(os.listdir(path)))
    return path.read_bytes() if path.exists() else None


COMMANDS = [
    ["list"],
    ["maintain"],
    ["doctor"],
    ["forget", "a1b2c3"],
    ["remember", "x"],
    ["show", "a1b2c3"],
    ["stats"],
    ["recall", "tea"],
    ["dedupe", "--yes"],
]


@pytest.mark.parametrize(
    "case, command",
    [
        (case, command)
        for case in CASES
        for command in COMMANDS
        # remember creates the file; doctor goes on to check the Claude Code installation
        if not (case == "missing file" and command[0] in ("remember", "doctor"))
    ],
)
def test_bad_file_gives_one_line_and_exit_1(tmp_path: Path, case: str, command: list[str]) -> None:
    path = tmp_path / "MEMORY.md"
    CASES[case](path)
    before = snapshot(path)
    result = run(*command, "--file", str(path))
    assert result.exit_code == 1, result.output
    message = result.output.strip()
    assert message.startswith("everbot-memory: ") and "\n" not in message
    assert "Traceback" not in message
    assert snapshot(path) == before


def test_doctor_without_a_memory_file_still_checks_the_installation(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    result = run("doctor", "--file", str(path))
    assert result.exit_code == 1
    assert f"{path}: no memory file; `everbot-memory init` makes one here" in result.output
    assert "Claude Code: not installed" in result.output
    assert list(tmp_path.iterdir()) == []  # reading leaves nothing behind


def test_empty_file_reads_as_no_memories(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"")
    assert run("list", "--file", str(path)).output.strip() == "no memories yet"
    result = run("forget", "a1b2c3", "--file", str(path))
    assert result.exit_code == 1 and "no memory has id" in result.output
    assert path.read_bytes() == b""


@pytest.mark.parametrize("lock_exists", [False, True])
def test_unwritable_folder_gives_one_line_and_keeps_the_file(
    memory: Path, lock_exists: bool
) -> None:
    if lock_exists:
        SideFiles.of(memory).lock.touch()
    before = memory.read_bytes()
    with unwritable(memory.parent):
        result = run("remember", "something new", "--file", str(memory))
    assert result.exit_code == 1
    message = result.output.strip()
    assert "\n" not in message and ("cannot write" in message or "cannot create" in message)
    assert memory.read_bytes() == before


def test_lock_held_past_the_timeout_gives_one_line(memory: Path) -> None:
    before = memory.read_bytes()
    env = {"EVERBOT_MEMORY_LOCK_TIMEOUT": "0.2"}
    with filelock.FileLock(str(SideFiles.of(memory).lock)):
        result = run("remember", "x", "--file", str(memory), env=env)
    assert result.exit_code == 1
    message = result.output.strip()
    assert "being written by another process" in message and "\n" not in message
    assert memory.read_bytes() == before


def test_bad_lock_timeout_setting_is_reported(memory: Path) -> None:
    result = run("list", "--file", str(memory), env={"EVERBOT_MEMORY_LOCK_TIMEOUT": "soon"})
    assert result.exit_code == 1 and "EVERBOT_MEMORY_LOCK_TIMEOUT" in result.output


# -- the installed program -------------------------------------------------------------------


def installed() -> list[str]:
    script = Path(sys.executable).with_name("everbot-memory")
    if not script.exists():
        pytest.skip("the everbot-memory script is not installed next to this Python")
    return [str(script)]


@pytest.mark.parametrize("launcher", ["script", "module"])
def test_installed_command_runs_end_to_end(tmp_path: Path, launcher: str) -> None:
    cmd = installed() if launcher == "script" else [sys.executable, "-m", "everbot_memory"]
    env = {**os.environ, "EVERBOT_MEMORY_FILE": str(tmp_path / "MEMORY.md")}

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=60)

    assert call("init").returncode == 0
    assert (
        call("remember", "用户喜欢简洁的代码风格", "-c", "preference", "-i", "high").returncode == 0
    )
    shown = call("prompt")
    assert shown.returncode == 0 and "- 用户喜欢简洁的代码风格" in shown.stdout
    missing = call("forget", "nope00")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    assert "Traceback" not in missing.stderr
    usage = call("remember", "x", "--importance", "huge")
    assert usage.returncode == 2
    assert call("--version").stdout.startswith("everbot-memory ")


def test_prompt_does_not_import_the_llm_sdk(tmp_path: Path) -> None:
    code = (
        "import sys; from everbot_memory.faces.cli import main\n"
        "sys.argv=['everbot-memory','prompt',"
        f"'--file',{str(tmp_path / 'MEMORY.md')!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'anthropic' not in sys.modules, 'prompt imported anthropic'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- close-session ---------------------------------------------------------------------------

TRANSCRIPTS = FIXTURES / "transcripts"


def test_close_session_with_the_offline_extractor(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    transcript = str(TRANSCRIPTS / "claude_code_session.jsonl")
    result = run("close-session", transcript, "--file", str(path), "--extractor", "rules")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("session 4f0c8a2e-1111-4222-8333-444455556666: new 3")
    assert "skipped 2 unreadable line(s)" in result.stderr
    contents = {e["content"] for e in json.loads(run("list", "-f", str(path), "--json").output)}
    assert contents == {
        "The user prefers pytest over unittest.",
        "用户住在柏林",
        "Every morning the user checks the ETL dashboard.",
    }


def test_close_session_auto_uses_rules_without_a_key_and_reads_stdin(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    env = {"ANTHROPIC_API_KEY": ""}
    text = "User: I live in Porto.\nAssistant: Nice.\n"
    result = runner.invoke(
        app, ["close-session", "-", "--file", str(path), "--json"], input=text, env=env
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["extractor"] == "rules" and data["new"] == 1
    assert data["session_id"].startswith("sha-")
    before = path.read_bytes()
    again = runner.invoke(
        app, ["close-session", "-", "-f", str(path), "--json"], input=text, env=env
    )
    # The same session again, with nothing new: nothing changes, and it says so.
    data = json.loads(again.stdout)
    assert (data["new"], data["updated"], data["messages"]) == (0, 0, 0)
    assert "nothing new" in again.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "args, message",
    [
        (["close-session", "missing.jsonl"], "does not exist"),
        (
            ["close-session", str(FIXTURES / "memory" / "canonical.md"), "--format", "messages"],
            "not valid JSON",
        ),
        (
            ["close-session", str(TRANSCRIPTS / "chat.txt"), "--extractor", "claude"],
            "ANTHROPIC_API_KEY",
        ),
    ],
)
def test_close_session_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    path = tmp_path / "MEMORY.md"
    result = run(*args, "--file", str(path), env={"ANTHROPIC_API_KEY": ""})
    assert result.exit_code == 1
    assert message in result.output and result.output.strip().count("\n") == 0
    assert not path.exists()


def test_close_session_with_claude_against_a_local_api(tmp_path: Path) -> None:
    from fake_anthropic import answer, fake_anthropic

    path = tmp_path / "MEMORY.md"
    with fake_anthropic() as fake:
        fake.replies = [
            answer(
                [
                    {
                        "content": "The user hates long functions.",
                        "category": "preference",
                        "importance": "high",
                    }
                ]
            )
        ]
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.url}
        result = run("close-session", str(TRANSCRIPTS / "chat.txt"), "-f", str(path), env=env)
    assert result.exit_code == 0, result.output
    assert "(anthropic extractor)" in result.output and fake.calls == 1
    assert "The user hates long functions." in path.read_text()


def test_close_session_on_a_group_chat_keeps_only_the_named_persons_memories(
    tmp_path: Path,
) -> None:
    path = tmp_path / "MEMORY.md"
    chat = str(TRANSCRIPTS / "group_chat.txt")
    result = run("close-session", chat, "--user", "maria", "-f", str(path), "--extractor", "rules")
    assert result.exit_code == 0, result.output
    assert "reading as" not in result.stderr
    contents = {e["content"] for e in json.loads(run("list", "-f", str(path), "--json").output)}
    # Jonas's "I live in Berlin" is about Jonas, not the user.
    assert contents == {
        "The user's name is Maria.",
        "The user lives in Lyon.",
        "The user prefers small hotels.",
    }


def test_close_session_says_whom_it_reads_as_when_no_one_is_named(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    chat = str(TRANSCRIPTS / "group_chat.txt")
    result = run("close-session", chat, "-f", str(path), "--extractor", "rules")
    assert result.exit_code == 0, result.output
    assert "reading as Jonas (most turns); --user NAME picks another" in result.stderr
    unknown = run("close-session", chat, "--user", "Mara", "-f", str(tmp_path / "other.md"))
    assert unknown.exit_code == 1
    assert unknown.output.strip() == (
        "everbot-memory: no speaker 'Mara' in the transcript; speakers: Jonas, Maria, Priya; "
        "use --user NAME"
    )


def test_close_session_shows_claude_who_said_what(tmp_path: Path) -> None:
    from fake_anthropic import answer, fake_anthropic

    with fake_anthropic() as fake:
        fake.replies = [answer([])]
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.url}
        chat = str(TRANSCRIPTS / "group_chat.txt")
        result = run(
            "close-session", chat, "--user", "Maria", "-f", str(tmp_path / "M.md"), env=env
        )
    assert result.exit_code == 0, result.output
    sent = json.dumps(fake.requests[0])
    assert "Maria (the user): My name is Maria" in sent and "Jonas: I live in Berlin" in sent


def test_close_session_formats_are_the_engines() -> None:
    import typer.main

    from everbot_memory.extract.transcripts import FORMATS

    command = typer.main.get_command(app).commands["close-session"]  # type: ignore[attr-defined]
    option = next(p for p in command.params if "--format" in p.opts)
    assert tuple(option.metavar.split("|")) == FORMATS


# -- list filters, show, stats, forget --match, --quiet ----------------------------------------


def test_list_filters_and_pages(memory: Path) -> None:
    def ids(*args: str) -> list[str]:
        result = run("list", "--file", str(memory), "--json", *args)
        assert result.exit_code == 0, result.output
        return [e["id"] for e in json.loads(result.stdout)]

    assert ids("--section", "archived") == ["x1y2z3"]
    assert ids("--section", "active") == ["a1b2c3", "d4e5f6", "g7h8i9"]
    assert ids("--category", "fact") == ["d4e5f6", "x1y2z3"]
    assert ids("--min-score", "0.5") == ["a1b2c3", "d4e5f6"]
    assert ids("--limit", "2", "--offset", "1") == ["d4e5f6", "g7h8i9"]
    assert run("list", "--file", str(memory), "--category", "todo").stdout == "no memories match\n"
    assert run("list", "--file", str(memory), "--section", "nowhere").exit_code == 2


def test_show_prints_every_field(memory: Path) -> None:
    result = run("show", "g7h8i9", "--file", str(memory))
    assert result.exit_code == 0
    assert "base_score: 0.5" in result.stdout and "用户每天早上" in result.stdout
    # Fields the memory does not use are left out, not shown as None or [].
    assert "None" not in result.stdout and "[]" not in result.stdout
    assert "expires_at" not in result.stdout and "merged_ids" not in result.stdout
    data = json.loads(run("show", "[g7h8i9]", "--file", str(memory), "--json").stdout)
    assert data["activation_count"] == 15 and data["section"] == "active"
    missing = run("show", "ffffff", "--file", str(memory))
    assert missing.exit_code == 1 and "ffffff" in missing.output


def test_scores_are_shown_to_four_digits(tmp_path: Path) -> None:
    path = str(tmp_path / "MEMORY.md")
    run("remember", "The user likes green tea.", "--file", path)
    again = run("remember", "the user likes green tea", "--file", path, "--json")
    entry_id = json.loads(again.stdout)["entry"]["id"]  # 0.6 reinforced by 0.08: 0.68
    shown = run("show", entry_id, "--file", path).stdout
    data = json.loads(run("show", entry_id, "--file", path, "--json").stdout)
    assert "score: 0.68\n" in shown and "0.6799" not in shown
    assert data["score"] == data["base_score"] == 0.68


def test_stats_counts_sections_categories_and_scores(memory: Path) -> None:
    data = json.loads(run("stats", "--file", str(memory), "--json").stdout)
    assert (data["total"], data["active"], data["archived"]) == (4, 3, 1)
    assert data["categories"]["fact"] == 2 and data["categories"]["todo"] == 0
    assert data["histogram"]["0.9-1.0"] == 1 and data["histogram"]["0.1-0.2"] == 1
    assert sum(data["histogram"].values()) == 4
    text = run("stats", "--file", str(memory)).stdout
    assert text.startswith("4 memories: 3 active, 1 archived")


def test_forget_by_match_asks_unless_yes(memory: Path) -> None:
    before = memory.read_bytes()
    refused = run("forget", "--match", "用户", "--file", str(memory))
    assert refused.exit_code == 1 and "add --yes" in refused.output
    assert memory.read_bytes() == before
    done = run("forget", "--match", "用户", "--yes", "--file", str(memory), "--json")
    assert done.exit_code == 0
    assert {e["id"] for e in json.loads(done.stdout)["forgotten"]} == {"a1b2c3", "g7h8i9", "x1y2z3"}
    assert run("forget", "--match", "nothing like this", "--yes", "-f", str(memory)).exit_code == 1
    assert run("forget", "--file", str(memory)).exit_code == 2  # neither ID nor --match
    assert run("forget", "d4e5f6", "--match", "x", "--file", str(memory)).exit_code == 2


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_forget_with_a_blank_match_forgets_nothing(memory: Path, blank: str) -> None:
    # An unset shell variable (--match "$X") must not select every memory.
    before = memory.read_bytes()
    result = run("forget", "--match", blank, "--yes", "--file", str(memory))
    assert result.exit_code == 2 and "--match TEXT is empty" in result.output
    assert "Traceback" not in result.output
    assert memory.read_bytes() == before
    assert Memory(memory).find(blank) == []


def test_quiet_prints_nothing_on_success(tmp_path: Path) -> None:
    path = str(tmp_path / "MEMORY.md")
    for args in (
        ["init"],
        ["remember", "The user likes tea."],
        ["maintain"],
        ["close-session", str(TRANSCRIPTS / "chat.txt"), "--extractor", "rules"],
        ["process-pending"],
    ):
        result = run(*args, "--file", path, "--quiet")
        assert result.exit_code == 0 and result.stdout == "", args


def test_process_pending_on_an_empty_queue(tmp_path: Path) -> None:
    result = run("process-pending", "--file", str(tmp_path / "MEMORY.md"), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["done"] == 0


def test_hook_command_reads_stdin(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    run("remember", "The user likes tea.", "-i", "high", "--file", str(path))
    event = json.dumps({"hook_event_name": "SessionStart", "cwd": str(tmp_path), "session_id": "s"})
    result = runner.invoke(
        app, ["hook", "claude-code"], input=event, env={"EVERBOT_MEMORY_FILE": ""}
    )
    assert result.exit_code == 0
    assert (
        "The user likes tea."
        in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    )


def _colour_codes(text: str) -> int:
    """How many SGR escape sequences set a foreground or background colour."""
    count = 0
    for params in re.findall(r"\x1b\[([0-9;]*)m", text):
        codes = [int(p) for p in params.split(";") if p]
        count += any(30 <= c <= 38 or 40 <= c <= 48 or 90 <= c <= 107 for c in codes)
    return count


def test_no_color_and_pipes_get_plain_errors(tmp_path: Path) -> None:
    def usage_error(**env: str) -> str:
        result = subprocess.run(
            [*installed(), "remember", "x", "--importance", "huge", "-f", str(tmp_path / "M.md")],
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | env,
            timeout=60,
        )
        assert result.returncode == 2
        return result.stderr

    assert "\x1b[" not in usage_error()  # piped: plain text
    assert _colour_codes(usage_error(FORCE_COLOR="1")) > 0  # a terminal gets colours ...
    assert _colour_codes(usage_error(FORCE_COLOR="1", NO_COLOR="1")) == 0  # ... unless NO_COLOR


# -- mistakes and long work --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, where, said",
    [
        (["remember", "x", "--category", "hobby"], "remember", "preference, fact, experience"),
        (["list", "--sectoin", "all"], "list", "No such option: --sectoin"),
        (["show"], "show", "Missing argument 'ID'"),
        (["lst"], "", "Did you mean 'list'?"),
        (["recall", "tea", "-k", "0"], "recall", "0 is not in the range"),
        (["forget"], "forget", "give either an ID or --match TEXT"),
        (["hook", "claude-code", "--bogus"], "hook claude-code", "--bogus"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(
    tmp_path: Path, args: list[str], where: str, said: str
) -> None:
    result = run(*args, env={"EVERBOT_MEMORY_FILE": str(tmp_path / "MEMORY.md")})
    assert result.exit_code == 2 and result.stdout == ""
    line = result.stderr
    assert line.count("\n") == 1 and "╭" not in line and "Usage:" not in line
    assert line.startswith("everbot-memory: error: ") and said in line
    assert line.endswith(f"(see {' '.join(['everbot-memory', *where.split()])} -h)\n")


@pytest.mark.parametrize("env", [{}, {"NO_COLOR": "1"}, {"FORCE_COLOR": "1"}, {"TERM": "dumb"}])
def test_usage_errors_stay_one_line_in_every_terminal_setting(
    tmp_path: Path, env: dict[str, str]
) -> None:
    result = subprocess.run(
        [*installed(), "remember", "x", "-c", "hobby", "-f", str(tmp_path / "M.md")],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | env,
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "╭" not in result.stderr
    assert "is not one of preference, fact" in result.stderr


def test_help_is_dash_h_too() -> None:
    assert run("-h").stdout == run("--help").stdout
    assert "--min-score" in run("list", "-h").stdout


def refuse_to_read(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Make ``path`` unreadable, also for root: opening it raises PermissionError."""
    real_open = io.open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)


@pytest.mark.parametrize("command", [["list"], ["prompt"], ["remember", "x"], ["maintain"]])
def test_unreadable_memory_file_is_one_line_and_exit_1(
    memory: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    refuse_to_read(monkeypatch, memory)
    result = run(*command, "--file", str(memory))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"everbot-memory: cannot read {memory}: permission denied\n"


def test_unreadable_transcript_is_one_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = tmp_path / "chat.txt"
    transcript.write_text("User: I like tea.\n")
    refuse_to_read(monkeypatch, transcript)
    result = run("close-session", str(transcript), "--file", str(tmp_path / "M.md"))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Permission denied" in result.stderr


def test_long_work_shows_a_spinner_on_a_terminal_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from everbot_memory.faces.cli import changes, reading

    path = tmp_path / "MEMORY.md"
    run("remember", "The user likes green tea.", "--file", str(path))
    shown: list[str] = []

    @contextlib.contextmanager
    def spinner(message: str, quiet: bool = False) -> Iterator[None]:
        shown.append(message)
        yield

    for module in (changes, reading):
        monkeypatch.setattr(module, "working", spinner)
    for args in (
        ["maintain"],
        ["dedupe", "--yes"],
        ["recall", "tea"],
        ["close-session", str(TRANSCRIPTS / "chat.txt"), "--extractor", "rules"],
    ):
        assert run(*args, "--file", str(path)).exit_code == 0, args
    assert set(shown) >= {
        "applying decay",
        "looking for duplicates",
        "searching",
        "extracting memories",
    }


def stderr_on_a_terminal(*args: str) -> tuple[subprocess.CompletedProcess[bytes], bytes]:
    """Run the installed command with stderr on a pseudo-terminal; returns what it showed."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [*installed(), *args], stdout=subprocess.PIPE, stderr=follower, timeout=60
        )
    finally:
        os.close(follower)
    shown = b""
    with contextlib.suppress(OSError):  # EIO: the terminal has no writer left
        while chunk := os.read(leader, 4096):
            shown += chunk
    os.close(leader)
    return done, shown


def test_the_spinner_is_on_stderr_and_only_on_a_terminal(tmp_path: Path) -> None:
    path = str(tmp_path / "MEMORY.md")
    run("remember", "The user likes green tea.", "--file", path)
    done, shown = stderr_on_a_terminal("maintain", "--file", path)
    assert done.returncode == 0 and b"applying decay" in shown
    assert done.stdout.decode().startswith("new 0, updated 0")
    piped = subprocess.run(
        [*installed(), "maintain", "--file", path], capture_output=True, text=True, timeout=60
    )
    assert piped.returncode == 0 and piped.stderr == ""
    quiet = stderr_on_a_terminal("maintain", "--quiet", "--file", path)
    assert quiet[1] == b""


def test_mcp_without_the_extra_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Importing mcp now fails as if it were not installed, also where it was loaded before.
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.delitem(sys.modules, "everbot_memory.faces.mcp", raising=False)
    result = run("mcp", "--file", str(tmp_path / "MEMORY.md"))
    assert result.exit_code == 1 and result.stdout == ""
    line = result.stderr
    assert line.count("\n") == 1 and "Traceback" not in line
    assert "the mcp extra" in line and "pip install -e '.[mcp]'" in line
    assert "everbot-memory[mcp] @ git+" in line


def test_user_puts_every_command_on_the_users_own_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "data" / "everbot-memory" / "MEMORY.md"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    assert run("--user", "remember", "The user likes green tea.").exit_code == 0
    assert "green tea" in user.read_text(encoding="utf-8")
    assert not (tmp_path / "MEMORY.md").exists()
    listed = run("--user", "list")
    assert listed.exit_code == 0 and "green tea" in listed.output
    other = tmp_path / "other.md"
    assert run("--user", "list", "--file", str(other)).exit_code == 1  # --file still wins


def test_list_writes_a_year_before_1000_with_four_digits(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from conftest import make_entry

    from everbot_memory import MemoryStore

    path = tmp_path / "MEMORY.md"
    MemoryStore(path).save([make_entry(at=datetime(5, 3, 1, tzinfo=timezone.utc))])
    result = run("list", "--file", str(path))
    assert result.exit_code == 0
    assert "  0005-03-01  " in result.output


@pytest.mark.parametrize(
    "command", [["doctor"], ["jobs"], ["jobs", "--retry"], ["process-pending"]]
)
def test_a_side_folder_it_may_not_read_is_one_line_not_a_traceback(
    memory: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    # Left by a run with sudo, say: the system refuses, and the user learns where to look.
    from everbot_memory.storage.queue import JobQueue

    def refused(self: JobQueue) -> None:
        raise PermissionError(13, "Permission denied", str(self.folder))

    monkeypatch.setattr(JobQueue, "pending", refused)
    monkeypatch.setattr(JobQueue, "failed", refused)
    result = run(*command, "--file", str(memory))
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # not the PermissionError itself
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("everbot-memory: permission denied: ") and "jobs" in lines[-1]


def test_text_that_begins_with_a_dash_is_never_echoed_whole_and_the_error_says_how(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "MEMORY.md")
    key = "-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAsecretbody -----END RSA PRIVATE KEY-----"
    result = run("remember", key, "--file", path)
    assert result.exit_code == 2
    assert "MIIEowIBAAKCAQEAsecretbody" not in result.output
    assert "end the options with `--`" in result.output
    done = run("remember", "--file", path, "--", "-40 degrees was the coldest day of the trip.")
    assert done.exit_code == 0 and "-40 degrees" in Path(path).read_text(encoding="utf-8")
    # A near miss of a real option still gets click's suggestion; an option word, its name.
    assert "--file" in run("list", "--fil", path).output
    wrong = run("doctor", "--extractor", "rules", "--file", path).output
    assert "No such option: --extractor" in wrong and "`--`" not in wrong


def test_a_memory_path_that_is_a_folder_names_what_set_it(tmp_path: Path) -> None:
    """Set by $EVERBOT_MEMORY_USER_FILE, the advice was "pass --file"."""
    folder = tmp_path / "mem"
    folder.mkdir()
    said = run("remember", "The user likes tea.", "--file", str(folder))
    assert said.exit_code == 1
    assert said.stderr.endswith("is a directory, not a file; give --file the memory file's path\n")
    env = {"EVERBOT_MEMORY_USER_FILE": str(folder), "EVERBOT_MEMORY_FILE": ""}
    user = run("--user", "remember", "The user likes tea.", env=env)
    assert user.exit_code == 1
    assert "give $EVERBOT_MEMORY_USER_FILE or --file the memory file's path" in user.stderr
