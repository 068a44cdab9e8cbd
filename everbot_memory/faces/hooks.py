"""Claude Code hooks: memories at SessionStart and on each prompt, extraction queued at
SessionEnd and PreCompact.

Claude Code sends one JSON object on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, and ``source`` / ``prompt`` / ``reason`` / ``trigger``). The memories are
the user's own, followed into every project, and the project's when it has one
(:mod:`everbot_memory.storage.locations`); ``--file`` or ``$EVERBOT_MEMORY_FILE`` names one
memory instead. What each event does is in :mod:`everbot_memory.facade.hooks`.

A hook must never break the agent: every problem is logged to ``.MEMORY.md.everbot/log``,
reported in one line on stderr, and the hook still exits 0. A hook run inside a program an
extractor started (``claude -p``, marked by :data:`~everbot_memory.extract.child.CHILD_ENV`)
does nothing: it would inject memories into the extraction and queue the extraction's own
conversation, again and again.

This module is the hooks' fast path (``everbot-memory hook claude-code`` comes here without
loading the command-line app): it imports nothing heavy.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..facade import hooks as service
from ..facade.hooks import MAX_CONTEXT_CHARS, start_worker
from ..facade.locations import CHILD_ENV, Place, memory_places, project_dir

TYPE_CHECKING = False  # the hooks' fast path loads no typing
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_CONTEXT_CHARS",
    "HookResult",
    "handle_claude_code",
    "in_extractor_child",
    "memory_path_for",
    "start_worker",
]


class HookResult:
    """What the hook prints on stdout (may be empty) and on stderr (one line, or empty)."""

    __slots__ = ("stderr", "stdout")

    def __init__(self, stdout: str = "", stderr: str = "") -> None:
        self.stdout, self.stderr = stdout, stderr

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HookResult):
            return NotImplemented
        return (self.stdout, self.stderr) == (other.stdout, other.stderr)

    def __repr__(self) -> str:
        return f"HookResult(stdout={self.stdout!r}, stderr={self.stderr!r})"


def memory_path_for(data: dict[str, Any], file: str | os.PathLike[str] | None) -> Path:
    """The memory a hook writes to: ``--file``, else ``$EVERBOT_MEMORY_FILE``, else the
    user's own memory."""
    cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
    return memory_places(cwd, file)[0].path


def in_extractor_child() -> bool:
    """True inside a program an extractor runs: every hook must then do nothing."""
    return bool(os.environ.get(CHILD_ENV))


def handle_claude_code(stdin: str, file: str | os.PathLike[str] | None = None) -> HookResult:
    """Handle one hook call; never raises."""
    if in_extractor_child():
        return HookResult()  # first, before anything is read: see the module's docstring
    started = time.perf_counter()
    data: dict[str, Any] = {}
    places: list[Place] = []
    event = "unknown event"
    try:
        parsed = json.loads(stdin)
        if not isinstance(parsed, dict):
            raise ValueError("the hook input is not a JSON object")
        data = parsed
        event = str(data.get("hook_event_name") or event)
        cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
        places = memory_places(cwd, file)
        result = _dispatch(data, places)
    except Exception as exc:  # a hook must never break the agent, whatever went wrong
        places = places or memory_places(None, file)
        message = f"hook {event} failed: {type(exc).__name__}: {exc}"
        error = _report(places, message)
        service.record_run(places, event, time.perf_counter() - started, message)
        return HookResult(stderr=error)
    service.record_run(places, event, time.perf_counter() - started)
    return result


def _report(places: list[Place], message: str) -> str:
    """Log ``message`` beside the first memory; the one line for stderr."""
    where = service.log_message(places, message)
    return f"everbot-memory: {message} (see {where})"


def _context(event: str, text: str) -> HookResult:
    if not text:
        return HookResult()
    output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return HookResult(stdout=json.dumps(output, ensure_ascii=False))


def _dispatch(data: dict[str, Any], places: list[Place]) -> HookResult:
    event = data.get("hook_event_name")
    session_id = data.get("session_id")
    session_id = session_id if isinstance(session_id, str) else ""
    cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
    if event == "SessionStart":
        groups = service.group_filter(project_dir(cwd))
        block = service.session_start(places, session_id, groups=groups)
        if service.jobs_due(places):
            start_worker(places[0].path)  # jobs a killed worker left, or due to be tried again
        elif service.sweep_due(places):
            start_worker(places[0].path, "--sweep", str(project_dir(cwd)))
        return _context("SessionStart", block)
    if event == "UserPromptSubmit":
        prompt = data.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return HookResult()
        groups = service.group_filter(project_dir(cwd))
        block = service.prompt_recall(places, session_id, prompt, groups=groups)
        return _context("UserPromptSubmit", block)
    if event in ("SessionEnd", "PreCompact"):
        transcript = data.get("transcript_path")
        if not session_id or not isinstance(transcript, str):
            raise ValueError(f"{event} input lacks session_id or transcript_path")
        service.queue_session(places, session_id, transcript, event)
        start_worker(places[0].path, note=f"queued {event} of session {session_id}")
        return HookResult()
    return HookResult()  # other events: nothing to do
