"""``everbot-memory recall QUERY`` without the command-line app.

A search is often the one thing a script or an agent runs in a new process, so its plain form
(``recall QUERY [-k N | --top N] [--file F | -f F] [--json] [--peek]``) skips typer and the
rest of the command: it reads the index cache beside the file and prints what the ``recall``
command prints. Any other form (``--use``, ``--semantic``, ``--help``, an option it does not
know, a file that is not there) is left to the app, which also reports every error.
"""

from __future__ import annotations

import os
import sys

__all__ = ["plain_recall", "run"]


def plain_recall(args: list[str]) -> tuple[str, int, str | None, bool] | None:
    """``(query, k, file, as_json)`` when ``args`` are a plain recall, else None."""
    if not args or args[0] != "recall":
        return None
    query: str | None = None
    k, file, as_json = 5, None, False
    rest = args[1:]
    while rest:
        arg, rest = rest[0], rest[1:]
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in ("--file", "-f", "--top", "-k"):
            if not equals:
                if not rest:
                    return None
                value, rest = rest[0], rest[1:]
            if name in ("--file", "-f"):
                if not value:
                    return None
                file = value
            elif value.isdigit() and int(value) >= 1:
                k = int(value)
            else:
                return None
        elif arg == "--json":
            as_json = True
        elif arg == "--peek":
            pass  # accepted for old scripts: a search reads
        elif arg.startswith("-") or query is not None:
            return None
        else:
            query = arg
    return None if query is None else (query, k, file, as_json)


def run(args: list[str]) -> bool:
    """Run ``args`` if they are a plain recall of an existing file; False to leave them to the
    command-line app."""
    call = plain_recall(args)
    if call is None:
        return False
    query, k, file, as_json = call
    # The app's --file default: $EVERBOT_MEMORY_FILE when set (and not empty), else ./MEMORY.md.
    path = file or os.environ.get("EVERBOT_MEMORY_FILE") or "MEMORY.md"
    if not os.path.isfile(path):
        return False  # the app says there is no memory file, and how to make one
    from ..errors import EverbotMemoryError
    from ..facade.search import notes_for, recall_file
    from .hits import NO_MATCH, NOTES_HEADING, hit_json, hit_line, note_line

    try:
        hits = recall_file(path, query, k)
        notes = [] if as_json else notes_for(path, query, k)
    except EverbotMemoryError:
        return False  # the app runs the search again and reports the error its way
    if as_json:
        import json

        text = json.dumps([hit_json(h) for h in hits], ensure_ascii=False, indent=2)
    else:
        lines = [hit_line(h) for h in hits]
        if notes:
            lines += [NOTES_HEADING, *(note_line(n) for n in notes)]
        text = "\n".join(lines) if lines else NO_MATCH
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return True
