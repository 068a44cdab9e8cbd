"""Claude Code on a scratch machine: a home, a project and a data folder of their own, the
environment every process gets, and the hooks run the way Claude Code runs them.

- :class:`Machine`: the folders and the explicit environment (none of the developer's keys,
  settings or memories; Claude Code kept off the network);
- :func:`run_claude`: one headless ``claude -p`` session against a local fake of the API;
- :func:`installed_hooks` and :class:`HookSession`: the commands ``everbot-memory install``
  wrote, run through the shell with Claude Code's input on stdin, its environment and its
  timeout;
- :func:`request_text`, :func:`blocks` and :func:`line_after`: what a request to the model
  carries, and the memory blocks in it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = [
    "CLAUDE",
    "EVENT_INPUT",
    "PROMPT_HEADING",
    "SESSION_START_HEADING",
    "HookRun",
    "HookSession",
    "Machine",
    "blocks",
    "everbot_memory",
    "installed_hooks",
    "line_after",
    "request_text",
    "run_claude",
    "wait_until",
]

#: Where ``.ci/run`` installs Claude Code (it also puts this folder on PATH).
CI_BIN = Path(__file__).resolve().parent.parent / ".ci" / "node" / "node_modules" / ".bin"
_SEARCHED = (
    os.environ.get("PATH", ""),
    str(CI_BIN),
    os.environ.get("EVERBOT_TEST_CLAUDE_PATH", ""),
)
#: The ``claude`` program, or None where it is not installed.
CLAUDE = shutil.which("claude", path=os.pathsep.join(p for p in _SEARCHED if p))

#: Every process's timeout, in seconds: a hang fails the test instead of stalling it.
TIMEOUT = 120.0

#: The headings of the two blocks the hooks add (see everbot_memory/core/block.py).
SESSION_START_HEADING = "# Memories about the user"
PROMPT_HEADING = "# Memories that may bear on this prompt"

#: The fields Claude Code 2.1 sends each hook besides session_id, transcript_path, cwd and
#: hook_event_name (recorded from a real run; PreCompact's as its documentation gives them).
EVENT_INPUT: dict[str, dict[str, str]] = {
    "SessionStart": {"source": "startup"},
    "UserPromptSubmit": {"permission_mode": "default", "prompt": ""},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
    "SessionEnd": {"reason": "other"},
}


def everbot_memory() -> list[str]:
    """This installation's command: the console script beside the interpreter, else ``-m``."""
    script = Path(sys.executable).with_name("everbot-memory")
    return [str(script)] if script.exists() else [sys.executable, "-m", "everbot_memory"]


@dataclass
class Machine:
    """A scratch machine under ``root``: ``home``, ``project``, the data and config folders."""

    root: Path

    def __post_init__(self) -> None:
        for folder in (self.home, self.project, self.data, self.config, self.cache):
            folder.mkdir(parents=True, exist_ok=True)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def config(self) -> Path:
        return self.root / "config"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def user_memory(self) -> Path:
        """The user's own memory, where the hooks keep it by default."""
        return self.data / "everbot-memory" / "MEMORY.md"

    @property
    def log(self) -> Path:
        return self.user_memory.parent / ".MEMORY.md.everbot" / "log"

    def env(self, **extra: str) -> dict[str, str]:
        """The whole environment of a process on this machine, built from nothing: no key,
        setting or memory of the developer's leaks in. The worker a hook starts extracts with
        the offline rules, whatever key Claude Code itself is given."""
        folders = [str(CI_BIN if CLAUDE is None else Path(CLAUDE).parent)]
        # Not this installation's folder: the hooks must run without it on PATH.
        folders += ["/usr/local/bin", "/usr/bin", "/bin"]
        env = {
            "PATH": os.pathsep.join(folders),
            "HOME": str(self.home),
            "XDG_DATA_HOME": str(self.data),
            "XDG_CONFIG_HOME": str(self.config),
            "XDG_CACHE_HOME": str(self.cache),
            "LANG": "C.UTF-8",
            # Claude Code: no update check, telemetry, error reports or other traffic.
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # Anything else that would go out meets a closed port instead (discard, 9); the
            # fake API on 127.0.0.1 is reached directly.
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "HTTP_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
            "EVERBOT_MEMORY_EXTRACTOR": "rules",
        }
        return {**env, **extra}

    def run(self, *args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        """``everbot-memory ARGS`` on this machine, in the project."""
        return subprocess.run(
            [*everbot_memory(), *args],
            cwd=self.project,
            env=self.env(**extra_env),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )


def run_claude(machine: Machine, prompt: str, api_url: str) -> subprocess.CompletedProcess[str]:
    """One headless session of Claude Code in the project, its model at ``api_url``."""
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, "-p", prompt],
        cwd=machine.project,
        env=machine.env(ANTHROPIC_BASE_URL=api_url, ANTHROPIC_API_KEY="test-key"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def installed_hooks(settings: Path) -> dict[str, tuple[str, float]]:
    """Each event's command and timeout (seconds) in a Claude Code settings file."""
    hooks = json.loads(settings.read_text())["hooks"]
    found = {}
    for event, groups in hooks.items():
        for group in groups:
            for hook in group["hooks"]:
                found[event] = (hook["command"], float(hook.get("timeout", 60)))
    return found


@dataclass
class HookRun:
    """What one hook run gave: exit status, stdout, stderr, and how long it took."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> dict[str, Any]:
        """stdout as the JSON object Claude Code reads (the whole of it, or it fails)."""
        value = json.loads(self.stdout)
        assert isinstance(value, dict), self.stdout
        return value

    @property
    def context(self) -> str:
        """The ``additionalContext`` the hook gave."""
        text = self.output["hookSpecificOutput"]["additionalContext"]
        assert isinstance(text, str)
        return text


class HookSession:
    """One session's hook calls on ``machine``: each event's installed command (``hooks``, as
    :func:`installed_hooks` reads them) run as Claude Code runs it, through the shell, in the
    project, the event as one JSON object on stdin, Claude Code's variables added to the
    environment and the hook's timeout enforced. The transcript is where Claude Code keeps it;
    :meth:`say` adds a user message to it."""

    def __init__(self, machine: Machine, hooks: dict[str, tuple[str, float]]) -> None:
        self.machine, self.hooks = machine, hooks
        self.session_id = str(uuid.uuid4())
        folder = re.sub(r"[^A-Za-z0-9]", "-", str(machine.project))
        self.transcript = (
            machine.home / ".claude" / "projects" / folder / f"{self.session_id}.jsonl"
        )
        self._said = 0

    def run(self, event: str, **fields: str) -> HookRun:
        """Run the hook of ``event``; ``fields`` add to or replace the event's input."""
        command, timeout = self.hooks[event]
        data = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.machine.project),
            "hook_event_name": event,
            **EVENT_INPUT.get(event, {}),
            **fields,
        }
        env = self.machine.env(
            CLAUDECODE="1",
            CLAUDE_CODE_ENTRYPOINT="sdk-cli",
            CLAUDE_PROJECT_DIR=str(self.machine.project),
            CLAUDE_CODE_SESSION_ID=self.session_id,
        )
        started = time.monotonic()
        result = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(data),
            cwd=self.machine.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        elapsed = time.monotonic() - started
        return HookRun(result.returncode, result.stdout, result.stderr, elapsed)

    def prompt(self, text: str) -> HookRun:
        """The UserPromptSubmit hook for ``text``."""
        return self.run("UserPromptSubmit", prompt=text)

    def say(self, text: str) -> None:
        """Append the user's message ``text`` to the transcript, as Claude Code writes it."""
        self._said += 1
        record = {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": str(uuid.UUID(int=self._said)),
            "timestamp": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
            "userType": "external",
            "cwd": str(self.machine.project),
            "sessionId": self.session_id,
            "version": "2.1.197",
        }
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def request_text(body: dict[str, Any]) -> str:
    """Every text a request to the model carries (system prompt, messages, tools), joined."""
    return "\n".join(_strings(body))


def blocks(text: str, heading: str) -> list[str]:
    """The memory blocks under ``heading`` in ``text``, each up to its closing tag."""
    return re.findall(re.escape(heading) + r".*?</memories>", text, flags=re.DOTALL)


def line_after(text: str, block: str) -> str:
    """The line that follows ``block`` in ``text`` (a session-start block's last line)."""
    rest = text[text.index(block) + len(block) :]
    return rest.removeprefix("\n").split("\n", 1)[0]


def wait_until(check: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    """Poll ``check`` until it holds; fail saying ``what`` was awaited after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.1)
