"""install / uninstall for Claude Code, and doctor's check of an installation. Every file is in
tmp_path: HOME, $CLAUDE_CONFIG_DIR and the project point there."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from everbot_memory.facade.install import find_program, is_our_hook, plugin_hooks
from everbot_memory.facade.memory import Memory
from everbot_memory.faces.cli import app
from everbot_memory.storage.locations import user_memory_path
from everbot_memory.storage.paths import SideFiles
from everbot_memory.storage.queue import Job, JobQueue

runner = CliRunner()
EVENTS = ["SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"]
# A settings file as a person writes one: four spaces, short lists on one line, other hooks
# (one of them on an event ours use too), other settings.
THEIRS = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh"}]}]
    }
}
"""
# Claude Code's state file, as it writes it (two spaces, no newline at the end).
STATE = json.dumps(
    {"numStartups": 7, "projects": {"/elsewhere": {"mcpServers": {}, "allowedTools": []}}},
    indent=2,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return project


@pytest.fixture
def program(tmp_path: Path) -> Path:
    """A stand-in everbot-memory for the hooks to run."""
    path = tmp_path / "bin" / "everbot-memory"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def run(*args: str) -> Any:
    return runner.invoke(app, list(args))


def install(program: Path, *args: str) -> Any:
    result = run("install", "--command", str(program), *args)
    assert result.exit_code == 0, result.output
    return result


def settings_of(scope: str, home: Path, project: Path) -> Path:
    return {
        "user": home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
    }[scope]


def server_of(scope: str, home: Path, project: Path) -> Any:
    """Our MCP server's entry in the place Claude Code reads for ``scope``."""
    if scope == "project":
        return json.loads((project / ".mcp.json").read_text())["mcpServers"]["everbot-memory"]
    state = json.loads((home / ".claude.json").read_text())
    if scope == "local":
        state = state["projects"][str(project.resolve())]
    return state["mcpServers"]["everbot-memory"]


def ours(settings: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {
        event: [g for g in groups if "everbot-memory hook" in json.dumps(g)]
        for event, groups in settings["hooks"].items()
    }


# -- install, per scope


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_install_writes_the_plugins_hooks_and_the_mcp_server(
    scope: str, home: Path, project: Path, program: Path
) -> None:
    result = install(program, "--scope", scope)
    settings = json.loads(settings_of(scope, home, project).read_text())
    hooks = plugin_hooks()
    assert list(settings["hooks"]) == EVENTS
    for event in EVENTS:
        (group,) = settings["hooks"][event]
        (hook,) = group["hooks"]
        (wanted,) = hooks[event]
        assert group.get("matcher") == wanted.get("matcher")
        assert hook["timeout"] == wanted["hooks"][0]["timeout"]
        assert hook["command"] == f"{program} hook claude-code"
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert server_of(scope, home, project) == {
        "type": "stdio",
        "command": str(program),
        "args": ["mcp", "--user"],
    }
    assert "restart Claude Code" in result.stdout
    if scope != "user":
        assert not (home / ".claude").exists()  # the user's settings are not touched


def test_claude_config_dir_takes_the_place_of_dot_claude(
    tmp_path: Path, home: Path, project: Path, program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    install(program)
    assert ours(json.loads((config / "settings.json").read_text()))["SessionEnd"]
    state = json.loads((config / ".claude.json").read_text())
    assert state["mcpServers"]["everbot-memory"]["command"] == str(program)
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()


def test_the_default_command_is_this_installations_script_by_its_full_path(
    home: Path, project: Path
) -> None:
    found = find_program()
    assert found is not None and os.path.isabs(found)
    assert run("install").exit_code == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    assert command == f"{found} hook claude-code"
    # A project's settings are shared: a path of this machine's is said to be one.
    shared = run("install", "--scope", "project")
    assert shared.exit_code == 0 and "another machine may not have" in shared.stderr


@pytest.mark.parametrize(
    ("command", "mine"),
    [
        ("everbot-memory hook claude-code", True),
        ("/opt/venv/bin/everbot-memory hook claude-code --file /m/MEMORY.md", True),
        ("'/My Tools/everbot-memory' hook claude-code", True),
        ("uvx everbot-memory hook claude-code", True),
        ("everbot-memory hook", False),
        ("my-everbot-memory hook claude-code", False),
        ("echo everbot-memory", False),
        ("'unbalanced", False),
    ],
)
def test_our_hook_is_known_by_what_it_runs(command: str, mine: bool) -> None:
    assert is_our_hook(command) is mine


def test_a_pinned_file_goes_to_the_hooks_and_the_server(
    tmp_path: Path, home: Path, project: Path, program: Path
) -> None:
    memory = tmp_path / "notes" / "MEMORY.md"
    memory.parent.mkdir()
    install(program, "--file", str(memory))
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreCompact"][0]["hooks"][0]["command"]
    assert command == f"{program} hook claude-code --file {memory}"
    assert server_of("user", home, project)["args"] == ["mcp", "--file", str(memory)]


def test_project_memory_creates_the_projects_memory_file(
    home: Path, project: Path, program: Path
) -> None:
    result = install(program, "--project-memory")
    assert Memory(project / "MEMORY.md").exists()
    assert "created the project memory" in result.stdout


# -- what install keeps


def test_install_twice_changes_nothing_the_second_time(
    home: Path, project: Path, program: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    install(program)
    files = [settings, home / ".claude.json", settings.with_name("settings.json.bak")]
    before = [f.read_bytes() for f in files]
    again = install(program)
    assert "already installed" in again.stdout
    assert [f.read_bytes() for f in files] == before


def test_other_hooks_and_settings_are_kept_same_event_too(
    home: Path, project: Path, program: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    install(program)
    data = json.loads(settings.read_text())
    theirs = json.loads(THEIRS)
    assert data["model"] == "opus" and data["permissions"] == theirs["permissions"]
    assert data["hooks"]["PreToolUse"] == theirs["hooks"]["PreToolUse"]
    start = data["hooks"]["SessionStart"]
    assert start[0] == theirs["hooks"]["SessionStart"][0]  # theirs first, ours after
    assert len(start) == 2 and "everbot-memory hook" in json.dumps(start[1])
    assert "    " in settings.read_text().splitlines()[1][:4]  # their indentation kept


def test_reinstalling_replaces_ours_in_place_and_keeps_theirs(
    tmp_path: Path, home: Path, project: Path, program: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = json.loads(THEIRS)
    # Ours from an older installation, at another path, before theirs.
    old["hooks"]["SessionStart"].insert(
        0, {"hooks": [{"type": "command", "command": "/old/bin/everbot-memory hook claude-code"}]}
    )
    settings.write_text(json.dumps(old, indent=2))
    install(program)
    start = json.loads(settings.read_text())["hooks"]["SessionStart"]
    assert [h["command"] for g in start for h in g["hooks"]] == [
        f"{program} hook claude-code",
        "echo hello",
    ]


def test_a_server_of_our_name_that_is_not_ours_is_left_with_a_warning(
    home: Path, project: Path, program: Path
) -> None:
    mine = {"mcpServers": {"everbot-memory": {"command": "my-own-server"}}}
    (project / ".mcp.json").write_text(json.dumps(mine))
    result = install(program, "--scope", "project")
    assert json.loads((project / ".mcp.json").read_text()) == mine
    assert "left as it is" in result.stderr


def test_a_symlinked_settings_file_is_written_through(
    tmp_path: Path, home: Path, project: Path, program: Path
) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(THEIRS)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").symlink_to(dotfiles)
    install(program)
    assert (home / ".claude" / "settings.json").is_symlink()
    assert ours(json.loads(dotfiles.read_text()))["SessionEnd"]


# -- backups, dry runs, bad files


def test_a_changed_file_is_backed_up_first(home: Path, project: Path, program: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    settings.chmod(0o640)
    (home / ".claude.json").write_text(STATE)
    result = install(program)
    assert settings.with_name("settings.json.bak").read_text() == THEIRS
    assert (home / ".claude.json.bak").read_text() == STATE
    assert f"the old one is in {settings}.bak" in result.stdout
    assert stat.S_IMODE(settings.stat().st_mode) == 0o640  # the file's mode is kept


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path, project: Path, program: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    for scope in ("user", "project", "local"):
        result = install(program, "--scope", scope, "--dry-run")
        assert "dry run: nothing written" in result.stdout
        added = rf'^\+\s+"command": "{re.escape(str(program))} hook claude-code"'
        assert re.search(added, result.stdout, re.M), result.stdout
    assert sorted(p.name for p in home.rglob("*")) == [".claude", "settings.json"]
    assert list(project.iterdir()) == []
    assert settings.read_text() == THEIRS
    # the uninstall of an installation shows what it would remove, and removes nothing
    install(program)
    installed = settings.read_bytes()
    result = run("uninstall", "--dry-run")
    assert result.exit_code == 0 and "dry run: nothing written" in result.stdout
    removed = rf'^-\s+"command": "{re.escape(str(program))} hook claude-code"'
    assert re.search(removed, result.stdout, re.M), result.stdout
    assert settings.read_bytes() == installed


@pytest.mark.parametrize("where", ["settings", "state"])
def test_a_file_that_is_not_json_is_named_and_nothing_is_written(
    where: str, home: Path, project: Path, program: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    broken = home / ".claude.json" if where == "state" else settings
    broken.write_text('{"model": "opus",\n')
    result = run("install", "--command", str(program))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert f"{broken} is not valid JSON" in result.stderr and "line 2" in result.stderr
    assert broken.read_text() == '{"model": "opus",\n'
    assert sorted(p.name for p in home.rglob("*")) == sorted(
        {".claude", broken.name} | ({"settings.json"} if where == "settings" else set())
    )
    uninstall = run("uninstall")
    assert uninstall.exit_code == 1 and "is not valid JSON" in uninstall.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scope", "everywhere"], "'everywhere' is not one of user, project, local"),
        (["--command", "/nowhere/everbot-memory"], "is not an executable file"),
        (["--command", "python"], "does not run everbot-memory"),
        (["--project", "/nowhere/at/all"], "does not exist"),
        (["--project-memory", "--file", "m.md"], "do not go together"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(
    args: list[str], message: str, home: Path, project: Path
) -> None:
    result = run("install", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert not (home / ".claude").exists()


# -- uninstall


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_install_then_uninstall_leaves_every_file_byte_for_byte_as_it_was(
    scope: str, home: Path, project: Path, program: Path
) -> None:
    settings = settings_of(scope, home, project)
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(THEIRS)
    (home / ".claude.json").write_text(STATE)
    (project / ".mcp.json").write_text(
        '{\n  "mcpServers": {\n    "other": {"command": "x"}\n  }\n}'
    )
    before = {p: p.read_bytes() for p in (settings, home / ".claude.json", project / ".mcp.json")}
    install(program, "--scope", scope)
    assert settings.read_bytes() != before[settings]
    result = run("uninstall", "--scope", scope)
    assert result.exit_code == 0, result.output
    assert "removed" in result.stdout
    assert {p: p.read_bytes() for p in before} == before


def test_a_settings_file_with_crlf_line_ends_comes_back_byte_for_byte(
    home: Path, project: Path, program: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_bytes(THEIRS.replace("\n", "\r\n").encode("utf-8"))
    before = settings.read_bytes()
    install(program)
    assert run("uninstall").exit_code == 0
    assert settings.read_bytes() == before


def test_uninstall_keeps_what_changed_since_and_restores_the_files_own_style(
    home: Path, project: Path, program: Path
) -> None:
    # Claude Code rewrites its state file all the time: the backup no longer matches, yet
    # only our server goes and the file keeps Claude Code's formatting.
    (home / ".claude.json").write_text(STATE)
    install(program)
    state = json.loads((home / ".claude.json").read_text())
    state["numStartups"] = 8
    (home / ".claude.json").write_text(json.dumps(state, indent=2))
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["model"] = "sonnet"
    settings.write_text(json.dumps(data, indent=2) + "\n")
    assert run("uninstall").exit_code == 0
    assert (home / ".claude.json").read_text() == STATE.replace(
        '"numStartups": 7', '"numStartups": 8'
    )
    assert settings.read_text() == '{\n  "model": "sonnet"\n}\n'


def test_uninstall_removes_the_files_install_made(home: Path, project: Path, program: Path) -> None:
    install(program, "--scope", "project")
    result = run("uninstall", "--scope", "project")
    assert result.exit_code == 0
    assert "and the file" in result.stdout
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".mcp.json").exists()
    install(program, "--scope", "local")
    (home / ".claude.json").write_text(STATE)  # as if Claude Code had rewritten it meanwhile
    install(program, "--scope", "local")
    assert run("uninstall", "--scope", "local").exit_code == 0
    assert not (project / ".claude" / "settings.local.json").exists()
    assert (home / ".claude.json").read_text() == STATE


def test_uninstall_when_nothing_is_installed(home: Path, project: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    for scope in ("user", "project", "local"):
        result = run("uninstall", "--scope", scope)
        assert result.exit_code == 0, result.output
        assert "not installed" in result.stdout and "nothing to remove" in result.stdout
    assert sorted(p.name for p in home.rglob("*")) == [".claude", "settings.json"]
    assert settings.read_text() == THEIRS and list(project.iterdir()) == []


def test_install_and_uninstall_speak_json(home: Path, project: Path, program: Path) -> None:
    data = json.loads(install(program, "--json").stdout)
    assert data["action"] == "install" and data["changed"] and data["command"] == str(program)
    assert [f["what"] for f in data["files"]] == ["hooks", "MCP server everbot-memory"]
    assert data["files"][0]["change"] == "added" and "+++" in data["files"][0]["diff"]
    again = json.loads(install(program, "--json").stdout)
    assert not again["changed"] and again["files"] == []
    gone = json.loads(run("uninstall", "--json").stdout)
    assert gone["action"] == "uninstall" and {f["change"] for f in gone["files"]} == {"removed"}


# -- doctor


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "checked.md"
    Memory(path).init()
    return path


def doctor(memory: Path, *args: str) -> Any:
    return run("doctor", "--file", str(memory), *args)


def record_hook(**fields: Any) -> None:
    user = user_memory_path()
    Memory(user).init()
    record = {"event": "SessionStart", "at": "2026-03-01T09:00:00Z", "seconds": 0.041}
    SideFiles.of(user).last_hook.write_text(json.dumps({**record, "ok": True, **fields}))


def test_doctor_when_nothing_is_installed(home: Path, project: Path, memory: Path) -> None:
    result = doctor(memory)
    assert result.exit_code == 0, result.output
    assert "Claude Code: not installed (everbot-memory install)" in result.stdout
    data = json.loads(doctor(memory, "--json").stdout)
    assert data["claude_code"]["installed"] is False


def test_doctor_checks_an_installation_that_works(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program)
    result = doctor(memory)
    assert result.exit_code == 0, result.output
    lines = result.stdout
    assert f"hooks in {home / '.claude' / 'settings.json'} (user): " + ", ".join(EVENTS) in lines
    assert f"hook command: {program} hook claude-code" in lines
    assert f"MCP server in {home / '.claude.json'} (user)" in lines
    assert f"memory: {user_memory_path()}" in lines
    assert "queue: 0 due, 0 waiting to retry, 0 failed" in lines
    assert "Claude Code: no hook has run yet" in lines
    assert "Claude Code: problem" not in lines


def test_doctor_reads_the_last_hook_run(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program)
    record_hook()
    result = doctor(memory)
    assert result.exit_code == 0, result.output
    assert "last hook: SessionStart at 2026-03-01T09:00:00Z, 0.04 s" in result.stdout
    data = json.loads(doctor(memory, "--json").stdout)["claude_code"]
    assert data["last_hook"] == {
        "event": "SessionStart",
        "at": "2026-03-01T09:00:00Z",
        "seconds": 0.041,
        "ok": True,
        "error": None,
    }
    record_hook(ok=False, error="the memory file is not UTF-8 text")
    failed = doctor(memory)
    assert failed.exit_code == 1
    assert "failed: the memory file is not UTF-8 text" in failed.stdout


def test_doctor_says_when_the_hook_command_is_missing(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program, "--scope", "project")
    program.unlink()
    result = doctor(memory)
    assert result.exit_code == 1
    problem = f"problem: the hooks cannot run '{program} hook claude-code': {program} does not"
    assert problem in result.stdout and "`everbot-memory install` again" in result.stdout


def test_doctor_says_which_hooks_are_missing(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program)
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["UserPromptSubmit"]
    settings.write_text(json.dumps(data))
    result = doctor(memory)
    assert result.exit_code == 1
    assert "lacks the UserPromptSubmit hook(s)" in result.stdout


def test_doctor_lists_failed_jobs_of_the_hooks_memory(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program)
    Memory(user_memory_path()).init()
    queue = JobQueue(user_memory_path())
    queue.fail(queue.add(Job(session_id="s1", transcript_path="t.jsonl", event="SessionEnd")))
    result = doctor(memory)
    assert result.exit_code == 1
    assert "1 failed" in result.stdout and "process-pending --retry-failed" in result.stdout


def test_doctor_names_a_damaged_job_file_without_offering_a_retry(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program)
    Memory(user_memory_path()).init()
    queue = JobQueue(user_memory_path())
    queue.failed_folder.mkdir(parents=True)
    (queue.failed_folder / "abc.json").write_text('{"session_id": "abc", "transcript')
    result = doctor(memory)
    assert result.exit_code == 1
    assert "the job file cannot be read" in result.stdout
    assert "process-pending --retry-failed" not in result.stdout


def test_doctor_says_when_the_plugin_runs_the_hooks_too(
    home: Path, project: Path, program: Path, memory: Path
) -> None:
    install(program)
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["enabledPlugins"] = {"everbot-memory@everbot-memory": True}
    settings.write_text(json.dumps(data))
    result = doctor(memory)
    assert result.exit_code == 1 and "runs them twice" in result.stdout


def test_install_warns_when_the_plugin_is_enabled_too(
    home: Path, project: Path, program: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": {"everbot-memory@everbot-memory": True}}))
    result = install(program)
    assert "plugin is enabled" in result.output and "run twice" in result.output


def test_this_machines_files_stay_out_of_the_projects_git_status(
    home: Path, project: Path, program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(THEIRS)
    (project / ".mcp.json").write_text('{"mcpServers": {}}\n')
    install(program, "--scope", "project")  # backs up the two files it changes
    install(program, "--scope", "local")  # writes this machine's settings.local.json
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".bak" not in status and "settings.local.json" not in status
    assert ".claude/settings.json" in status and ".mcp.json" in status  # the shared ones show
    assert not (project / ".gitignore").exists()  # the clone's own exclude list, not this
