"""The ``everbot-memory`` command: a thin layer over :class:`MemoryManager`.

Each command parses its arguments, makes one library call and prints the result. Errors the
library reports become one line on stderr and exit status 1; bad usage exits with 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .errors import EverbotMemoryError
from .prompt import DEFAULT_MAX_CHARS, DEFAULT_MIN_SCORE, DEFAULT_TOP_K, block_for_file
from .store import DEFAULT_LOCK_TIMEOUT

if TYPE_CHECKING:
    from .manager import MemoryManager
    from .merger import MergeResult
    from .models import MemoryEntry

# `prompt` runs at every session start, so this module imports only what it needs; the
# commands that change the file import the manager (and so pydantic) when they run.

app = typer.Typer(
    name="everbot-memory",
    help="Long-term memory for LLM agents, kept in one human-readable MEMORY.md.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class CategoryChoice(str, Enum):
    """The memory categories, as command-line choices."""

    preference = "preference"
    fact = "fact"
    experience = "experience"
    workflow = "workflow"
    decision = "decision"
    skill_usage = "skill_usage"
    todo = "todo"


class ImportanceChoice(str, Enum):
    """How important a new memory is; it sets the starting score (0.8, 0.6, 0.4)."""

    high = "high"
    medium = "medium"
    low = "low"


class FormatChoice(str, Enum):
    """Transcript formats; ``auto`` detects the format."""

    auto = "auto"
    claude_code = "claude-code"
    messages = "messages"
    text = "text"


class ExtractorChoice(str, Enum):
    """Which extractor reads the conversation."""

    auto = "auto"
    claude = "claude"
    rules = "rules"


class LangChoice(str, Enum):
    """The language of the prompt block's heading and framing line."""

    en = "en"
    zh = "zh"


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


def _manager(path: Path, *, must_exist: bool = True) -> MemoryManager:
    from .manager import MemoryManager

    manager = MemoryManager(path, lock_timeout=_lock_timeout())
    if must_exist and manager.store.read_bytes() is None:
        raise _fail(f"no memory file at {path}; create one with `everbot-memory init`")
    return manager


def _entry_json(entry: MemoryEntry) -> dict[str, Any]:
    data = entry.model_dump(mode="json")
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


@app.command()
def init(file: FileOption = DEFAULT_FILE, quiet: QuietOption = False) -> None:
    """Create an empty MEMORY.md (mode 0600); leave an existing one untouched."""
    with _reporting():
        manager = _manager(file, must_exist=False)
        if manager.store.read_bytes() is not None:
            count = len(manager.entries())
            _say(quiet, f"{file} already exists ({count} memories); left as it is")
            return
        manager.store.save([])
        _say(quiet, f"created {file}")


@app.command()
def remember(
    text: Annotated[str, typer.Argument(help="What to remember, in one sentence.")],
    category: Annotated[
        CategoryChoice, typer.Option("--category", "-c", help="The kind of memory.")
    ] = CategoryChoice.fact,
    importance: Annotated[
        ImportanceChoice,
        typer.Option("--importance", "-i", help="Sets the starting score: 0.8, 0.6 or 0.4."),
    ] = ImportanceChoice.medium,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Add a memory by hand, or reinforce the one that already says the same."""
    if not text.strip():
        raise _fail("nothing to remember: TEXT is empty")
    with _reporting():
        entry, result = _manager(file, must_exist=False).remember(
            text, category.value, importance.value, session_id="cli"
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
        FormatChoice, typer.Option("--format", help="The transcript's format.")
    ] = FormatChoice.auto,
    extractor: Annotated[
        ExtractorChoice,
        typer.Option(
            "--extractor",
            help="claude (needs ANTHROPIC_API_KEY) or rules (offline); auto picks claude "
            "when the key is set.",
        ),
    ] = ExtractorChoice.auto,
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
    from .extractor import ClaudeExtractor, RuleExtractor
    from .transcripts import parse_bytes, read_transcript

    with _reporting():
        if transcript == "-":
            conversation = parse_bytes(sys.stdin.buffer.read(), format.value, "standard input")
        else:
            conversation = read_transcript(transcript, format.value)
        choice = extractor.value
        if choice == "auto":
            choice = "claude" if os.environ.get("ANTHROPIC_API_KEY") else "rules"
        reader = ClaudeExtractor(model=model) if choice == "claude" else RuleExtractor()
        manager = _manager(file, must_exist=False)
        manager.extractor = reader
        session = session_id or conversation.session_id or conversation.content_id()
        with _working(f"extracting memories ({choice})", quiet):
            stats = manager.process_session_end_sync(conversation.as_dicts(), session)
    for warning in manager.warnings:
        typer.echo(f"everbot-memory: warning: {warning}", err=True)
    if conversation.skipped:
        typer.echo(
            f"everbot-memory: warning: skipped {conversation.skipped} unreadable line(s)",
            err=True,
        )
    if as_json:
        _print_json({**stats, "session_id": session, "extractor": choice})
        return
    _say(
        quiet,
        f"session {session}: new {stats['new']}, updated {stats['updated']}, "
        f"archived {stats['archived']}, forgotten {stats['forgotten']}; "
        f"{stats['total']} memories ({choice} extractor)",
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
        manager = _manager(file)
        if entry_id is not None:
            gone = [manager.forget(entry_id.strip("[] "))]
        else:
            assert match is not None
            found = manager.find(match)
            if not found:
                raise _fail(f"no memory contains {match!r}")
            if not yes:
                for entry in found:
                    typer.echo(_entry_line(entry), err=True)
                if not sys.stdin.isatty():
                    raise _fail(f"{len(found)} memories match; add --yes to forget them")
                typer.confirm(f"Forget these {len(found)} memories?", abort=True, err=True)
            gone = manager.forget_many([e.id for e in found])
    if as_json:
        _print_json({"forgotten": [_entry_json(e) for e in gone]})
        return
    for entry in gone:
        _say(quiet, f"forgot [{entry.id}] {entry.content}")


class SectionChoice(str, Enum):
    """Which part of the file to list."""

    active = "active"
    archived = "archived"
    all = "all"


@app.command("list")
def list_(
    section: Annotated[
        SectionChoice, typer.Option("--section", help="active, archived or all.")
    ] = SectionChoice.all,
    category: Annotated[
        CategoryChoice | None, typer.Option("--category", "-c", help="Only this category.")
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
        entries = _manager(file).entries()
    chosen = [
        e
        for e in entries
        if (section == SectionChoice.all or e.is_active == (section == SectionChoice.active))
        and (category is None or e.category == category.value)
        and e.score >= min_score
    ]
    chosen = chosen[offset:] if limit is None else chosen[offset : offset + limit]
    if as_json:
        _print_json([_entry_json(e) for e in chosen])
        return
    if not chosen:
        typer.echo("no memories yet" if not entries else "no memories match")
    for entry in chosen:
        typer.echo(_entry_line(entry))


@app.command()
def show(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="The id shown in brackets.")],
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Show one memory in full, with every field."""
    from .errors import EntryNotFoundError

    with _reporting():
        wanted = entry_id.strip("[] ")
        found = [e for e in _manager(file).entries() if e.id == wanted]
        if not found:
            raise EntryNotFoundError(wanted)
    data = _entry_json(found[0])
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
        hits = _manager(file).recall(query, k, peek, semantic)
    if as_json:
        _print_json(
            [
                {
                    "id": h.entry.id,
                    "content": h.entry.content,
                    "category": h.entry.category,
                    "score": round(h.importance, 4),
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
    from .rules import CATEGORIES

    with _reporting():
        entries = _manager(file).entries()
    active = sum(e.is_active for e in entries)
    bins = [0] * 10
    for entry in entries:
        bins[min(9, int(entry.score * 10))] += 1
    categories = {c: sum(e.category == c for e in entries) for c in CATEGORIES}
    histogram = {f"{i / 10:.1f}-{(i + 1) / 10:.1f}": n for i, n in enumerate(bins)}
    data = {
        "total": len(entries),
        "active": active,
        "archived": len(entries) - active,
        "categories": categories,
        "histogram": histogram,
    }
    if as_json:
        _print_json(data)
        return
    typer.echo(f"{data['total']} memories: {active} active, {data['archived']} archived")
    for name, count in categories.items():
        if count:
            typer.echo(f"  {name:<12} {count}")
    widest = max(bins) or 1
    typer.echo("score histogram:")
    for label, count in histogram.items():
        typer.echo(f"  {label}  {'#' * round(30 * count / widest):<30} {count}")


@app.command()
def prompt(
    file: FileOption = DEFAULT_FILE,
    top_k: Annotated[int, typer.Option("--top-k", min=0, help="At most this many.")] = (
        DEFAULT_TOP_K
    ),
    min_score: Annotated[
        float, typer.Option("--min-score", min=0.0, max=1.0, help="Leave out weaker memories.")
    ] = DEFAULT_MIN_SCORE,
    max_chars: Annotated[
        int, typer.Option("--max-chars", min=0, help="The block never exceeds this length.")
    ] = DEFAULT_MAX_CHARS,
    lang: Annotated[
        LangChoice, typer.Option("--lang", help="Heading and framing language.")
    ] = LangChoice.en,
) -> None:
    """Print the memory block for a system prompt (nothing when there is none)."""
    with _reporting():
        _lock_timeout()  # a bad setting is reported by every command alike
        block = block_for_file(file, top_k, min_score, max_chars, lang.value)
    if block:
        typer.echo(block)


@app.command()
def maintain(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Apply decay now: archive weak memories, forget the weakest, and print what changed."""
    with _reporting():
        result = _manager(file).maintain()
    _print_merge(result, as_json, quiet)


@app.command()
def doctor(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """List problems in the file and the repairs the next save makes; exit 1 if any."""
    from .dedupe import find_duplicates
    from .store import Problem

    with _reporting():
        manager = _manager(file)
        doc = manager.store.load_document()
    problems = list(doc.problems)
    for a, b, score in find_duplicates(doc.entries):
        problems.append(
            Problem(
                doc.lines.get(a.id, 0),
                f"[{a.id}] and [{b.id}] (line {doc.lines.get(b.id, 0)}) look like duplicates "
                f"(similarity {score:.2f}); `everbot-memory dedupe` merges them",
                "warning",
            )
        )
    problems.sort(key=lambda p: p.line)
    if as_json:
        _print_json(
            {
                "entries": len(doc.entries),
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
            typer.echo(f"{file}: {len(doc.entries)} memories, no problems")
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
    from .dedupe import merge_duplicates

    with _reporting():
        manager = _manager(file)
        _, groups = merge_duplicates(manager.entries())
        if groups and not yes:
            for kept, others in groups:
                typer.echo(f"keep {_entry_line(kept)}", err=True)
                for other in others:
                    typer.echo(f"  merge {_entry_line(other)}", err=True)
            if not sys.stdin.isatty():
                raise _fail(f"{len(groups)} group(s) of duplicates; add --yes to merge them")
            typer.confirm(f"Merge these {len(groups)} group(s)?", abort=True, err=True)
        merged = manager.dedupe() if groups else []
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
    from .jobs import JobQueue

    queue = JobQueue(file)
    with _reporting(), _working("processing queued sessions", quiet):
        report = queue.work()
    if report is None:
        _say(quiet, "another worker is processing the queue")
        return
    if as_json:
        _print_json({**vars(report), "pending": len(queue.pending())})
    else:
        for message in report.messages:
            _say(quiet, message)
        _say(quiet, f"{report.done} done, {report.failed} failed, {len(queue.pending())} pending")
    if report.failed:
        raise typer.Exit(1)


@app.command()
def mcp(file: FileOption = DEFAULT_FILE) -> None:
    """Run an MCP server on stdio with tools recall_memory, remember, forget, list_memories."""
    try:
        from .mcp_server import serve
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
        from . import __version__

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
