"""The check ``doctor`` prints of a Claude Code installation: which settings hold the hooks,
whether their command runs, whether the memory's folder is writable, the queue, the plugin, and
the last hook run. It reads the same files :mod:`.install` writes, with its readers."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..storage.locations import project_dir, user_memory_path
from ..storage.paths import SideFiles
from .install import (
    PROGRAM,
    SCOPES,
    SERVER_NAME,
    _is_our_server,
    _our_commands,
    _places,
    _plugin_enabled,
    _read,
    _server_keys,
    _words,
    mcp_file,
    plugin_hooks,
)

if TYPE_CHECKING:
    from .reports import Installation, LastHook

__all__ = ["STUCK_SECONDS", "check_installation"]

#: A job due this long and still queued means no worker is getting to it.
STUCK_SECONDS = 600.0


def _runnable(command: str) -> str | None:
    """Why a hook command cannot run (None: it can, as far as can be seen from here)."""
    words = _words(command) or []
    if not words:
        return f"cannot read the command {command!r}"
    program = words[0]
    if os.sep in program or "/" in program:
        if not Path(program).is_file():
            return f"{program} does not exist"
        if not os.access(program, os.X_OK):
            return f"{program} is not executable"
    elif shutil.which(program) is None:
        return f"{program} is not on the PATH (Claude Code's may differ from this shell's)"
    return None


def _pinned(command: str) -> Path | None:
    """The memory file a hook command pins with ``--file``."""
    words = _words(command) or []
    for flag in ("--file", "-f"):
        if flag in words[:-1]:
            return Path(words[words.index(flag) + 1])
    return None


def _writable(memory: Path) -> str | None:
    """Why the hooks cannot write ``memory`` (None: they can)."""
    if memory.exists() and not os.access(memory, os.W_OK):
        return f"the memory {memory} is not writable"
    folder = memory.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # made on the first write
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the memory's folder {folder} is not writable"
    return None


def _last_hook(memory: Path) -> tuple[LastHook | None, str | None]:
    """The last hook run recorded beside ``memory``, or why it cannot be read."""
    from .reports import LastHook

    if not SideFiles.of(memory).folder.is_dir():
        return None, None  # asked before the folder exists, so as not to make it
    path = SideFiles.of(memory).last_hook
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return (
            LastHook(
                event=str(data["event"]),
                at=str(data["at"]),
                seconds=float(data["seconds"]),
                ok=bool(data["ok"]),
                error=None if data.get("error") is None else str(data["error"]),
            ),
            None,
        )
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"cannot read {path}: {exc}"


def check_installation(project: Path | None = None) -> Installation:
    """The Claude Code installation as seen from ``project`` (default: the current one): which
    settings hold our hooks, whether their command runs, our MCP servers, the memory the
    hooks write, its queue and the last hook run. Problems go in the result; it never raises."""
    # Here, not at the top: the command line loads this module at every session start.
    from .reports import HookSettings, Installation, ServerPlace

    project = (project or project_dir()).absolute()
    wanted = list(plugin_hooks())
    report = Installation(hooks=[], servers=[], memory=user_memory_path())
    commands: list[str] = []
    plugin: Path | None = None  # the settings file enabling the plugin, the last one wins
    for scope, path in _places(project):
        try:
            _, settings = _read(path)
        except ConfigError as exc:
            report.problems.append(str(exc))
            continue
        enabled = _plugin_enabled(settings)
        if enabled is not None:
            plugin = path if enabled else None
        found = _our_commands(settings)
        if not found:
            continue
        events = [e for e in wanted if e in found] + [e for e in found if e not in wanted]
        missing = [e for e in wanted if e not in found]
        mine = sorted({c for cs in found.values() for c in cs})
        report.hooks.append(HookSettings(scope, path, events, missing, mine))
        commands += [c for c in mine if c not in commands]
        if missing:
            report.problems.append(
                f"{path} lacks the {', '.join(missing)} hook(s); "
                f"`{PROGRAM} install --scope {scope}` puts them back"
            )
    for scope in SCOPES:
        server_path = mcp_file(scope, project)
        try:
            _, data = _read(server_path)
        except ConfigError as exc:
            if str(exc) not in report.problems:
                report.problems.append(str(exc))
            continue
        node: Any = data
        for key in _server_keys(scope, project):
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and _is_our_server(node.get(SERVER_NAME)):
            report.servers.append(ServerPlace(scope, server_path))
    if plugin is not None:
        report.plugin = plugin
        if report.hooks:
            report.problems.append(
                f"the {PROGRAM} plugin is enabled (in {plugin}) and its hooks are installed "
                f"(in {report.hooks[0].path}) too, so each event runs them twice; keep one: "
                f"`{PROGRAM} uninstall --scope {report.hooks[0].scope}`, or disable the plugin"
            )
        # The plugin's hooks run its own command (plain everbot-memory, from the PATH).
        hooks = plugin_hooks()
        command = next(h["command"] for gs in hooks.values() for g in gs for h in g["hooks"])
        commands += [] if command in commands else [command]
    if not report.installed:
        # Nothing to repair in what is not there, but a settings file Claude Code cannot read
        # (the problems so far) is worth fixing all the same.
        return report

    for command in commands:
        why = _runnable(command)
        if why:
            report.problems.append(
                f"the hooks cannot run {command!r}: {why}; `{PROGRAM} install` again "
                "writes this installation's path (or give --command)"
            )
    pinned = [p for p in (_pinned(c) for c in commands) if p is not None]
    report.memory = pinned[0] if pinned else report.memory
    why = _writable(report.memory)
    if why:
        report.problems.append(why)
    _check_queue(report)
    report.last_hook, unreadable = _last_hook(report.memory)
    if unreadable:
        report.notes.append(unreadable)
    elif report.last_hook is not None and not report.last_hook.ok:
        report.problems.append(
            f"the last hook ({report.last_hook.event} at {report.last_hook.at}) failed: "
            f"{report.last_hook.error or 'no reason recorded'}"
        )
    if not report.servers and report.plugin is None:
        report.notes.append(f"no MCP server: `{PROGRAM} install` adds one")
    return report


def _check_queue(report: Installation) -> None:
    """The memory's queue: jobs due, waiting to retry, failed, and jobs no worker took."""
    if not SideFiles.of(report.memory).folder.is_dir():
        return  # no hook has queued anything yet (and looking must not make the folder)
    from .memory import Memory

    jobs = Memory(report.memory).jobs
    now = time.time()
    pending = jobs.pending()
    due = [j for j in pending if j.not_before <= now]
    report.queued = len(due)
    report.waiting = len(pending) - len(due)
    failed = jobs.failed()
    report.failed = len(failed)
    flag = f"--file {shlex.quote(str(report.memory))}"
    retried = [job for job in failed if not job.damaged]
    if retried:
        report.problems.append(
            f"{len(retried)} failed job(s) in the queue of {report.memory}; "
            f"`{PROGRAM} process-pending --retry-failed {flag}` queues them again"
        )
    for job in failed:
        if job.damaged:
            report.problems.append(job.error)
    stuck = [j for j in due if now - max(j.queued_at, j.not_before) > STUCK_SECONDS]
    if stuck:
        report.problems.append(
            f"{len(stuck)} job(s) queued more than {STUCK_SECONDS / 60:.0f} min ago and not "
            f"processed (is the worker starting? see {jobs.log_path}); "
            f"`{PROGRAM} process-pending {flag}` processes them"
        )
