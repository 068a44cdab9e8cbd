"""A git merge in progress in the repository that holds a memory file.

While git merges, rebases or cherry-picks the repository that holds the file, or the file
holds a conflict left for a person, the file is git's and that person's: a save would write
the engine's view over their half-done merge (or fold a conflict's text into memories).
Every writer goes through save, so every writer refuses here, and says why.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import StoreError

__all__ = ["git_dir", "git_operation", "refuse_while_merging"]

_IN_PROGRESS = (
    ("MERGE_HEAD", "a merge"),
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
)


def git_dir(folder: Path) -> Path | None:
    """The git directory of the work tree holding ``folder`` (a linked work tree's own)."""
    folder = folder.absolute()
    for place in (folder, *folder.parents):
        dot_git = place / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return None
            if line.startswith("gitdir:"):
                return (place / line[len("gitdir:") :].strip()).resolve()
            return None
    return None


def git_operation(path: Path) -> str | None:
    """What git is in the middle of ("a merge", "a rebase", ...) in the repository that
    tracks the file at ``path``; None when nothing is in progress there, or git does not
    track the file (a merge in a repository the file only sits in is not its business)."""
    found = git_dir(path.parent)
    if found is None:
        return None
    doing = next((what for name, what in _IN_PROGRESS if (found / name).exists()), None)
    if doing is None:
        return None
    import subprocess  # here: only when a merge is in progress

    try:
        tracked = subprocess.run(
            ["git", "-C", str(path.parent), "ls-files", "--", path.name],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return doing  # git cannot say: assume the file is part of it
    if tracked.returncode == 0 and not tracked.stdout.strip():
        return None
    return doing


def refuse_while_merging(path: Path, text: str) -> None:
    """Raise :class:`StoreError` when git is merging the file, or it holds a conflict."""
    doing = git_operation(path)
    if doing is not None:
        raise StoreError(
            f"not writing {path}: {doing} is in progress in its git repository; finish it "
            "(`git status` says how) or abort it, then try again",
            path,
        )
    if "<<<<<<<" not in text:
        return  # the usual case: no conflict, and no three-way merge code to import
    from ..document.merge3 import conflict_line

    line = conflict_line(text)
    if line is not None:
        raise StoreError(
            f"not writing {path}: it holds a merge conflict at line {line} (between <<<<<<< "
            "and >>>>>>>); keep the right text, delete the marker lines, then try again",
            path,
        )
