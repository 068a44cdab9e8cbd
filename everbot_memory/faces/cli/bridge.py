"""Commands that bridge to Claude Code: sweep, export, import.

``sweep`` queues the sessions whose end was never seen, ``export`` writes the strongest
memories into Claude Code's own auto memory (or prints them), ``import`` remembers what a
CLAUDE.md or an auto-memory file says. Their default memory is the user's own, shared by
every project, as the hooks' is. The bridge itself (:mod:`everbot_memory.facade.claude_code`)
is loaded only when one of them runs: every other command starts without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...facade.memory import CATEGORIES, PROMPT_MIN_SCORE, PROMPT_TOP_K, Memory
from .app import (
    JsonOption,
    QuietOption,
    app,
    choice,
    entry_json,
    lock_timeout,
    memory_at,
    print_json,
    reporting,
    say,
    working,
)

__all__ = ["export", "import_", "sweep"]

BridgeFileOption = Annotated[
    Path | None,
    typer.Option(
        "--file",
        "-f",
        envvar="EVERBOT_MEMORY_FILE",
        help="The memory file (default: $EVERBOT_MEMORY_FILE, else your own memory, the one "
        "every project shares).",
        show_default=False,
    ),
]
ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        metavar="DIR",
        help="The project folder (default: $CLAUDE_PROJECT_DIR, else the current folder).",
        show_default=False,
    ),
]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Say what would change; write nothing.")
]


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        typer.echo(f"everbot-memory: warning: {warning}", err=True)


@app.command()
def sweep(
    project: ProjectOption = None,
    idle: Annotated[
        float | None,
        typer.Option(
            "--idle",
            metavar="MINUTES",
            min=0.0,
            help="Take sessions left untouched at least this long (default: "
            "$EVERBOT_MEMORY_IDLE_MINUTES, else 30).",
            show_default=False,
        ),
    ] = None,
    process: Annotated[
        bool, typer.Option("--process", help="Then extract the queued sessions right away.")
    ] = False,
    file: BridgeFileOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Queue this project's idle Claude Code sessions whose end was never seen (a closed
    terminal, a crash, a machine asleep) and whose new messages are not merged yet."""
    from ...facade import claude_code

    with reporting():
        folder = claude_code.project_folder(project)
        path = claude_code.default_memory_path(folder, file)
        minutes = claude_code.idle_minutes(idle, path)
        memory = Memory(path, lock_timeout=lock_timeout())
        also = claude_code.other_memories(folder, file)
        swept = claude_code.sweep(memory, folder, minutes * 60, memories=also)
        warnings = list(memory.warnings)
        report = None
        if process:
            with working("extracting swept sessions", quiet):
                report = memory.jobs.process()
    _warn(warnings)
    if as_json:
        print_json(
            {
                "memory": str(path),
                "queued": [
                    {
                        "session_id": s.session_id,
                        "transcript": str(s.transcript),
                        "messages": s.messages,
                        "idle_minutes": round(s.idle_seconds / 60, 1),
                    }
                    for s in swept
                ],
                "processed": vars(report) if report is not None else None,
            }
        )
    else:
        if not swept:
            say(quiet, "nothing to sweep")
        for s in swept:
            say(
                quiet,
                f"queued session {s.session_id} ({s.messages} new message(s), idle "
                f"{s.idle_seconds / 60:.0f} min): {s.transcript}",
            )
        if process and report is None:
            say(quiet, "another worker is processing the queue")
        elif report is not None:
            for message in report.messages:
                say(quiet, message)
            say(quiet, f"{report.done} done, {report.failed} failed")
    if report is not None and report.failed:
        raise typer.Exit(1)


@app.command()
def export(
    claude_auto_memory: Annotated[
        bool,
        typer.Option(
            "--claude-auto-memory",
            help="Write the digest into Claude Code's auto memory of the project (loaded "
            "even where hooks are off), replacing only the section an export wrote.",
        ),
    ] = False,
    project: ProjectOption = None,
    top: Annotated[
        int,
        typer.Option("--top", min=1, help="At most this many memories."),
    ] = PROMPT_TOP_K,
    dry_run: DryRunOption = False,
    file: BridgeFileOption = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Print the strongest memories as a Markdown digest, or write it into Claude Code's
    auto memory, within its limits (200 lines, 25 KB)."""
    from ...facade import auto_memory, claude_code

    with reporting():
        memory = memory_at(claude_code.default_memory_path(None, file))
        if claude_auto_memory:
            folder = claude_code.project_folder(project)
            digest = auto_memory.export_auto_memory(memory, folder, top_k=top, dry_run=dry_run)
        else:
            digest = auto_memory.render_digest(memory.prompt_entries(top))
    _warn(list(digest.warnings))
    if as_json:
        print_json(
            {
                "path": str(digest.path) if digest.path else None,
                "memories": digest.kept,
                "left_out": digest.left_out,
                "changed": digest.changed,
                "written": digest.written,
                "lines": digest.lines,
                "bytes": digest.size,
                "section": digest.section,
            }
        )
        return
    if digest.path is None:
        if digest.section:
            typer.echo(digest.section, nl=False)  # the digest is what was asked for
        else:
            say(quiet, f"no memories to export (none has a score of {PROMPT_MIN_SCORE} or more)")
        return
    if dry_run and digest.section:
        say(quiet, digest.section.rstrip("\n"))
    left = (
        f"; {digest.left_out} left out to stay within 200 lines and 25 KB"
        if digest.left_out
        else ""
    )
    size = f"{digest.lines} lines, {digest.size:,} bytes"
    if not digest.kept and not digest.left_out:
        say(quiet, f"no memories to export (none has a score of {PROMPT_MIN_SCORE} or more)")
    elif not digest.changed:
        say(quiet, f"{digest.path} is up to date: {digest.kept} memories ({size}){left}")
    elif dry_run:
        say(quiet, f"would write {digest.kept} memories to {digest.path} ({size}){left}")
    else:
        say(quiet, f"wrote {digest.kept} memories to {digest.path} ({size}){left}")


@app.command("import")
def import_(
    source: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="A CLAUDE.md or a Claude Code auto-memory MEMORY.md: each bullet and "
            "paragraph becomes a memory (headings, code blocks and @imports do not). Another "
            "everbot-memory file: its active memories, with their categories.",
        ),
    ],
    category: Annotated[
        str | None,
        choice(
            CATEGORIES,
            "--category",
            "-c",
            help="The kind of every imported memory (default: guessed from each one).",
        ),
    ] = None,
    dry_run: DryRunOption = False,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            "-f",
            envvar="EVERBOT_MEMORY_FILE",
            help="The memory file (default: $EVERBOT_MEMORY_FILE, else the project's memory "
            "when the folder has one, else your own).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Remember what a CLAUDE.md or a Claude Code auto-memory file says, one memory per bullet
    or paragraph; one already known is reinforced, not added again."""
    from ...facade import auto_memory, claude_code

    with reporting(), working("importing", quiet):
        # A project's notes go to the project's memory when it has one, not to the memory
        # every project shares.
        others = [] if file else claude_code.other_memories()
        target = others[0] if others else claude_code.default_memory_path(None, file)
        memory = memory_at(target, must_exist=False)
        report = auto_memory.import_notes(
            memory,
            source,
            category,  # type: ignore[arg-type]  # checked against CATEGORIES
            dry_run=dry_run,
        )
    _warn(report.warnings)
    counts = {k: report.count(k) for k in ("added", "reinforced", "skipped")}
    if as_json:
        print_json(
            {
                **counts,
                "dry_run": dry_run,
                "items": [
                    {
                        "line": item.note.line,
                        "outcome": item.outcome,
                        "reason": item.reason or None,
                        "entry": entry_json(item.entry) if item.entry else None,
                        "text": item.note.shown,
                    }
                    for item in report.items
                ],
            }
        )
        return
    verbs = {"added": "would add", "reinforced": "would reinforce"} if dry_run else {}
    for item in report.items:
        if item.entry is not None and item.outcome != "skipped":
            verb = verbs.get(item.outcome, item.outcome)
            entry = item.entry
            say(quiet, f"{verb} [{entry.id}] {entry.category}: {entry.content}")
        else:
            say(quiet, f"skipped line {item.note.line} ({item.reason}): {item.note.shown}")
    summary = (
        f"{counts['added']} added, {counts['reinforced']} reinforced, "
        f"{counts['skipped']} skipped from {source}, into {memory.path}"
    )
    say(quiet, summary + (" (dry run: nothing written)" if dry_run else ""))
