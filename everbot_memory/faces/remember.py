"""``everbot-memory remember TEXT`` without the command-line app.

Scripts and agents run ``remember`` in a new process, where loading typer and the whole
facade cost more than the merge itself. So its plain form (``remember TEXT [-c CATEGORY]
[-i IMPORTANCE] [-g GROUP] [-f FILE] [--json] [-q]``, each option also as ``--name=value``)
calls :func:`everbot_memory.facade.remember.remember_file` and prints what the ``remember``
command prints, with its exit status and its one-line errors. Anything else (``--help``, an
option it does not know, a value the command would refuse, a second TEXT) is left to the app,
which reports every mistake of usage; this path writes nothing before it is sure the app
would have got as far.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NamedTuple

__all__ = ["Remember", "plain_remember", "run"]

_OPTIONS = {
    "--category": "category",
    "-c": "category",
    "--importance": "importance",
    "-i": "importance",
    "--group": "group",
    "-g": "group",
    "--file": "file",
    "-f": "file",
}
_FLAGS = {"--json": "as_json", "--quiet": "quiet", "-q": "quiet"}


class Remember(NamedTuple):
    """A plain ``remember``: its TEXT and options as given."""

    text: str
    category: str = "fact"
    importance: str = "medium"
    group: str | None = None
    file: str | None = None
    as_json: bool = False
    quiet: bool = False


def plain_remember(args: list[str]) -> Remember | None:
    """The call when ``args`` are a plain remember, else None (the app's to run)."""
    if not args or args[0] != "remember":
        return None
    given: dict[str, str | bool] = {}
    text: str | None = None
    rest = args[1:]
    while rest:
        arg, rest = rest[0], rest[1:]
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _OPTIONS:
            if not equals:
                if not rest:
                    return None
                value, rest = rest[0], rest[1:]
            if not value or value.startswith("-"):
                return None  # the app reads these its own way, or says what is wrong
            given[_OPTIONS[name]] = value
        elif arg in _FLAGS:
            given[_FLAGS[arg]] = True
        elif arg.startswith("-") or text is not None:
            return None
        else:
            text = arg
    if text is None:
        return None
    return Remember(text, **given)  # type: ignore[arg-type]


def _echo(text: str, err: bool = False) -> None:
    """Print a line as the app's ``typer.echo`` does."""
    stream = sys.stderr if err else sys.stdout
    encoding = (getattr(stream, "encoding", None) or "ascii").replace("_", "-").lower()
    if "\x1b" in text or encoding not in ("utf-8", "utf8"):
        # Colour codes stripped when not on a terminal, another encoding: click's own rules.
        import typer

        typer.echo(text, err=err)
        return
    stream.write(text + "\n")
    stream.flush()


def run(args: list[str]) -> int | None:
    """Run ``args`` if they are a plain remember the app would accept, and return the exit
    status; None to leave them to the command-line app."""
    call = plain_remember(args)
    if call is None:
        return None
    if not call.text.strip():
        return None  # the app says TEXT is empty
    try:
        call.text.encode("utf-8")
    except UnicodeEncodeError:
        return None  # the app says what the text holds
    from ..facade.remember import CATEGORIES, IMPORTANCES, check_group_name

    if call.category not in CATEGORIES or call.importance not in IMPORTANCES:
        return None
    if call.group is not None and check_group_name(call.group):
        return None
    from ..facade.remember import lock_timeout_setting

    timeout = lock_timeout_setting()
    if timeout is None:
        return None
    # The app's --file default: $EVERBOT_MEMORY_FILE when set (and not empty), else ./MEMORY.md.
    path = Path(call.file or os.environ.get("EVERBOT_MEMORY_FILE") or "MEMORY.md")
    from ..errors import EverbotMemoryError
    from ..facade.remember import remember_file
    from .entries import remembered

    try:
        try:
            entry, result = remember_file(
                path,
                call.text,
                call.category,
                call.importance,
                group=call.group,
                session_id="cli",
                lock_timeout=timeout,
            )
        except EverbotMemoryError as exc:
            _echo(f"everbot-memory: {exc}", err=True)
            return 1
        if call.as_json or not call.quiet:
            _echo(remembered(entry, result, call.as_json))
    except (EOFError, KeyboardInterrupt):
        # As the app: a new line, then the one-line report.
        _echo("", err=True)
        _echo("everbot-memory: aborted", err=True)
        return 1
    except BrokenPipeError:
        # The reader went away (``| head``): as the app, exit 1 without a word, and keep
        # Python from failing again when it flushes standard output at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0
