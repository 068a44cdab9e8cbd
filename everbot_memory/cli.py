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


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _print_merge(result: MergeResult, as_json: bool) -> None:
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
    typer.echo(
        f"new {stats.new}, updated {stats.updated}, archived {stats.archived}, "
        f"forgotten {stats.forgotten}; {len(result.entries)} memories kept"
    )
    for entry in stats.forgotten_entries:
        typer.echo(f"forgot [{entry.id}] {entry.score:.3f}  {' '.join(entry.content.split())}")


@app.command()
def init(file: FileOption = DEFAULT_FILE) -> None:
    """Create an empty MEMORY.md (mode 0600); leave an existing one untouched."""
    with _reporting():
        manager = _manager(file, must_exist=False)
        if manager.store.read_bytes() is not None:
            count = len(manager.entries())
            typer.echo(f"{file} already exists ({count} memories); left as it is")
            return
        manager.store.save([])
        typer.echo(f"created {file}")


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
    typer.echo(f"{verb} [{entry.id}] {entry.category} {entry.score:.2f}: {entry.content}")


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
    typer.echo(
        f"session {session}: new {stats['new']}, updated {stats['updated']}, "
        f"archived {stats['archived']}, forgotten {stats['forgotten']}; "
        f"{stats['total']} memories ({choice} extractor)"
    )


@app.command()
def forget(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="The id shown in brackets.")],
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Delete one memory by its id."""
    with _reporting():
        entry = _manager(file).forget(entry_id.strip("[] "))
    if as_json:
        _print_json({"forgotten": _entry_json(entry)})
    else:
        typer.echo(f"forgot [{entry.id}] {entry.content}")


@app.command("list")
def list_(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """List every memory: id, category, score, last activated, hits, content."""
    with _reporting():
        entries = _manager(file).entries()
    if as_json:
        _print_json([_entry_json(e) for e in entries])
        return
    if not entries:
        typer.echo("no memories yet")
    for entry in entries:
        typer.echo(_entry_line(entry))


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
def maintain(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """Apply decay now: archive weak memories, forget the weakest, and print what changed."""
    with _reporting():
        result = _manager(file).maintain()
    _print_merge(result, as_json)


@app.command()
def doctor(file: FileOption = DEFAULT_FILE, as_json: JsonOption = False) -> None:
    """List problems in the file and the repairs the next save makes; exit 1 if any."""
    with _reporting():
        manager = _manager(file)
        doc = manager.store.load_document()
    problems = doc.problems
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
