"""The ``everbot-memory`` command: a thin layer over :class:`~everbot_memory.facade.memory.Memory`.

Each command parses its arguments, makes one library call and prints the result. Errors the
library reports become one line on stderr and exit status 1; bad usage exits with 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import EverbotMemoryError
from ..facade.memory import (
    CATEGORIES,
    DEFAULT_LOCK_TIMEOUT,
    EXTRACTORS,
    IMPORTANCES,
    PROMPT_LANGUAGES,
    PROMPT_MAX_CHARS,
    PROMPT_MIN_SCORE,
    PROMPT_TOP_K,
    SECTIONS,
    TRANSCRIPT_FORMATS,
    Memory,
)

__all__ = [
    "app",
    "close_session",
    "dedupe",
    "doctor",
    "forget",
    "hook_app",
    "hook_claude_code",
    "init",
    "list_",
    "main",
    "maintain",
    "mcp",
    "process_pending",
    "prompt",
    "recall",
    "remember",
    "show",
    "stats",
]

if TYPE_CHECKING:
    from ..core.entry import MemoryEntry
    from ..core.merge import MergeResult

# `prompt` runs at every session start, so this module imports only what it needs: the facade
# loads pydantic and the LLM SDKs only in the commands that change the file.

app = typer.Typer(
    name="everbot-memory",
    help="Long-term memory for LLM agents, kept in one human-readable MEMORY.md.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


FileOption = Annotated[
    Path,
    typer.Option(
        "--file",
        "-f",
        envvar="EVERBOT_MEMORY_FILE",
        help="The memory file (default: $EVERBOT_MEMORY_FILE, else ./MEMORY.md).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print nothing on success (errors still show).")
]
DEFAULT_FILE = Path("MEMORY.md")


def _fail(message: str) -> typer.Exit:
    typer.echo(f"everbot-memory: {message}", err=True)
    return typer.Exit(1)


@contextlib.contextmanager
def _reporting() -> Iterator[None]:
    """Turn the library's errors into one line on stderr and exit status 1."""
    try:
        yield
    except EverbotMemoryError as exc:
        raise _fail(str(exc)) from None


def _lock_timeout() -> float:
    raw = os.environ.get("EVERBOT_MEMORY_LOCK_TIMEOUT", "")
    if not raw:
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise _fail(f"EVERBOT_MEMORY_LOCK_TIMEOUT={raw!r} is not a number of seconds")
    return value


def _memory(path: Path, *, must_exist: bool = True) -> Memory:
    memory = Memory(path, lock_timeout=_lock_timeout())
    if must_exist and not memory.exists():
        raise _fail(f"no memory file at {path}; create one with `everbot-memory init`")
    return memory


def _entry_json(entry: MemoryEntry) -> dict[str, Any]:
    data = entry.to_json()
    data["section"] = "active" if entry.is_active else "archived"
    return data


def _entry_line(entry: MemoryEntry) -> str:
    first = " ".join(entry.content.split())
    if len(first) > 100:
        first = first[:99] + "…"
    return (
        f"[{entry.id}] {entry.category:<11} {entry.score:.2f}  "
        f"{entry.last_activated:%Y-%m-%d}  {entry.activation_count:>3}  {first}"
    )


def _say(quiet: bool, text: str) -> None:
    if not quiet:
        typer.echo(text)


@contextlib.contextmanager
def _working(message: str, quiet: bool) -> Iterator[None]:
    """A spinner on stderr while slow work runs, only when a person is watching a terminal."""
    if quiet or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console  # rich honours NO_COLOR

    with Console(stderr=True).status(message):
        yield


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _print_merge(result: MergeResult, as_json: bool, quiet: bool = False) -> None:
    stats = result.stats
    if as_json:
        _print_json(
            {
                **stats.as_dict(),
                "total": len(result.entries),
                "forgotten_entries": [_entry_json(e) for e in stats.forgotten_entries],
            }
        )
        return
    _say(
        quiet,
        f"new {stats.new}, updated {stats.updated}, archived {stats.archived}, "
        f"forgotten {stats.forgotten}; {len(result.entries)} memories kept",
    )
    for entry in stats.forgotten_entries:
        _say(quiet, f"forgot [{entry.id}] {entry.score:.3f}  {' '.join(entry.content.split())}")


def _one_of(values: tuple[str, ...]) -> Any:
    """An option callback accepting only ``values`` (shown as the option's metavar)."""

    def check(value: str | None) -> str | None:
        if value is not None and value not in values:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(values)}")
        return value

    return check


def _choice(values: tuple[str, ...], *names: str, help: str) -> Any:
    """An option that takes one of ``values``."""
    return typer.Option(*names, metavar="|".join(values), callback=_one_of(values), help=help)


CategoryOption = Annotated[
    str,
    _choice(CATEGORIES, "--category", "-c", help="The kind of memory."),
]


@app.command()
def init(file: FileOption = DEFAULT_FILE, quiet: QuietOption = False) -> None:
    """Create an empty MEMORY.md (mode 0600); leave an existing one untouched."""
    with _reporting():
        memory = _memory(file, must_exist=False)
        if not memory.init():
            count = len(memory.entries())
            _say(quiet, f"{file} already exists ({count} memories); left as it is")
            return
    _say(quiet, f"created {file}")


@app.command()
def remember(
    text: Annotated[str, typer.Argument(help="What to remember, in one sentence.")],
    category: CategoryOption = "fact",
    importance: Annotated[
        str,
        _choice(
            IMPORTANCES, "--importance", "-i", help="Sets the starting score: 0.8, 0.6 or 0.4."
        ),
    ] = "medium",
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Add a memory by hand, or reinforce the one that already says the same."""
    if not text.strip():
        raise _fail("nothing to remember: TEXT is empty")
    with _reporting():
        entry, result = _memory(file, must_exist=False).remember(
            text,
            category,  # type: ignore[arg-type]  # checked against CATEGORIES
            importance,  # type: ignore[arg-type]
            session_id="cli",
        )
    if as_json:
        _print_json({"entry": _entry_json(entry), **result.stats.as_dict()})
        return
    verb = "remembered" if result.stats.new else "reinforced"
    _say(quiet, f"{verb} [{entry.id}] {entry.category} {entry.score:.2f}: {entry.content}")


@app.command("close-session")
def close_session(
    transcript: Annotated[
        str,
        typer.Argument(
            metavar="TRANSCRIPT|-",
            help="The conversation: a Claude Code .jsonl, a JSON message list, or "
            "User:/Assistant: text; '-' reads standard input.",
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
        _choice(TRANSCRIPT_FORMATS, "--format", help="The transcript's format."),
    ] = "auto",
    extractor: Annotated[
        str,
        _choice(
            EXTRACTORS,
            "--extractor",
            help="claude (needs ANTHROPIC_API_KEY) or rules (offline); auto picks claude "
            "when the key is set.",
        ),
    ] = "auto",
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="Claude model (default: $EVERBOT_MEMORY_MODEL, else a current one)."
        ),
    ] = None,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Extract memories from a finished conversation and merge them into the file."""
    source: str | bytes = sys.stdin.buffer.read() if transcript == "-" else transcript
    with _reporting():
        memory = Memory(file, extractor, lock_timeout=_lock_timeout(), model=model)
        with _working("extracting memories", quiet):
            report = memory.close_transcript(source, session_id=session_id, format=format)
    for warning in report.warnings:
        typer.echo(f"everbot-memory: warning: {warning}", err=True)
    if report.skipped:
        typer.echo(
            f"everbot-memory: warning: skipped {report.skipped} unreadable line(s)", err=True
        )
    stats = report.stats
    if as_json:
        _print_json({**stats, "session_id": report.session_id, "extractor": report.extractor})
        return
    _say(
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
    with _reporting():
        memory = _memory(file)
        if entry_id is not None:
            gone = [memory.forget(entry_id.strip("[] "))]
        else:
            assert match is not None
            found = memory.find(match)
            if not found:
                raise _fail(f"no memory contains {match!r}")
            if not yes:
                for entry in found:
                    typer.echo(_entry_line(entry), err=True)
                if not sys.stdin.isatty():
                    raise _fail(f"{len(found)} memories match; add --yes to forget them")
                typer.confirm(f"Forget these {len(found)} memories?", abort=True, err=True)
            gone = memory.forget_many([e.id for e in found])
    if as_json:
        _print_json({"forgotten": [_entry_json(e) for e in gone]})
        return
    for entry in gone:
        _say(quiet, f"forgot [{entry.id}] {entry.content}")


@app.command("list")
def list_(
    section: Annotated[
        str,
        _choice(SECTIONS, "--section", help="active, archived or all."),
    ] = "all",
    category: Annotated[
        str | None,
        _choice(CATEGORIES, "--category", "-c", help="Only this category."),
    ] = None,
    min_score: Annotated[
        float, typer.Option("--min-score", min=0.0, max=1.0, help="Only scores at least this.")
    ] = 0.0,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="At most this many.")] = None,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Skip this many first.")] = 0,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """List memories: id, category, score, last activated, hits, content (strongest first)."""
    with _reporting():
        memory = _memory(file)
        chosen = memory.list_entries(section, category, min_score, limit, offset)  # type: ignore[arg-type]
        empty = not chosen and not memory.entries()
    if as_json:
        _print_json([_entry_json(e) for e in chosen])
        return
    if not chosen:
        typer.echo("no memories yet" if empty else "no memories match")
    for entry in chosen:
        typer.echo(_entry_line(entry))


@app.command()
def show(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="The id shown in brackets.")],
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Show one memory in full, with every field."""
    with _reporting():
        entry = _memory(file).get(entry_id.strip("[] "))
    data = _entry_json(entry)
    if as_json:
        _print_json(data)
        return
    content = data.pop("content")
    for key, value in data.items():
        typer.echo(f"{key:>16}: {value}")
    typer.echo(f"{'content':>16}:")
    for line in content.split("\n"):
        typer.echo(f"    {line}")


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="What to look for, in any language.")],
    k: Annotated[int, typer.Option("-k", "--top", min=1, help="How many memories.")] = 5,
    peek: Annotated[
        bool, typer.Option("--peek", help="Do not activate the memories found.")
    ] = False,
    semantic: Annotated[
        bool,
        typer.Option(
            "--semantic",
            help="Also match by meaning (needs the embeddings extra; loading it takes seconds).",
        ),
    ] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Search all memories, archived ones too; the ones found are activated unless --peek."""
    with _reporting(), _working("searching", not semantic):
        hits = _memory(file).recall(query, k, peek, semantic)
    if as_json:
        _print_json(
            [
                {
                    "id": h.entry.id,
                    "content": h.entry.content,
                    "category": h.entry.category,
                    "score": round(h.score, 4),
                    "rank": round(h.rank, 4),
                    "relevance": round(h.relevance, 4),
                    "recency": round(h.recency, 4),
                }
                for h in hits
            ]
        )
        return
    if not hits:
        typer.echo("no memory matches")
    for hit in hits:
        text = " ".join(hit.entry.content.split())
        typer.echo(f"[{hit.entry.id}] {hit.rank:.3f}  {hit.entry.category:<11} {text}")


@app.command()
def stats(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """Totals per section and category, and a histogram of scores."""
    with _reporting():
        data = _memory(file).stats()
    if as_json:
        _print_json(vars(data))
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
        _choice(PROMPT_LANGUAGES, "--lang", help="Heading and framing language."),
    ] = "en",
) -> None:
    """Print the memory block for a system prompt (nothing when there is none)."""
    with _reporting():
        memory = Memory(file, lock_timeout=_lock_timeout())  # a bad setting fails every command
        block = memory.prompt_block(top_k, min_score, max_chars, lang)  # type: ignore[arg-type]
    if block:
        typer.echo(block)


@app.command()
def maintain(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Apply decay now: archive weak memories, forget the weakest, and print what changed."""
    with _reporting():
        result = _memory(file).maintain()
    _print_merge(result, as_json, quiet)


@app.command()
def doctor(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """List problems in the file and the repairs the next save makes; exit 1 if any."""
    with _reporting():
        diagnosis = _memory(file).diagnose()
    problems = diagnosis.problems
    if as_json:
        _print_json(
            {
                "entries": diagnosis.entries,
                "problems": [
                    {"line": p.line, "kind": p.kind, "message": p.message} for p in problems
                ],
            }
        )
    else:
        for problem in problems:
            typer.echo(f"{file}:{problem.line}: {problem.kind}: {problem.message}")
        if problems:
            typer.echo(
                f"{len(problems)} problem(s); the next save (e.g. `everbot-memory maintain`) "
                "makes the repairs and keeps unreadable text as notes"
            )
        else:
            typer.echo(f"{file}: {diagnosis.entries} memories, no problems")
    if problems:
        raise typer.Exit(1)


@app.command()
def dedupe(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Merge without asking.")] = False,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Merge memories that say the same thing: the strongest stays, hits add up."""
    with _reporting():
        memory = _memory(file)
        groups = memory.duplicate_groups()
        if groups and not yes:
            for kept, others in groups:
                typer.echo(f"keep {_entry_line(kept)}", err=True)
                for other in others:
                    typer.echo(f"  merge {_entry_line(other)}", err=True)
            if not sys.stdin.isatty():
                raise _fail(f"{len(groups)} group(s) of duplicates; add --yes to merge them")
            typer.confirm(f"Merge these {len(groups)} group(s)?", abort=True, err=True)
        merged = memory.dedupe() if groups else []
    if as_json:
        _print_json(
            [{"kept": _entry_json(k), "merged": [o.id for o in others]} for k, others in merged]
        )
        return
    for kept, others in merged:
        _say(quiet, f"merged {', '.join(f'[{o.id}]' for o in others)} into [{kept.id}]")
    _say(quiet, f"{len(merged)} group(s) merged" if merged else "no duplicates found")


@app.command("process-pending")
def process_pending(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Extract the sessions queued by hooks (what a worker that died left, too)."""
    memory = Memory(file, lock_timeout=_lock_timeout())
    with _reporting(), _working("processing queued sessions", quiet):
        report = memory.process_pending()
    if report is None:
        _say(quiet, "another worker is processing the queue")
        return
    pending = len(memory.pending_jobs())
    if as_json:
        _print_json({**vars(report), "pending": pending})
    else:
        for message in report.messages:
            _say(quiet, message)
        _say(quiet, f"{report.done} done, {report.failed} failed, {pending} pending")
    if report.failed:
        raise typer.Exit(1)


@app.command()
def mcp(file: FileOption = DEFAULT_FILE) -> None:
    """Run an MCP server on stdio with tools recall_memory, remember, forget, list_memories."""
    try:
        from .mcp import serve
    except ModuleNotFoundError as exc:
        raise _fail(
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
    from .hooks import handle_claude_code

    result = handle_claude_code(sys.stdin.read(), file)
    if result.stdout:
        typer.echo(result.stdout)
    if result.stderr:
        typer.echo(result.stderr, err=True)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"everbot-memory {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Long-term memory for LLM agents, kept in one human-readable MEMORY.md."""


def main() -> None:
    """Entry point of the ``everbot-memory`` console script."""
    app(prog_name="everbot-memory")
