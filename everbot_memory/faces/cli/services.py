"""Commands other programs run: the queue worker, the MCP server, the agent hooks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ...facade.memory import Memory
from .app import (
    DEFAULT_FILE,
    FileOption,
    JsonOption,
    QuietOption,
    app,
    fail,
    lock_timeout,
    print_json,
    reporting,
    say,
    working,
)

__all__ = ["hook_app", "hook_claude_code", "mcp", "process_pending"]


@app.command("process-pending")
def process_pending(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Extract the sessions queued by hooks (what a worker that died left, too)."""
    memory = Memory(file, lock_timeout=lock_timeout())
    with reporting(), working("processing queued sessions", quiet):
        report = memory.jobs.process()
    if report is None:
        say(quiet, "another worker is processing the queue")
        return
    pending = len(memory.jobs.pending())
    if as_json:
        print_json({**vars(report), "pending": pending})
    else:
        for message in report.messages:
            say(quiet, message)
        say(quiet, f"{report.done} done, {report.failed} failed, {pending} pending")
    if report.failed:
        raise typer.Exit(1)


@app.command()
def mcp(file: FileOption = DEFAULT_FILE) -> None:
    """Run an MCP server on stdio: recall_memory, mark_used, remember, forget, list_memories."""
    try:
        from ..mcp import serve
    except ModuleNotFoundError as exc:
        raise fail(
            f"the MCP server needs the '{exc.name}' package: pip install 'everbot-memory[mcp]'"
        ) from None
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
            help="The memory file (default: $EVERBOT_MEMORY_FILE, else MEMORY.md in the "
            "session's cwd).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Handle a Claude Code hook: SessionStart, SessionEnd or PreCompact. Always exits 0."""
    from ..hooks import handle_claude_code

    result = handle_claude_code(sys.stdin.read(), file)
    if result.stdout:
        typer.echo(result.stdout)
    if result.stderr:
        typer.echo(result.stderr, err=True)
