"""Commands that read the memory file: list, show, recall, stats, prompt, doctor."""

from __future__ import annotations

from typing import Annotated

import typer

from ...facade.memory import (
    CATEGORIES,
    PROMPT_LANGUAGES,
    PROMPT_MAX_CHARS,
    PROMPT_MIN_SCORE,
    PROMPT_TOP_K,
    SECTIONS,
    Memory,
)
from ..hits import NO_MATCH, NOTES_HEADING, hit_json, hit_line, note_line
from .app import (
    DEFAULT_FILE,
    FileOption,
    GroupFilterOption,
    JsonOption,
    app,
    choice,
    entry_json,
    entry_line,
    fail,
    lock_timeout,
    memory_at,
    print_json,
    reporting,
    working,
)

__all__ = ["doctor", "list_", "prompt", "recall", "show", "stats"]


@app.command("list")
def list_(
    section: Annotated[
        str,
        choice(SECTIONS, "--section", help="active, archived or all."),
    ] = "all",
    category: Annotated[
        str | None,
        choice(CATEGORIES, "--category", "-c", help="Only this category."),
    ] = None,
    min_score: Annotated[
        float, typer.Option("--min-score", min=0.0, max=1.0, help="Only scores at least this.")
    ] = 0.0,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="At most this many.")] = None,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Skip this many first.")] = 0,
    group: GroupFilterOption = None,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """List memories: id, category, score, last activated, hits, content (strongest first)."""
    with reporting():
        memory = memory_at(file)
        chosen = memory.list_entries(section, category, min_score, limit, offset, group)  # type: ignore[arg-type]
        empty = not chosen and not memory.entries()
    if as_json:
        print_json([entry_json(e) for e in chosen])
        return
    if not chosen:
        typer.echo("no memories yet" if empty else "no memories match")
    for entry in chosen:
        typer.echo(entry_line(entry))


@app.command()
def show(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="The id shown in brackets.")],
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Show one memory in full, with every field."""
    with reporting():
        entry = memory_at(file).get(entry_id.strip("[] "))
    data = entry_json(entry)
    if as_json:
        print_json(data)
        return
    content = data.pop("content")
    for key, value in data.items():
        if value is None or value == []:
            continue  # a field the memory does not use (no expiry, nothing merged)
        typer.echo(f"{key:>16}: {', '.join(value) if isinstance(value, list) else value}")
    typer.echo(f"{'content':>16}:")
    for line in content.split("\n"):
        typer.echo(f"    {line}")


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="What to look for, in any language.")],
    k: Annotated[int, typer.Option("-k", "--top", min=1, help="How many memories.")] = 5,
    use: Annotated[
        bool,
        typer.Option(
            "--use", help="Say the memories found were used: reinforce them (changes the file)."
        ),
    ] = False,
    peek: Annotated[
        bool, typer.Option("--peek", hidden=True, help="Accepted for old scripts: search reads.")
    ] = False,
    semantic: Annotated[
        bool,
        typer.Option(
            "--semantic",
            help="Also match by meaning (needs the embeddings extra; loading it takes seconds).",
        ),
    ] = False,
    group: GroupFilterOption = None,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            help="Search only the notes of past sessions (a date in the query, such as "
            "'last Tuesday' or '上周二', keeps only those days).",
        ),
    ] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Search all memories, archived ones too, and the notes of past sessions, without
    changing the file (unless --use)."""
    with reporting(), working("searching"):
        memory = memory_at(file)
        notes = memory.recall_notes(query, k)  # notes have no group: a filter keeps them
        hits = [] if sessions else memory.recall(query, k, semantic, group)
        if use and hits:
            memory.mark_used([h.entry.id for h in hits])
    if sessions:
        if as_json:
            print_json([note.to_json() for note in notes])
            return
        if not notes:
            typer.echo("no session note matches")
        for note in notes:
            typer.echo(note_line(note))
        return
    if as_json:
        print_json([hit_json(h) for h in hits])
        return
    if not hits and not notes:
        typer.echo(NO_MATCH)
    for hit in hits:
        typer.echo(hit_line(hit))
    if notes:
        typer.echo(NOTES_HEADING)
        for note in notes:
            typer.echo(note_line(note))


@app.command()
def stats(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """Totals per section and category, and a histogram of scores."""
    with reporting():
        data = memory_at(file).stats()
    if as_json:
        print_json(vars(data))
        return
    typer.echo(f"{data.total} memories: {data.active} active, {data.archived} archived")
    for name, count in data.categories.items():
        if count:
            typer.echo(f"  {name:<12} {count}")
    widest = max(data.histogram.values()) or 1
    typer.echo("score histogram:")
    for label, count in data.histogram.items():
        typer.echo(f"  {label}  {'#' * round(30 * count / widest):<30} {count}")


@app.command()
def prompt(
    file: FileOption = DEFAULT_FILE,
    top_k: Annotated[int, typer.Option("--top-k", min=0, help="At most this many.")] = (
        PROMPT_TOP_K
    ),
    min_score: Annotated[
        float, typer.Option("--min-score", min=0.0, max=1.0, help="Leave out weaker memories.")
    ] = PROMPT_MIN_SCORE,
    max_chars: Annotated[
        int, typer.Option("--max-chars", min=0, help="The block never exceeds this length.")
    ] = PROMPT_MAX_CHARS,
    lang: Annotated[
        str,
        choice(PROMPT_LANGUAGES, "--lang", help="Heading and framing language."),
    ] = "en",
    group: GroupFilterOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the memory block for a system prompt (nothing when there is none)."""
    with reporting():
        memory = Memory(file, lock_timeout=lock_timeout())  # a bad setting fails every command
        entries = memory.prompt_entries(top_k, min_score, group) if as_json else []
        block = memory.prompt_block(top_k, min_score, max_chars, lang, group)  # type: ignore[arg-type]
        # Session start with no file yet is normal (a new user), so it says so and exits 0;
        # a folder that does not exist is a mistyped --file, which a hook caller must see.
        missing = not block and not memory.exists()
    if missing and not file.parent.is_dir():
        raise fail(f"no folder {file.parent} for the memory file; check --file")
    if missing:
        typer.echo(f"everbot-memory: no memory file at {file}; nothing to inject", err=True)
    if as_json:
        # The block keeps the strongest memories that fit in --max-chars, one line each.
        shown = block.count("\n- ")
        print_json({"block": block, "memories": [entry_json(e) for e in entries[:shown]]})
    elif block:
        typer.echo(block)


@app.command()
def doctor(
    check_backend: Annotated[
        bool,
        typer.Option(
            "--check-backend",
            help="Also send the extractor one short request (or run `claude --version`) to see "
            "that it answers; without it doctor stays offline.",
        ),
    ] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """List problems in the file and the repairs the next save makes, say which extractor
    runs and why, list failed jobs, and check the Claude Code installation; exit 1 if
    anything needs attention."""
    from ...facade.install_check import check_installation
    from ...facade.locations import user_memory_path
    from ...facade.reports import group_filter_problem
    from ...facade.sync import check_git
    from .install import installation_lines

    with reporting():
        memory = memory_at(file, must_exist=False)
        missing = not memory.exists()
        diagnosis = memory.diagnose()
        failed = memory.jobs.failed()
        with working("checking the extractor", not check_backend):
            backend = memory.backend(check=check_backend)
        installation = check_installation()
        git = check_git(file)
        settings = memory.settings()
        group_problem = group_filter_problem(memory.entries(), settings)
    problems = diagnosis.problems
    if as_json:
        print_json(
            {
                "entries": diagnosis.entries,
                "problems": [
                    {"line": p.line, "kind": p.kind, "message": p.message} for p in problems
                ],
                "extractor": vars(backend),
                "failed_jobs": [
                    {
                        "session_id": j.session_id,
                        "event": j.event,
                        "attempts": j.attempts,
                        "error": j.error,
                    }
                    for j in failed
                ],
                "claude_code": installation.to_json(),
                "git": git.to_json(),
                "group_filter": {
                    "groups": settings.group,
                    "problem": group_problem or None,
                },
            }
        )
    else:
        if missing:
            # Still worth the rest of the report: the installation is checked without one.
            typer.echo(
                f"{file}: no memory file; `everbot-memory init` makes one here (the Claude "
                f"Code hooks keep your own at {user_memory_path()}: doctor -f checks it)"
            )
        for problem in problems:
            typer.echo(f"{file}:{problem.line}: {problem.kind}: {problem.message}")
        if problems:
            typer.echo(
                f"{len(problems)} problem(s); the next save (e.g. `everbot-memory maintain`) "
                "makes the repairs and keeps unreadable text as notes"
            )
        elif not missing:
            typer.echo(f"{file}: {diagnosis.entries} memories, no problems")
        details = [
            f"model {backend.model}" if backend.model else "",
            f"base URL {backend.base_url}" if backend.base_url else "",
            f"timeout {backend.timeout:g} s" if backend.timeout else "",
        ]
        shown = ", ".join(d for d in details if d)
        typer.echo(
            f"extractor: {backend.name} ({backend.reason})" + (f"; {shown}" if shown else "")
        )
        if backend.warning:
            typer.echo(f"extractor: warning: {backend.warning}")
        if backend.problem:
            typer.echo(f"extractor: problem: {backend.problem}")
        elif backend.checked:
            typer.echo(f"extractor: ok: {backend.checked}")
        for job in failed:
            typer.echo(
                f"failed job: session {job.session_id} ({job.event}), {job.attempts} tries: "
                f"{job.error}"
            )
        retried = [job for job in failed if not job.damaged]
        if retried:
            typer.echo(
                f"{len(retried)} failed job(s); `everbot-memory process-pending --retry-failed` "
                "queues them again"
            )
        for line in installation_lines(installation):
            typer.echo(line)
        if git.attribute and git.driver:
            typer.echo(f"git: {file.name} is merged memory by memory in {git.repository}")
        for line in git.problems:
            typer.echo(f"git: problem: {line}")
        if group_problem:
            typer.echo(f"groups: problem: {group_problem}")
        elif settings.group is not None:
            typer.echo(f"groups: the hooks here show only {settings.group!r}")
    if (
        missing
        or problems
        or backend.problem
        or failed
        or installation.problems
        or git.problems
        or group_problem
    ):
        raise typer.Exit(1)
