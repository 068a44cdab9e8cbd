"""Commands that carry the memory between machines with git: merge-driver, git-setup, sync."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...errors import EverbotMemoryError
from .app import (
    DEFAULT_FILE,
    FileOption,
    JsonOption,
    QuietOption,
    app,
    lock_timeout,
    print_json,
    reporting,
    say,
)

__all__ = ["git_setup", "merge_driver", "sync"]

#: git takes an exit status above 128 from a merge driver as a failure of the merge itself (it
#: stops), where 1 would mean "merged, with conflicts" and keep whatever the file holds.
_DRIVER_FAILED = 255


@app.command("merge-driver")
def merge_driver(
    base: Annotated[
        Path, typer.Argument(metavar="BASE", help="The common ancestor's version (git's %O).")
    ],
    ours: Annotated[
        Path,
        typer.Argument(
            metavar="OURS", help="This side's version (%A); the merged file is written here."
        ),
    ],
    theirs: Annotated[Path, typer.Argument(metavar="THEIRS", help="The other side's (%B).")],
    marker_size: Annotated[
        int,
        typer.Argument(metavar="[MARKER_SIZE]", min=1, help="Conflict marker length (%L)."),
    ] = 7,
    path: Annotated[
        str | None,
        typer.Argument(metavar="[PATH]", help="The file's path in the repository (%P)."),
    ] = None,
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
) -> None:
    """Merge three versions of MEMORY.md memory by memory: the merge driver git runs (set up
    by git-setup). Exit 0: merged; 1: merged, with a conflict left in the file for a person."""
    from ...facade import sync as service  # here: every command's start stays light

    name = path or file.name
    # git runs its merge drivers at the top of the work tree, and gives the file's path there.
    memory = Path.cwd() / path if path else None
    try:
        report = service.merge_files(
            base, ours, theirs, marker_size=marker_size, name=name, memory=memory
        )
    except EverbotMemoryError as exc:
        typer.echo(f"everbot-memory: {exc}", err=True)
        raise typer.Exit(_DRIVER_FAILED) from None
    if as_json:
        print_json({**vars(report), "clean": report.clean})
    for line in report.conflicts:
        typer.echo(f"everbot-memory: {line}", err=True)
    if not report.clean:
        raise typer.Exit(1)


@app.command("git-setup")
def git_setup(
    file: FileOption = DEFAULT_FILE, as_json: JsonOption = False, quiet: QuietOption = False
) -> None:
    """Make git merge MEMORY.md memory by memory in the repository that holds it:
    .gitattributes, this clone's git config, and .gitignore for the side files."""
    from ...facade import sync as service  # here: every command's start stays light

    with reporting():
        report = service.git_setup(file)
    note = (
        "git never commits or clones its config: run `everbot-memory git-setup` once in every "
        "clone (`everbot-memory doctor` warns where it is missing), and commit "
        f"{report.attributes.name} and {report.ignore.name}"
    )
    if as_json:
        print_json(
            {
                "repository": str(report.repository),
                "attributes": str(report.attributes),
                "ignore": str(report.ignore),
                "driver": report.driver,
                "changed": report.changed,
                "note": note,
            }
        )
        return
    for line in report.changed:
        say(quiet, f"set {line}")
    if not report.changed:
        say(quiet, f"{report.repository}: already set up")
    say(quiet, note)


@app.command()
def sync(
    file: FileOption = DEFAULT_FILE,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
    after_pull: Annotated[
        bool,
        typer.Option(
            "--after-pull",
            hidden=True,
            help="Run by git's post-merge hook (git-setup writes it): tell the engine what a "
            "pull brought, then stop.",
        ),
    ] = False,
) -> None:
    """Commit MEMORY.md if it changed, merge the remote branch into it (memory by memory),
    and push: for a memory kept in a git repository of its own."""
    from ...facade import sync as service  # here: every command's start stays light

    if after_pull:
        with reporting():
            service.record_pull(file)
        return
    with reporting():
        report = service.sync(file, lock_timeout=lock_timeout())
    if as_json:
        print_json({**vars(report), "repository": str(report.repository)})
        return
    say(quiet, f"committed {file.name}" if report.committed else f"{file.name}: nothing to commit")
    pulled = {
        "up to date": f"{report.upstream}: nothing new",
        "fast-forward": f"took the changes from {report.upstream}",
        "merged": f"merged the changes from {report.upstream}",
        "new": f"{report.upstream} does not exist yet",
    }[report.pulled]
    say(quiet, pulled)
    say(quiet, f"pushed to {report.upstream}" if report.pushed else "nothing to push")
