"""Commands that change the memory file: init, remember, close-session, forget, maintain, dedupe."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ...facade.memory import IMPORTANCES, TRANSCRIPT_FORMATS
from ..entries import remembered
from .app import (
    DEFAULT_FILE,
    BaseUrlOption,
    CategoryOption,
    ExtractorOption,
    FileOption,
    JsonOption,
    ModelOption,
    QuietOption,
    TimeoutOption,
    app,
    choice,
    entry_json,
    entry_line,
    extracting_memory,
    fail,
    group_name,
    memory_at,
    print_json,
    print_merge,
    reporting,
    say,
    working,
)

__all__ = ["close_session", "consolidate", "dedupe", "forget", "init", "maintain", "remember"]


@app.command()
def init(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Create an empty MEMORY.md (mode 0600); leave an existing one untouched."""
    with reporting():
        memory = memory_at(file, must_exist=False)
        created = memory.init()
        count = 0 if created else len(memory.entries())
    if as_json:
        print_json({"file": str(file), "created": created, "memories": count})
    elif created:
        say(quiet, f"created {file}")
    else:
        say(quiet, f"{file} already exists ({count} memories); left as it is")


@app.command()
def remember(
    text: Annotated[str, typer.Argument(help="What to remember, in one sentence.")],
    category: CategoryOption = "fact",
    importance: Annotated[
        str,
        choice(IMPORTANCES, "--importance", "-i", help="Sets the starting score: 0.8, 0.6 or 0.4."),
    ] = "medium",
    group: Annotated[
        str | None,
        typer.Option(
            "--group",
            "-g",
            help="File it under this group (work, life, ...); else guessed.",
            callback=group_name,
        ),
    ] = None,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Add a memory by hand, or reinforce the one that already says the same."""
    if not text.strip():
        raise fail("nothing to remember: TEXT is empty")
    with reporting():
        entry, result = memory_at(file, must_exist=False).remember(
            text,
            category,  # type: ignore[arg-type]  # checked against CATEGORIES
            importance,  # type: ignore[arg-type]
            session_id="cli",
            group=group,
        )
    if as_json:
        typer.echo(remembered(entry, result, as_json=True))
    else:
        say(quiet, remembered(entry, result, as_json=False))


@app.command("close-session")
def close_session(
    transcript: Annotated[
        str,
        typer.Argument(
            metavar="TRANSCRIPT|-",
            help="The conversation: a Claude Code .jsonl, a JSON message list, "
            "User:/Assistant: text, or people talking (Name: text lines, a chat export, "
            "LoCoMo's JSON); '-' reads standard input.",
        ),
    ],
    session_id: Annotated[
        str | None,
        typer.Option(
            "--session-id",
            help="The session's id (default: the transcript's own, else a hash of its content).",
        ),
    ] = None,
    format: Annotated[
        str,
        choice(TRANSCRIPT_FORMATS, "--format", help="The transcript's format."),
    ] = "auto",
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            metavar="NAME",
            help="Between named people, whose memories to keep (default: a speaker called "
            "Me, User or the like, else the one with the most turns).",
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
    """Extract memories from a finished conversation and merge them into the file."""
    source: str | bytes = sys.stdin.buffer.read() if transcript == "-" else transcript
    with reporting():
        memory = extracting_memory(file, extractor, model, base_url, timeout)
        with working("extracting memories", quiet):
            report = memory.close_transcript(
                source, session_id=session_id, format=format, user=user
            )
    for warning in report.warnings:
        typer.echo(f"everbot-memory: warning: {warning}", err=True)
    if report.skipped:
        typer.echo(
            f"everbot-memory: warning: skipped {report.skipped} unreadable line(s)", err=True
        )
    stats = report.stats
    if as_json:
        print_json({**stats, "session_id": report.session_id, "extractor": report.extractor})
        return
    say(
        quiet,
        f"session {report.session_id}: new {stats['new']}, updated {stats['updated']}, "
        f"archived {stats['archived']}, forgotten {stats['forgotten']}; "
        f"{stats['total']} memories ({report.extractor} extractor)",
    )


@app.command()
def forget(
    entry_id: Annotated[
        str | None, typer.Argument(metavar="ID", help="The id shown in brackets.")
    ] = None,
    match: Annotated[
        str | None,
        typer.Option("--match", "-m", help="Forget the memories whose content holds this text."),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask before forgetting --match results.")
    ] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Delete a memory by its id, or the memories matching --match TEXT."""
    if (entry_id is None) == (match is None):
        raise typer.BadParameter("give either an ID or --match TEXT")
    if match is not None and not match.strip():
        raise typer.BadParameter("--match TEXT is empty: give words the memories to forget hold")
    with reporting():
        memory = memory_at(file)
        if entry_id is not None:
            gone = [memory.forget(entry_id.strip("[] "))]
        else:
            assert match is not None
            found = memory.find(match)
            if not found:
                raise fail(f"no memory contains {match!r}")
            if not yes:
                for entry in found:
                    typer.echo(entry_line(entry), err=True)
                if not sys.stdin.isatty():
                    raise fail(
                        f"{len(found)} {'memory matches' if len(found) == 1 else 'memories match'}"
                        "; add --yes to forget them"
                    )
                typer.confirm(f"Forget these {len(found)} memories?", abort=True, err=True)
            gone = memory.forget_many([e.id for e in found])
    if as_json:
        print_json({"forgotten": [entry_json(e) for e in gone]})
        return
    for entry in gone:
        say(quiet, f"forgot [{entry.id}] {entry.content}")


@app.command()
def maintain(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Apply decay now: archive weak memories, forget the weakest, and print what changed
    (and consolidate, when consolidate_days says it is due)."""
    with reporting(), working("applying decay", quiet):
        memory = memory_at(file)
        result = memory.maintain()
    done = memory.last_consolidation
    if as_json and done is not None:
        print_json({**result.stats.as_dict(), "consolidation": done.to_json()})
        return
    print_merge(result, as_json, quiet)
    if done is not None:
        say(quiet, f"consolidated {len(done.made)} cluster(s) of related memories")


@app.command()
def consolidate(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the plan as a diff of the file; change nothing.")
    ] = False,
    extractor: ExtractorOption = None,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Condense related, weaker memories into one stronger memory each (the originals move to
    Archived); offline, only near-duplicates."""
    with reporting(), working("consolidating", quiet):
        done = memory_at(file).consolidate(dry_run, extractor)
    if as_json:
        print_json({**done.to_json(), "diff": done.diff} if dry_run else done.to_json())
        return
    if not done.clusters:
        say(quiet, "nothing to consolidate")
        return
    for cluster in done.clusters:
        text = " ".join(done.texts.get(cluster.ids, cluster.content).split())
        say(quiet, f"{', '.join(f'[{i}]' for i in cluster.ids)} -> {text}")
    if dry_run:
        typer.echo(done.diff, nl=False)
        say(quiet, f"{len(done.clusters)} cluster(s) would be condensed; run without --dry-run")
        return
    skipped = f"; {done.skipped} changed meanwhile, left for next time" if done.skipped else ""
    say(quiet, f"{len(done.made)} cluster(s) condensed ({done.writer}){skipped}")


@app.command()
def dedupe(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Merge without asking.")] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Merge memories that say the same thing: the strongest stays, hits add up."""
    with reporting():
        memory = memory_at(file)
        with working("looking for duplicates", quiet):
            groups = memory.duplicate_groups()
        if groups and not yes:
            for kept, others in groups:
                typer.echo(f"keep {entry_line(kept)}", err=True)
                for other in others:
                    typer.echo(f"  merge {entry_line(other)}", err=True)
            if not sys.stdin.isatty():
                raise fail(f"{len(groups)} group(s) of duplicates; add --yes to merge them")
            typer.confirm(f"Merge these {len(groups)} group(s)?", abort=True, err=True)
        with working("merging duplicates", quiet):
            merged = memory.dedupe() if groups else []
    if as_json:
        print_json(
            [{"kept": entry_json(k), "merged": [o.id for o in others]} for k, others in merged]
        )
        return
    for kept, others in merged:
        say(quiet, f"merged {', '.join(f'[{o.id}]' for o in others)} into [{kept.id}]")
    say(quiet, f"{len(merged)} group(s) merged" if merged else "no duplicates found")
