"""Claude Code hooks: inject memories at SessionStart, queue extraction at SessionEnd/PreCompact.

Claude Code sends one JSON object on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, and ``source`` / ``reason`` / ``trigger``). A hook must never break the
agent: every problem is logged to ``.MEMORY.md.everbot/log``, reported in one line on stderr,
and the hook still exits 0. SessionEnd hooks are killed after 1.5 s, so they only queue a job (see
:mod:`everbot_memory.facade.jobs`) and start a detached worker.

A hook run inside a program an extractor started (``claude -p``, marked by
:data:`~everbot_memory.facade.choice.CHILD_ENV`) does nothing: it would inject memories into
the extraction and queue the extraction's own conversation, again and again.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..facade.choice import CHILD_ENV
from ..facade.memory import Memory
from .worker import start_worker

__all__ = [
    "MAX_CONTEXT_CHARS",
    "HookResult",
    "handle_claude_code",
    "in_extractor_child",
    "memory_path_for",
]

#: Claude Code caps what SessionStart adds to the context at 10,000 characters.
MAX_CONTEXT_CHARS = 9_000


@dataclass
class HookResult:
    """What the hook prints on stdout (may be empty) and on stderr (one line, or empty)."""

    stdout: str = ""
    stderr: str = ""


def memory_path_for(data: dict[str, Any], file: str | os.PathLike[str] | None) -> Path:
    """``--file``, else ``$EVERBOT_MEMORY_FILE``, else ``<cwd>/MEMORY.md`` from the hook input."""
    if file:
        return Path(file)
    if os.environ.get("EVERBOT_MEMORY_FILE"):
        return Path(os.environ["EVERBOT_MEMORY_FILE"])
    cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
    return Path(cwd or os.getcwd()) / "MEMORY.md"


def in_extractor_child() -> bool:
    """True inside a program an extractor runs: every hook must then do nothing."""
    return bool(os.environ.get(CHILD_ENV))


def handle_claude_code(stdin: str, file: str | os.PathLike[str] | None = None) -> HookResult:
    """Handle one hook call; never raises."""
    if in_extractor_child():
        return HookResult()  # first, before anything is read: see the module's docstring
    data: dict[str, Any] = {}
    try:
        parsed = json.loads(stdin)
        if not isinstance(parsed, dict):
            raise ValueError("the hook input is not a JSON object")
        data = parsed
        return _dispatch(data, memory_path_for(data, file))
    except Exception as exc:  # a hook must never break the agent, whatever went wrong
        # Logged beside the memory file and reported in one line; the hook still succeeds.
        memory = Memory(memory_path_for(data, file))
        event = data.get("hook_event_name", "unknown event")
        message = f"hook {event} failed: {type(exc).__name__}: {exc}"
        memory.jobs.log(message)
        return HookResult(stderr=f"everbot-memory: {message} (see {memory.jobs.log_path})")


def _dispatch(data: dict[str, Any], path: Path) -> HookResult:
    event = data.get("hook_event_name")
    memory = Memory(path)
    if event == "SessionStart":
        block = memory.prompt_block(max_chars=MAX_CONTEXT_CHARS)
        if memory.jobs.due():
            start_worker(path)  # jobs left by a worker that died, or due to be tried again
        if not block:
            return HookResult()
        output = {
            "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": block}
        }
        return HookResult(stdout=json.dumps(output, ensure_ascii=False))
    if event in ("SessionEnd", "PreCompact"):
        session_id, transcript = data.get("session_id"), data.get("transcript_path")
        if not isinstance(session_id, str) or not isinstance(transcript, str):
            raise ValueError(f"{event} input lacks session_id or transcript_path")
        memory.jobs.queue(session_id, transcript, event)
        start_worker(path)
        memory.jobs.log(f"queued {event} of session {session_id}")
        return HookResult()
    return HookResult()  # other events: nothing to do
