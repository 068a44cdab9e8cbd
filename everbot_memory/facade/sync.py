"""One memory on many machines, with git carrying the file: the merge driver, ``git-setup``,
``sync``, and doctor's check of the repository.

git merges MEMORY.md line by line unless told otherwise; ``git-setup`` tells it (in
``.gitattributes``, which is committed) to use ``everbot-memory merge-driver``, which merges the
file memory by memory (:mod:`everbot_memory.document.merge3`), and names that command in the
clone's own git config, which git never commits or clones: each clone runs ``git-setup`` once.

``sync`` is for a memory kept in a repository of its own (a person's memory on a laptop and a
desktop): it commits the file when it changed, fetches, merges the remote branch (through the
driver) and pushes. It holds the writers' lock while git changes the file, and refuses to run
during a merge or rebase, or while the file holds a conflict for a person; the store refuses to
write the file then too (:func:`everbot_memory.storage.git_state.git_operation`).
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..core.clock import utcnow
from ..document.merge3 import conflict_line, merge_texts
from ..errors import EverbotMemoryError, NotTextError
from ..storage.atomic import digest, write_atomically
from ..storage.git_state import git_dir, git_operation
from ..storage.journal import Journal
from ..storage.locations import MEMORY_MARKS, is_memory_text
from ..storage.lock import DEFAULT_LOCK_TIMEOUT
from ..storage.paths import SideFiles
from ..storage.store import MemoryStore, decode
from .reports import GitCheck

__all__ = [
    "DRIVER",
    "DriverReport",
    "GitSetup",
    "SyncReport",
    "check_git",
    "git_setup",
    "merge_files",
    "record_pull",
    "sync",
]

#: The merge driver's name, in ``.gitattributes`` (``MEMORY.md merge=everbot-memory``) and in
#: git config (``merge.everbot-memory.driver``).
DRIVER = "everbot-memory"
_DRIVER_ARGS = "merge-driver %O %A %B %L %P"
#: How many times sync fetches, merges and pushes again when the remote moved meanwhile.
_PUSH_ATTEMPTS = 3


# -- running git


def _git(folder: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    """``git -C folder args``; its messages in English, so that they can be read."""
    env = {**os.environ, "LC_ALL": "C", "LANGUAGE": ""}
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
        )
    except OSError as exc:
        raise EverbotMemoryError(f"cannot run git ({exc.strerror}); is it installed?") from exc
    if check and done.returncode != 0:
        raise EverbotMemoryError(f"git {args[0]} failed: {_said(done)}")
    return done


def _said(done: subprocess.CompletedProcess[str]) -> str:
    """What git said was wrong, on one line: its first ``fatal:`` or ``error:`` line, else its
    last line."""
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line[len(prefix) :]
    return lines[-1] if lines else f"exit status {done.returncode}"


#: What marks a memory file (SPEC §1): its title or one of its sections.
def _repository(folder: Path) -> Path | None:
    """The top of the work tree holding ``folder``; None when there is none."""
    if not folder.is_dir() or git_dir(folder) is None:
        return None
    done = _git(folder, "rev-parse", "--show-toplevel")
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def _config(folder: Path, key: str) -> str | None:
    done = _git(folder, "config", "--get", key)
    value = done.stdout.strip() if done.returncode == 0 else ""
    return value or None


# -- the merge driver


@dataclass
class DriverReport:
    """What ``merge-driver`` did to git's three versions of the file."""

    #: True: merged memory by memory; False: the versions could not be read as memory files,
    #: so they were merged line by line, with conflict markers where they differ.
    by_memory: bool
    #: What is left for a person, one line each; empty when the merge is clean.
    conflicts: list[str] = field(default_factory=list)
    entries: int = 0
    added: int = 0
    deleted: int = 0
    combined: int = 0
    folded: int = 0

    @property
    def clean(self) -> bool:
        """True when git may take the result as merged (exit status 0)."""
        return not self.conflicts


def merge_files(
    base: Path,
    ours: Path,
    theirs: Path,
    *,
    marker_size: int = 7,
    name: str = "MEMORY.md",
    memory: Path | None = None,
    now: datetime | None = None,
) -> DriverReport:
    """Merge git's three versions of the file (``%O %A %B``), leaving the result in ``ours``.

    Versions that cannot be read as memory files (not UTF-8 text, or a result that would not
    read back) are merged line by line with standard conflict markers, and the report says
    so: never one side taken whole. ``memory``: the file in the work tree the merge is for,
    whose journal learns what the result came from (see :func:`_descends`).
    """
    try:
        data = [path.read_bytes() for path in (base, ours, theirs)]
    except OSError as exc:
        raise EverbotMemoryError(f"cannot read {exc.filename}: {exc.strerror}") from exc
    paths = (base, ours, theirs)
    reason: str | None = None
    texts: list[str] = []
    for item, side in zip(data, ("base", "ours", "theirs"), strict=True):
        # Said by side: git names its copies with temporary files (".merge_file_a1b2c3").
        if b"\0" in item:
            reason = f"the {side} version is a binary file"
            break
        try:
            texts.append(item.decode("utf-8"))
        except UnicodeDecodeError as exc:
            reason = f"the {side} version is not UTF-8 text (bad byte at offset {exc.start})"
            break
    else:
        # Text that is not a memory file (another document committed under its name): merged
        # by memory, it would read as every memory deleted. Line by line, for a person.
        other = next((p for p, t in zip(paths, texts, strict=True) if not is_memory_text(t)), None)
        if other is not None:
            reason = (
                f"{other.name} is not a memory file: its first heading is not {MEMORY_MARKS[0]}"
            )
    if reason is None:
        outcome = merge_texts(
            *texts, now=(now or utcnow()).replace(microsecond=0), marker_size=marker_size
        )
        if outcome.text is not None:
            result = outcome.text.encode("utf-8")
            if result != data[1]:
                _write(ours, result)
            if memory is not None:
                _descends(memory, result, data[1], data[2])
            return DriverReport(
                True,
                [f"{name}: {line}" for line in outcome.conflicts],
                outcome.entries,
                outcome.added,
                outcome.deleted,
                outcome.combined,
                outcome.folded,
            )
        reason = outcome.reason
    merged, conflicted = _line_merge(base, ours, theirs, marker_size, name)
    _write(ours, merged)
    # Left for a person either way: git takes a clean line merge of a file the engine could
    # not read as memories on trust, and a person should look at it before it is committed.
    how = (
        "with conflict markers where they differ: keep the right lines"
        if conflicted
        else "without conflict markers: check it"
    )
    said = (
        f"{name} could not be merged memory by memory ({reason}); merged line by line, {how}, "
        f"then `git add {name}`"
    )
    return DriverReport(False, [said])


def _descends(memory: Path, data: bytes, mine: bytes, *others: bytes) -> None:
    """Tell the memory's journal that git's ``data`` came from ``mine`` (this clone's copy
    before) and ``others``.

    The engine takes a file it did not write for an editor's save, and merges it with its own
    newest version from their common ancestor; with none known it keeps what either holds,
    which would bring back a memory the other machine deleted. Recording where a merged or
    pulled file came from gives the engine that ancestor.
    """
    if memory.parent.is_dir():
        Journal(memory).descends(data, mine, *others)


def _write(path: Path, data: bytes) -> None:
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise EverbotMemoryError(f"cannot write {path}: {exc.strerror}") from exc


def _line_merge(base: Path, ours: Path, theirs: Path, size: int, name: str) -> tuple[bytes, bool]:
    """git's own line merge of the three files (with conflict markers), and whether it left
    conflicts; both sides whole between markers when git cannot merge them (binary)."""
    labels = [f"{name} (ours)", f"{name} (base)", f"{name} (theirs)"]
    try:
        done = subprocess.run(
            [
                "git",
                "merge-file",
                "-p",
                f"--marker-size={size}",
                *(arg for label in labels for arg in ("-L", label)),
                str(ours),
                str(base),
                str(theirs),
            ],
            capture_output=True,
        )
    except OSError:
        done = None
    if done is not None and 0 <= done.returncode < 128:
        return done.stdout, done.returncode > 0
    sides = ours.read_bytes(), theirs.read_bytes()
    body = [
        f"{'<' * size} {labels[0]}\n".encode(),
        sides[0] if sides[0].endswith(b"\n") else sides[0] + b"\n",
        f"{'=' * size}\n".encode(),
        sides[1] if sides[1].endswith(b"\n") else sides[1] + b"\n",
        f"{'>' * size} {labels[2]}\n".encode(),
    ]
    return b"".join(body), True


# -- git-setup


@dataclass
class GitSetup:
    """What ``git-setup`` did in the repository holding a memory file."""

    repository: Path
    attributes: Path
    ignore: Path
    #: The command git now runs to merge the file.
    driver: str
    #: What changed, one line each (empty: everything was already set up).
    changed: list[str] = field(default_factory=list)


def _program() -> str:
    """The command that runs this installation's ``everbot-memory``."""
    from .install import PROGRAM, find_program

    return shlex.quote(find_program() or PROGRAM)


def _with_lines(path: Path, lines: list[str], header: str) -> bool:
    """Add to the text file at ``path`` the ``lines`` it lacks (under ``header``); True when
    it changed. The rest of the file is kept as it is."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise EverbotMemoryError(f"cannot read {path}: {exc}") from exc
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in lines if line not in present]
    if not missing:
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    if text:
        text += "\n"
    text += header + "\n" + "".join(line + "\n" for line in missing)
    try:
        write_atomically(path, text.encode("utf-8"), mode=0o644 if not path.exists() else None)
    except OSError as exc:
        raise EverbotMemoryError(f"cannot write {path}: {exc.strerror}") from exc
    return True


def _pattern(name: str) -> str:
    """``name`` as a .gitattributes pattern (quoted when it holds a space)."""
    return f'"{name}"' if any(c.isspace() or c == '"' for c in name) else name


def git_setup(memory_path: str | os.PathLike[str]) -> GitSetup:
    """Make git merge the memory file with ``everbot-memory merge-driver`` in the repository
    that holds it: the attribute in ``.gitattributes`` beside it, the driver in this clone's
    git config, and the side files in ``.gitignore``. Running it again changes nothing."""
    path = Path(memory_path).absolute()
    folder = path.parent
    repo = _repository(folder)
    if repo is None:
        raise EverbotMemoryError(
            f"{folder} is not in a git repository; run `git init` there first (see the README: "
            "Many machines)"
        )
    name = path.name
    changed: list[str] = []
    attributes, ignore = folder / ".gitattributes", folder / ".gitignore"
    rule = f"{_pattern(name)} merge={DRIVER}"
    if _with_lines(attributes, [rule], f"# {name} is merged memory by memory (everbot-memory)"):
        changed.append(f"{attributes}: {rule}")
    side = SideFiles.of(path)
    hidden = [f"/{side.folder.name}/", f"/.{name}.displaced.*"]
    if _with_lines(ignore, hidden, f"# everbot-memory's files beside {name}, rebuilt from it"):
        changed.append(f"{ignore}: {' '.join(hidden)}")
    driver = f"{_program()} {_DRIVER_ARGS}"
    settings = {
        f"merge.{DRIVER}.name": f"everbot-memory: {name} merged memory by memory",
        f"merge.{DRIVER}.driver": driver,
    }
    for key, value in settings.items():
        if _config(folder, key) != value:
            _git(folder, "config", "--local", key, value, check=True)
            changed.append(f"git config {key} {value}")
    hook = _post_merge_hook(folder, path)
    if hook:
        changed.append(hook)
    return GitSetup(repo, attributes, ignore, driver, changed)


#: Marks the post-merge hook git-setup writes, so that it is updated, never another one.
_HOOK_MARK = "# everbot-memory: after a pull"


def _post_merge_hook(folder: Path, path: Path) -> str:
    """Install the clone's ``post-merge`` hook that tells the journal what a pull brought (a
    fast-forward runs no merge driver); what changed ("" for nothing). Another hook already
    there is left alone, and the line to add to it is said."""
    where = _git(folder, "rev-parse", "--git-path", "hooks/post-merge").stdout.strip()
    if not where:
        return ""
    hook = Path(where) if os.path.isabs(where) else folder / where
    line = f"{_program()} sync --after-pull --quiet --file {shlex.quote(str(path))} || true"
    text = f"#!/bin/sh\n{_HOOK_MARK} (a fast-forward runs no merge driver)\n{line}\n"
    try:
        old = hook.read_text(encoding="utf-8") if hook.exists() else None
    except (OSError, UnicodeDecodeError):
        old = ""
    if old == text:
        return ""
    if old is not None and _HOOK_MARK not in old:
        return f"left {hook} as it is: add to it `{line}`"
    try:
        hook.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(hook, text.encode("utf-8"), mode=0o755)
    except OSError as exc:
        raise EverbotMemoryError(f"cannot write {hook}: {exc.strerror}") from exc
    return f"{hook}: {line}"


def record_pull(memory_path: str | os.PathLike[str]) -> bool:
    """After a pull (git's ``post-merge`` hook): tell the memory's journal that the file now
    in the work tree came from the one committed before the pull, so that the engine's next
    save merges from that ancestor instead of keeping what either holds (which would bring
    back a memory the other machine forgot). True when there was something to record."""
    path = Path(memory_path).absolute()
    repo = _repository(path.parent)
    if repo is None or not path.exists():
        return False
    relative = path.resolve().relative_to(repo.resolve()).as_posix()
    before = subprocess.run(
        ["git", "-C", str(repo), "show", f"ORIG_HEAD:{relative}"],
        capture_output=True,
        check=False,
    )
    if before.returncode != 0:
        return False  # no file before the pull, or no pull: nothing to say
    now = path.read_bytes()
    if now == before.stdout:
        return False
    _descends(path, now, before.stdout)
    return True


# -- doctor


def check_git(memory_path: str | os.PathLike[str]) -> GitCheck:
    """The git repository holding the memory file as ``doctor`` sees it: a problem when its
    ``.gitattributes`` names the merge driver but this clone's config lacks it, when a merge
    or rebase is in progress, or when the file holds an unresolved conflict. Never raises."""
    path = Path(memory_path).absolute()
    report = GitCheck()
    try:
        report.repository = _repository(path.parent)
    except EverbotMemoryError:
        return report  # no git program: nothing to check
    if report.repository is None:
        return report
    attribute = _git(path.parent, "check-attr", "merge", "--", path.name).stdout.strip()
    report.attribute = attribute.endswith(f": merge: {DRIVER}")
    report.driver = _config(path.parent, f"merge.{DRIVER}.driver")
    report.operation = git_operation(path)
    try:
        data = path.read_bytes()
        report.conflict = conflict_line(decode(data, path))
    except (OSError, NotTextError):
        pass  # a missing or unreadable file is reported by the rest of doctor
    if report.attribute and report.driver is None:
        report.problems.append(
            f".gitattributes merges {path.name} with {DRIVER}'s merge driver, but this clone's "
            "git config does not define it (git never clones its config), so git merges the "
            "file line by line: run `everbot-memory git-setup` here"
        )
    if report.operation is not None:
        report.problems.append(
            f"{report.operation} is in progress in {report.repository}: the engine will not "
            "write the file until it is finished (`git status` says how)"
        )
    if report.conflict is not None:
        report.problems.append(
            f"{path.name} holds a merge conflict at line {report.conflict}: keep the right "
            "text, delete the lines from <<<<<<< to >>>>>>>; the engine will not write the "
            "file until then"
        )
    return report


# -- sync


@dataclass
class SyncReport:
    """What ``sync`` did: committed the file, merged the remote branch, pushed."""

    repository: Path
    #: The remote branch synced with, as ``remote/branch``.
    upstream: str
    committed: bool = False
    #: "up to date", "fast-forward", "merged", or "new" (the remote had no such branch yet).
    pulled: str = "up to date"
    pushed: bool = False


def _tracking(folder: Path) -> tuple[str, str, bool]:
    """The remote and the branch there to sync with, and whether that is already the current
    branch's upstream."""
    branch = _git(folder, "symbolic-ref", "--quiet", "--short", "HEAD").stdout.strip()
    if not branch:
        raise EverbotMemoryError("not syncing: HEAD is not on a branch; `git switch` to one")
    remote = _config(folder, f"branch.{branch}.remote")
    merge = _config(folder, f"branch.{branch}.merge")
    if remote and merge and remote != ".":
        return remote, merge.removeprefix("refs/heads/"), True
    remotes = _git(folder, "remote").stdout.split()
    if not remotes:
        raise EverbotMemoryError(
            "not syncing: the repository has no remote to sync with; add one with "
            "`git remote add origin URL`"
        )
    if "origin" in remotes or len(remotes) == 1:
        return ("origin" if "origin" in remotes else remotes[0]), branch, False
    raise EverbotMemoryError(
        f"not syncing: {branch} has no upstream and there are several remotes "
        f"({', '.join(remotes)}); choose one with `git branch --set-upstream-to REMOTE/{branch}`"
    )


def _commit(folder: Path, name: str) -> bool:
    """Commit the memory file alone when it changed; True when it did."""
    if not _git(folder, "status", "--porcelain", "--", name, check=True).stdout.strip():
        return False
    _git(folder, "add", "--", name, check=True)
    host = socket.gethostname() or "this machine"
    done = _git(folder, "commit", "--quiet", "-m", f"Memory from {host}", "--", name)
    if done.returncode != 0:
        raise EverbotMemoryError(f"not syncing: cannot commit {name}: {_said(done)}")
    return True


def _head(folder: Path, ref: str = "HEAD") -> str | None:
    done = _git(folder, "rev-parse", "--verify", "--quiet", ref + "^{commit}")
    value = done.stdout.strip() if done.returncode == 0 else ""
    return value or None


def _settle(folder: Path, unmerged: list[str]) -> str:
    """How to settle the files a merge left unmerged: those with conflict markers are edited;
    one that a side deleted is kept or removed; one both sides changed that holds no markers
    (merged line by line, the driver could not read it) is checked."""
    top = _git(folder, "rev-parse", "--show-toplevel").stdout.strip()
    marked: list[str] = []
    gone: list[str] = []
    check: list[str] = []
    for name in unmerged:
        path = Path(top or folder) / name
        # The index's stages of the file: 2 is ours, 3 theirs; one missing, a side deleted it.
        stages = {
            line.split()[2]
            for line in _git(folder, "ls-files", "-u", "--", name).stdout.splitlines()
            if len(line.split()) > 2
        }
        try:
            held = "<<<<<<<" in path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            held = False  # deleted on one side (or unreadable): nothing to edit in it
        if held:
            marked.append(name)
        elif {"2", "3"} <= stages:
            check.append(name)
        else:
            gone.append(name)
    steps = []
    if marked:
        steps.append(
            f"edit {', '.join(marked)} (keep the right text, delete the lines from <<<<<<< "
            f"to >>>>>>>) and `git add {' '.join(marked)}`"
        )
    if check:
        steps.append(
            f"{', '.join(check)} was merged line by line without conflict markers: check it, "
            f"then `git add {' '.join(check)}`"
        )
    if gone:
        steps.append(
            f"{', '.join(gone)} was deleted on one side: keep it with `git add "
            f"{' '.join(gone)}` or drop it with `git rm {' '.join(gone)}`"
        )
    return "; ".join(steps)


def _pull(folder: Path, remote: str, branch: str) -> str:
    """Fetch the remote branch and merge it (through the driver); what happened."""
    fetched = _git(folder, "fetch", "--quiet", remote)
    if fetched.returncode != 0:
        raise EverbotMemoryError(f"cannot fetch from {remote}: {_said(fetched)}")
    ref = f"refs/remotes/{remote}/{branch}"
    theirs = _head(folder, ref)
    if theirs is None:
        return "new"
    before = _head(folder)
    done = _git(folder, "merge", "--no-edit", "--quiet", ref)
    if done.returncode != 0:
        unmerged = _git(folder, "diff", "--name-only", "--diff-filter=U").stdout.split()
        if unmerged:
            said = [
                line.split("everbot-memory: ", 1)[1]
                for line in done.stderr.splitlines()
                if "everbot-memory: " in line
            ]
            why = f" ({said[0]})" if said else ""
            raise EverbotMemoryError(
                f"the merge with {remote}/{branch} left a conflict for a person in "
                f"{', '.join(unmerged)}{why}: {_settle(folder, unmerged)}, then `git commit`, "
                "and sync again"
            )
        raise EverbotMemoryError(f"cannot merge {remote}/{branch}: {_said(done)}")
    after = _head(folder)
    if after == before:
        return "up to date"
    return "fast-forward" if after == theirs else "merged"


def _push(folder: Path, remote: str, branch: str, tracked: bool) -> bool | None:
    """Push to the remote branch: True pushed, False nothing to push, None rejected (the
    remote moved since the fetch)."""
    if _head(folder) == _head(folder, f"refs/remotes/{remote}/{branch}"):
        return False
    args = ["push", "--porcelain", *([] if tracked else ["--set-upstream"])]
    done = _git(folder, *args, remote, f"HEAD:refs/heads/{branch}")
    if done.returncode == 0:
        return True
    rejected = any(line.startswith("!") for line in done.stdout.splitlines())
    if rejected and "[remote rejected]" not in done.stdout:
        return None
    raise EverbotMemoryError(f"cannot push to {remote}: {_said(done)}")


def sync(
    memory_path: str | os.PathLike[str], *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
) -> SyncReport:
    """Commit the memory file if it changed, merge the remote branch into it, push.

    For a memory kept in a git repository with a remote, set up with :func:`git_setup`. The
    file is changed under the writers' lock. Raises :class:`EverbotMemoryError` with one line
    saying what to do: no repository or remote, no merge driver in this clone, a merge or
    rebase in progress, a conflict left for a person, a push rejected again and again.
    """
    path = Path(memory_path).absolute()
    folder, name = path.parent, path.name
    check = check_git(path)
    if check.repository is None:
        raise EverbotMemoryError(
            f"not syncing: {folder} is not in a git repository (see the README: Many machines)"
        )
    if check.operation is not None:
        raise EverbotMemoryError(
            f"not syncing: {check.operation} is in progress in {check.repository}; finish it "
            "(`git status` says how), then sync again"
        )
    if check.conflict is not None:
        raise EverbotMemoryError(
            f"not syncing: {name} holds a merge conflict at line {check.conflict}; keep the "
            "right text, delete the lines from <<<<<<< to >>>>>>>, commit, then sync again"
        )
    if not check.attribute or check.driver is None:
        raise EverbotMemoryError(
            f"not syncing: git would merge {name} line by line; run `everbot-memory git-setup` "
            "in this clone first"
        )
    remote, branch, tracked = _tracking(folder)
    report = SyncReport(check.repository, f"{remote}/{branch}")
    store = MemoryStore(path, lock_timeout=lock_timeout)
    with store.lock():  # no session writes the file while git commits it
        before = store.read_bytes()
        version = digest(before)
        if before is not None and version is not None and not store.journal.wrote(version):
            store.journal.observe(before, version)  # as any save would: a person's
        report.committed = _commit(folder, name)
    for _ in range(_PUSH_ATTEMPTS):
        with store.lock():  # nor while git merges into it
            before = store.read_bytes()
            pulled = _pull(folder, remote, branch)
            after = store.read_bytes()
            if before is not None and after is not None and after != before:
                _descends(path, after, before)
        if pulled != "up to date" or report.pulled == "up to date":
            report.pulled = pulled
        pushed = _push(folder, remote, branch, tracked)
        if pushed is not None:
            report.pushed = pushed
            return report
    raise EverbotMemoryError(
        f"the push to {remote}/{branch} was rejected {_PUSH_ATTEMPTS} times: the remote keeps "
        "changing; sync again"
    )
