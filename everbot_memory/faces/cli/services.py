"""Commands other programs run: the queue worker, the MCP server, the agent hooks."""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ...errors import EverbotMemoryError
from ...facade.memory import Memory
from .app import (
    DEFAULT_FILE,
    BaseUrlOption,
    ExtractorOption,
    FileOption,
    JsonOption,
    ModelOption,
    QuietOption,
    TimeoutOption,
    app,
    extracting_memory,
    lock_timeout,
    needs_extra,
    print_json,
    reporting,
    say,
    user_chosen,
    working,
)

__all__ = ["hook_app", "hook_claude_code", "jobs", "mcp", "process_pending"]


def _is_user_memory(path: Path) -> bool:
    from ...facade.locations import user_memory_path

    return Path(os.path.abspath(path)) == Path(os.path.abspath(user_memory_path()))


@app.command("process-pending")
def process_pending(
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="First queue again the jobs set aside as failed, and those waiting to retry.",
        ),
    ] = False,
    sweep: Annotated[
        Path | None,
        typer.Option(
            "--sweep",
            metavar="PROJECT",
            help="First queue the project's Claude Code sessions left idle (see sweep) from "
            "the last 7 days, as each SessionStart does now and then.",
            show_default=False,
        ),
    ] = None,
    extractor: ExtractorOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    timeout: TimeoutOption = None,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Extract the sessions queued by hooks (what a worker that died left, too)."""
    memory = extracting_memory(file, extractor, model, base_url, timeout)
    with reporting(), working("processing queued sessions", quiet):
        if sweep is not None:
            from ...facade.claude_code import SWEEP_MAX_AGE_SECONDS, idle_minutes, sweep_places

            if not sweep.expanduser().is_dir():  # as sweep says it: not "0 sessions queued"
                raise EverbotMemoryError(
                    f"no project folder at {sweep}; give --sweep the project's folder"
                )
            idle = idle_minutes(None, memory.path) * 60
            # With --user the queue is the user's own memory: the project's memory is fed
            # beside it, as the hooks and a plain sweep do.
            own = user_chosen() and _is_user_memory(memory.path)
            swept = sweep_places(memory, sweep.expanduser(), idle, SWEEP_MAX_AGE_SECONDS, own=own)
            say(quiet, f"{len(swept)} idle session(s) queued")
        requeued = memory.jobs.retry_failed() if retry_failed else 0
        if retry_failed:
            say(quiet, f"{requeued} failed or waiting job(s) queued again")
        report = memory.jobs.process()
        pending = len(memory.jobs.pending())
    if report is None:
        say(quiet, "another worker is processing the queue")
        return
    if as_json:
        print_json({**vars(report), "pending": pending})
    else:
        for message in report.messages:
            say(quiet, message)
        waiting = f" ({report.waiting} waiting to retry)" if report.waiting else ""
        say(quiet, f"{report.done} done, {report.failed} failed, {pending} pending{waiting}")
    if report.failed:
        raise typer.Exit(1)


@app.command()
def jobs(
    retry: Annotated[
        bool,
        typer.Option("--retry", help="Queue the failed and waiting jobs again, due now."),
    ] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """List the sessions queued by hooks: due, waiting to retry, or set aside as failed."""
    memory = Memory(file, lock_timeout=lock_timeout())
    with reporting():
        if retry:
            say(quiet, f"{memory.jobs.retry_failed()} failed or waiting job(s) queued again")
        now = time.time()
        rows = [
            ("waiting" if job.not_before > now else "due", job) for job in memory.jobs.pending()
        ]
        rows += [("failed", job) for job in memory.jobs.failed()]
    if as_json:
        print_json([{"state": state, **job.to_json()} for state, job in rows])
        return
    if not rows:
        say(quiet, "no queued sessions")
    for state, job in rows:
        when = ""
        if state == "waiting":
            when = " until " + datetime.fromtimestamp(job.not_before).isoformat(timespec="seconds")
        reason = f": {job.error}" if job.error else ""
        typer.echo(
            f"{state}{when}  session {job.session_id} ({job.event}), {job.attempts} tries{reason}"
        )


#: How to install the ``mcp`` extra, from a clone or from the repository's URL.


@app.command()
def mcp(
    file: FileOption = DEFAULT_FILE,
    user: Annotated[
        bool,
        typer.Option(
            "--user",
            help="Serve the memory the Claude Code hooks keep: $EVERBOT_MEMORY_FILE when set, "
            "else the user's own ($EVERBOT_MEMORY_USER_FILE, else "
            "~/.local/share/everbot-memory/MEMORY.md).",
        ),
    ] = False,
) -> None:
    """Run an MCP server on stdio: recall, get, list, remember, mark used, update, forget."""
    if user:
        from ...facade.locations import memory_places

        # As the hooks choose: $EVERBOT_MEMORY_FILE when set, else the user's own memory.
        file = memory_places()[0].path
        file.parent.mkdir(parents=True, exist_ok=True)
    try:
        from ..mcp import serve
    except ModuleNotFoundError as exc:
        raise needs_extra(exc, "the MCP server", "mcp") from None
    serve(file)


hook_app = typer.Typer(help="Hooks for agents (Claude Code): read the hook's JSON on stdin.")
app.add_typer(hook_app, name="hook")


@hook_app.command("claude-code")
def hook_claude_code(
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            "-f",
            envvar="EVERBOT_MEMORY_FILE",
            help="The one memory file to use (default: $EVERBOT_MEMORY_FILE, else the user's "
            "own memory and the project's MEMORY.md when it has one).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Handle a Claude Code hook: SessionStart, UserPromptSubmit, PreCompact or SessionEnd.
    Always exits 0."""
    from ..hooks import handle_claude_code, in_extractor_child

    if in_extractor_child():
        return  # run by an extractor's own program: nothing to inject, nothing to queue
    result = handle_claude_code(sys.stdin.read(), file)
    if result.stdout:
        typer.echo(result.stdout)
    if result.stderr:
        typer.echo(result.stderr, err=True)
