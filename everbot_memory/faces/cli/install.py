"""Commands that set up Claude Code: install and uninstall (the hooks and the MCP server)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...errors import ConfigError
from ...facade.install import (
    SCOPES,
    SERVER_NAME,
    FileChange,
    Plan,
    Scope,
    apply,
    parse_command,
    plan_install,
    plan_uninstall,
)
from .app import JsonOption, QuietOption, app, choice, print_json, reporting, say

if TYPE_CHECKING:
    from ...facade.reports import Installation

__all__ = ["install", "installation_lines", "uninstall"]

ScopeOption = Annotated[
    str,
    choice(
        SCOPES,
        "--scope",
        help="Which Claude Code settings: user (~/.claude/settings.json, or "
        "$CLAUDE_CONFIG_DIR's; every project), project (<project>/.claude/settings.json, "
        "shared with the project) or local (<project>/.claude/settings.local.json, yours).",
    ),
]
ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        metavar="DIR",
        exists=True,
        file_okay=False,
        help="The project, for the project and local scopes and --project-memory (default: "
        "$CLAUDE_PROJECT_DIR, else the current folder).",
        show_default=False,
    ),
]


def _checked_command(value: str | None) -> str | None:
    """A --command that runs everbot-memory, or a usage error saying why not."""
    if value is not None:
        try:
            parse_command(value)
        except ConfigError as exc:
            raise typer.BadParameter(str(exc).removeprefix("--command").lstrip(" :")) from None
    return value


DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Print the change as a diff and write nothing.")
]


def _report(plan: Plan, dry_run: bool, as_json: bool, quiet: bool) -> None:
    """Print what a plan changes (or would), file by file."""
    if as_json:
        data: dict[str, Any] = {
            "action": plan.action,
            "scope": plan.scope,
            "dry_run": dry_run,
            "changed": plan.changed,
            "files": [
                {
                    "path": str(c.path),
                    "what": c.what,
                    "change": c.change,
                    "file_removed": c.after is None,
                    "backup": None if c.backup is None else str(c.backup),
                    "diff": c.diff(),
                }
                for c in plan.changes
                if c.changed
            ],
            "warnings": plan.warnings,
        }
        if plan.action == "install":
            data["command"] = plan.command
            data["project_memory"] = (
                None if plan.project_memory is None else str(plan.project_memory)
            )
        print_json(data)
        return
    for change in plan.changes:
        if not change.changed:
            continue
        if dry_run:
            typer.echo(change.diff(), nl=False)
            continue
        backup = f"; the old one is in {change.backup}" if change.backup else ""
        say(quiet, f"{change.path}: {change.what} {_verb(change)}{backup}")
    if plan.project_memory is not None:
        would = "would create" if dry_run else "created"
        say(quiet, f"{would} the project memory {plan.project_memory}")
    paths = " and ".join(dict.fromkeys(str(c.path) for c in plan.changes))
    if dry_run and plan.changed:
        say(quiet, "dry run: nothing written")
    elif not any(c.changed for c in plan.changes):
        if plan.action == "install":
            say(quiet, f"already installed in {paths}; nothing changed there")
        else:
            say(quiet, f"not installed in {paths}; nothing to remove")
    elif plan.action == "install":
        say(quiet, f"the hooks and the MCP server run {plan.command}")
        if plan.scope == "project":
            say(quiet, f"Claude Code asks once before it starts the project's {SERVER_NAME} server")
        say(quiet, "restart Claude Code to load them")


def _verb(change: FileChange) -> str:
    if change.after is None:
        return f"{change.change}, and the file (it held nothing else)"
    return change.change + (" (new file)" if change.before is None else "")


def _warn(plan: Plan) -> None:
    for warning in plan.warnings:
        typer.echo(f"everbot-memory: warning: {warning}", err=True)


@app.command()
def install(
    scope: ScopeOption = "user",
    project: ProjectOption = None,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            metavar="COMMAND",
            callback=_checked_command,
            help="What the hooks and the MCP server run: a path to everbot-memory, or a "
            "command line ending in it (default: this installation's everbot-memory, by its "
            "full path).",
        ),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            "-f",
            help="Pin the hooks and the MCP server to this one memory file (default: the "
            "user's memory, and the project's MEMORY.md where there is one).",
            show_default=False,
        ),
    ] = None,
    project_memory: Annotated[
        bool,
        typer.Option(
            "--project-memory",
            help="Also create the project's MEMORY.md: a memory of its own beside the user's.",
        ),
    ] = False,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Install the Claude Code hooks (SessionStart, UserPromptSubmit, PreCompact, SessionEnd)
    and the MCP server; other settings are kept, and a changed file is first copied to .bak."""
    if project_memory and file is not None:
        raise typer.BadParameter("--project-memory and --file do not go together")
    with reporting():
        plan = plan_install(_scope(scope), project, command, file, project_memory)
        _warn(plan)
        if not dry_run:
            apply(plan)
    _report(plan, dry_run, as_json, quiet)


@app.command()
def uninstall(
    scope: ScopeOption = "user",
    project: ProjectOption = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Remove exactly what install added to a scope: its hooks and its MCP server, whatever
    --command or --file they were given (memories are kept)."""
    with reporting():
        plan = plan_uninstall(_scope(scope), project)
        if not dry_run:
            apply(plan)
    _report(plan, dry_run, as_json, quiet)


def _scope(value: str) -> Scope:
    for scope in SCOPES:
        if scope == value:
            return scope
    raise typer.BadParameter(f"{value!r} is not one of {', '.join(SCOPES)}")


def installation_lines(report: Installation) -> list[str]:
    """What ``doctor`` prints of the Claude Code installation, one line each."""
    if not report.installed:
        lines = ["Claude Code: not installed (everbot-memory install)"]
        lines += [f"Claude Code: note: {note}" for note in report.notes]
        return lines + [f"Claude Code: problem: {problem}" for problem in report.problems]
    lines = []
    if report.plugin is not None:
        lines.append(f"Claude Code: the everbot-memory plugin is enabled in {report.plugin}")
    for hooks in report.hooks:
        lines.append(
            f"Claude Code: hooks in {hooks.path} ({hooks.scope}): {', '.join(hooks.events)}"
        )
    commands = dict.fromkeys(c for hooks in report.hooks for c in hooks.commands)
    lines += [f"Claude Code: hook command: {command}" for command in commands]
    lines += [f"Claude Code: MCP server in {s.path} ({s.scope})" for s in report.servers]
    lines.append(f"Claude Code: memory: {report.memory}")
    lines.append(
        f"Claude Code: queue: {report.queued} due, {report.waiting} waiting to retry, "
        f"{report.failed} failed"
    )
    last = report.last_hook
    if last is None:
        lines.append("Claude Code: no hook has run yet")
    else:
        outcome = "" if last.ok else f", failed: {last.error or 'no reason recorded'}"
        lines.append(
            f"Claude Code: last hook: {last.event} at {last.at}, {last.seconds:.2f} s{outcome}"
        )
    lines += [f"Claude Code: note: {note}" for note in report.notes]
    lines += [f"Claude Code: problem: {problem}" for problem in report.problems]
    return lines
