"""The ``everbot-memory`` command's shared parts: the app, common options, and output.

Each command parses its arguments, makes one call to the facade and prints the result. Errors
the library reports become one line on stderr and exit status 1; bad usage is one line too,
with exit status 2.
`prompt` runs at every session start, so nothing here loads pydantic or an LLM SDK: the
facade imports those only in the calls that need them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

try:  # recent typer vendors click as typer._click; older releases raise click's own errors
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]

from ...errors import EverbotMemoryError
from ...facade.memory import CATEGORIES, EXTRACTORS, Memory
from ...facade.remember import lock_timeout_setting
from ..entries import entry_json

if TYPE_CHECKING:
    from ...core.entry import MemoryEntry
    from ...core.merge import MergeResult

__all__ = [
    "DEFAULT_FILE",
    "BaseUrlOption",
    "CategoryOption",
    "ExtractorOption",
    "FileOption",
    "JsonOption",
    "ModelOption",
    "QuietOption",
    "TimeoutOption",
    "app",
    "choice",
    "entry_json",
    "entry_line",
    "extracting_memory",
    "fail",
    "group_name",
    "lock_timeout",
    "main",
    "memory_at",
    "needs_extra",
    "print_json",
    "print_merge",
    "reporting",
    "say",
    "user_chosen",
    "working",
]


def _coloured() -> bool:
    """Whether stderr gets colours: a terminal, or FORCE_COLOR, never with NO_COLOR."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stderr.isatty()


#: How much of an unknown option a usage error repeats.
_SHOWN = 16
#: What an option looks like ("--file", "-q"), unlike text that begins with a dash.
_OPTION_LIKE = re.compile(r"--?[A-Za-z][A-Za-z0-9-]*")


def _usage_error(exc: click_errors.UsageError) -> None:
    """Print a usage error as one line: what is wrong, and where the help is."""
    where = exc.ctx.command_path if exc.ctx is not None else "everbot-memory"
    message = " ".join(exc.format_message().split())
    name = exc.option_name if isinstance(exc, click_errors.NoSuchOption) else ""
    if name and not _OPTION_LIKE.fullmatch(name):
        # Text that begins with "-" (a key block, "-40 degrees"): never echoed whole.
        shown = name if len(name) <= _SHOWN else name[:_SHOWN] + "..."
        message = (
            f"no such option: {shown}; for text that begins with '-', "
            "end the options with `--` before it"
        )
    label = typer.style("error:", fg="red", bold=True)
    typer.echo(f"everbot-memory: {label} {message} (see {where} -h)", err=True, color=_coloured())


class _Group(TyperGroup):
    """The command group: usage errors are one line on stderr, not typer's framed box."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command; in standalone mode, report click's errors here and exit."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            # Not standalone, so that click's errors come here instead of to typer's printer.
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click_errors.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                # No arguments: the help is the message (typer's has printed itself already).
                if exc.format_message().strip():
                    typer.echo(exc.format_message(), err=True)
            else:
                _usage_error(exc)
            sys.exit(exc.exit_code)
        except click_errors.ClickException as exc:
            typer.echo(f"everbot-memory: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("everbot-memory: aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="everbot-memory",
    cls=_Group,
    help="Long-term memory for LLM agents, kept in one human-readable MEMORY.md.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
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


def fail(message: str) -> typer.Exit:
    """Print ``message`` as the command's one line on stderr; raise the result to exit 1."""
    typer.echo(f"everbot-memory: {message}", err=True)
    return typer.Exit(1)


@contextlib.contextmanager
def reporting() -> Iterator[None]:
    """Turn the library's errors into one line on stderr and exit status 1."""
    try:
        yield
    except EverbotMemoryError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        # The system refused (a folder left by a run with sudo, a full disk): where, and why.
        raise fail(_os_message(exc)) from None


def _os_message(exc: OSError) -> str:
    """One line for an error the system gave: the path and what to check."""
    where = exc.filename if exc.filename is not None else "a file it needs"
    if isinstance(exc, PermissionError):
        return (
            f"permission denied: {where}; check its owner and permissions (`ls -ld`), "
            "perhaps left by a run as another user or with sudo"
        )
    return f"{where}: {exc.strerror or exc}"


def lock_timeout() -> float:
    """How long writers wait for the lock: $EVERBOT_MEMORY_LOCK_TIMEOUT, checked."""
    value = lock_timeout_setting()
    if value is None:
        raw = os.environ.get("EVERBOT_MEMORY_LOCK_TIMEOUT", "")
        raise fail(f"EVERBOT_MEMORY_LOCK_TIMEOUT={raw!r} is not a number of seconds")
    return value


def memory_at(path: Path, *, must_exist: bool = True) -> Memory:
    """The memory kept at ``path``; exits 1 when the file must exist and does not."""
    memory = Memory(path, lock_timeout=lock_timeout())
    if must_exist and not memory.exists():
        raise fail(f"no memory file at {path}; create one with `everbot-memory init`")
    return memory


def extracting_memory(
    path: Path,
    extractor: str | None,
    model: str | None,
    base_url: str | None,
    timeout: float | None,
) -> Memory:
    """The memory at ``path`` with the extractor settings a command's flags give."""
    return Memory(
        path,
        extractor,
        lock_timeout=lock_timeout(),
        model=model,
        base_url=base_url,
        timeout=timeout,
    )


def entry_line(entry: MemoryEntry) -> str:
    """One memory on one line: id, category, score, last activated, hits, @group, content."""
    first = " ".join(entry.content.split())
    if len(first) > 100:
        first = first[:99] + "…"
    group = f"@{entry.group} " if entry.group else ""
    return (
        f"[{entry.id}] {entry.category:<11} {entry.score:.2f}  "
        f"{entry.last_activated.date().isoformat()}  {entry.activation_count:>3}  {group}{first}"
    )


def say(quiet: bool, text: str) -> None:
    """Print ``text`` unless --quiet."""
    if not quiet:
        typer.echo(text)


@contextlib.contextmanager
def working(message: str, quiet: bool = False) -> Iterator[None]:
    """A spinner on stderr while slow work runs, only when a person is watching a terminal."""
    if quiet or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console  # rich honours NO_COLOR

    with Console(stderr=True).status(message):
        yield


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON, non-ASCII text as it is."""
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def print_merge(result: MergeResult, as_json: bool, quiet: bool = False) -> None:
    """Print what a merge changed, and each memory it forgot."""
    stats = result.stats
    if as_json:
        print_json(
            {
                **stats.as_dict(),
                "total": len(result.entries),
                "forgotten_entries": [entry_json(e) for e in stats.forgotten_entries],
            }
        )
        return
    say(
        quiet,
        f"new {stats.new}, updated {stats.updated}, archived {stats.archived}, "
        f"forgotten {stats.forgotten}; {len(result.entries)} memories kept",
    )
    for entry in stats.forgotten_entries:
        say(quiet, f"forgot [{entry.id}] {entry.score:.3f}  {' '.join(entry.content.split())}")


def _one_of(values: tuple[str, ...]) -> Any:
    """An option callback accepting only ``values`` (shown as the option's metavar)."""

    def check(value: str | None) -> str | None:
        if value is not None and value not in values:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(values)}")
        return value

    return check


def choice(values: tuple[str, ...], *names: str, help: str) -> Any:
    """An option that takes one of ``values``."""
    return typer.Option(*names, metavar="|".join(values), callback=_one_of(values), help=help)


CategoryOption = Annotated[
    str,
    choice(CATEGORIES, "--category", "-c", help="The kind of memory."),
]


def group_name(value: str | None) -> str | None:
    """Check a ``--group`` naming one group: a bad one is bad usage (exit 2)."""
    if value is None:
        return None
    from ...facade.memory import check_group_name

    problem = check_group_name(value)
    if problem:
        raise typer.BadParameter(problem)
    return value


GroupFilterOption = Annotated[
    str | None,
    typer.Option(
        "--group",
        "-g",
        help="Only memories of this group (work, life, ...; several comma-separated; "
        "none: memories without one).",
    ),
]


ExtractorOption = Annotated[
    str | None,
    choice(
        EXTRACTORS,
        "--extractor",
        help="Which extractor reads sessions: anthropic (alias claude; needs ANTHROPIC_API_KEY "
        "or a --base-url), claude-cli (your claude program; uses your Claude usage), openai "
        "(an OpenAI-compatible server), rules (offline), auto (anthropic when the key is set, "
        "else rules). Default: the config files, then $EVERBOT_MEMORY_EXTRACTOR, else auto.",
    ),
]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="The LLM extractor's model (default: the config files, $EVERBOT_MEMORY_MODEL, "
        "else the backend's own).",
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        metavar="URL",
        help="The server an LLM extractor talks to, e.g. http://localhost:11434/v1 for an "
        "OpenAI-compatible one (default: the config files, $EVERBOT_MEMORY_BASE_URL).",
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=0.1,
        help="How long an LLM extractor waits for one answer (default: the config files, "
        "$EVERBOT_MEMORY_TIMEOUT, else 60).",
    ),
]


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"everbot-memory {version('everbot-memory')}")
        raise typer.Exit()


#: The commands that take a project's sessions as the hooks do: their default memory is
#: already the user's own, with the project's beside it, so ``--user`` leaves it to them
#: rather than naming one file (which would feed a project's memories to the user's).
_ROUTING = frozenset({"sweep", "hook"})

_user_chosen = False


def user_chosen() -> bool:
    """True when ``--user`` chose the user's own memory for this command."""
    return _user_chosen


@app.callback()
def _main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
    user: Annotated[
        bool,
        typer.Option(
            "--user",
            help="Use your own memory, the one the Claude Code hooks keep, as the command's "
            "default --file ($EVERBOT_MEMORY_USER_FILE, else "
            "~/.local/share/everbot-memory/MEMORY.md): everbot-memory --user list.",
        ),
    ] = False,
) -> None:
    """Long-term memory for LLM agents, kept in one human-readable MEMORY.md."""
    global _user_chosen
    _user_chosen = user
    if user:
        from ...facade.locations import user_memory_path

        path = user_memory_path()
        with contextlib.suppress(OSError):  # a folder that cannot be made: the command says so
            path.parent.mkdir(parents=True, exist_ok=True)
        if ctx.invoked_subcommand in _ROUTING:
            os.environ.pop("EVERBOT_MEMORY_FILE", None)
        else:
            # Read by every command's --file as its default; a --file given still wins.
            os.environ["EVERBOT_MEMORY_FILE"] = str(path)


def needs_extra(exc: ModuleNotFoundError, what: str, extra: str) -> typer.Exit:
    """The one-line error for ``what`` run without its optional ``extra`` (the package that
    was missing named), with how to install the extra from a clone or the repository's URL."""
    missing = (exc.name or extra).split(".")[0]
    return fail(
        f"{what} needs the '{missing}' package (the {extra} extra): "
        f"pip install -e '.[{extra}]' in a clone, "
        f"or pip install 'everbot-memory[{extra}] @ git+<repository URL>'"
    )


def main() -> None:
    """Entry point of the ``everbot-memory`` console script."""
    app(prog_name="everbot-memory")
