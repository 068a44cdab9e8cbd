"""The ``everbot-memory`` command's entry point.

``everbot-memory hook claude-code [--file F]`` runs at every session start and every prompt,
so it goes straight to the hook (:mod:`.hooks`) without loading the command-line app; so does
a plain ``everbot-memory recall QUERY`` (:mod:`.recall`) and a plain ``everbot-memory remember
TEXT`` (:mod:`.remember`), often the one call of a new process.
Every other command, and any other form of these (``--help``), goes to the app (:mod:`.cli`).
"""

from __future__ import annotations

import sys

__all__ = ["main", "run"]


def _hook_file(args: list[str]) -> tuple[bool, str | None]:
    """Whether ``args`` are a plain hook call, and the ``--file`` it names."""
    if args[:2] != ["hook", "claude-code"]:
        return False, None
    rest = args[2:]
    if not rest:
        return True, None
    if len(rest) == 2 and rest[0] in ("--file", "-f") and rest[1]:
        return True, rest[1]
    if len(rest) == 1 and rest[0].startswith("--file=") and len(rest[0]) > len("--file="):
        return True, rest[0][len("--file=") :]
    return False, None


def main() -> None:
    """Run the command given on the command line."""
    plain, file = _hook_file(sys.argv[1:])
    if plain:
        from .hooks import handle_claude_code, in_extractor_child

        if in_extractor_child():
            return  # run by an extractor's own program: nothing to inject, nothing to queue
        result = handle_claude_code(sys.stdin.read(), file)
        if result.stdout:
            sys.stdout.write(result.stdout + "\n")
        if result.stderr:
            sys.stderr.write(result.stderr + "\n")
        sys.stdout.flush()
        return
    if sys.argv[1:2] == ["recall"]:
        from .recall import run

        if run(sys.argv[1:]):
            return
    if sys.argv[1:2] == ["remember"]:
        import gc

        from .remember import run as remember

        # One merge, and the process ends without freeing what it built (see run): the
        # collector, back on after the merge, would only walk the millions of objects a
        # large file makes (a tenth of a second at 100,000 memories), for nothing.
        gc.disable()
        status = remember(sys.argv[1:])
        if status is not None:
            sys.exit(status)
        gc.enable()  # not a plain remember: the app runs as always
    from .cli import main as cli_main

    cli_main()


def run() -> None:
    """:func:`main`, for the installed command and ``python -m everbot_memory``: once the
    command is done (its exit handlers run, its output flushed), the process ends without
    freeing what it built. A command on a file of 100,000 memories holds millions of objects,
    and freeing them one by one at exit took a quarter of a second, for nothing."""
    try:
        main()
    except SystemExit as stop:
        if stop.code is not None and not isinstance(stop.code, int):
            raise  # a message to print: the interpreter's own exit prints it
        _leave(stop.code or 0)
    _leave(0)


def _leave(code: int) -> None:
    import atexit
    import os
    import threading

    if threading.active_count() > 1:
        sys.exit(code)  # a thread still running: the interpreter waits for it
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: started with the stream closed
                stream.flush()
        except (OSError, ValueError):
            sys.exit(code)  # a closed pipe: reported as the interpreter reports it
    os._exit(code)
