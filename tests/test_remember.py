"""``everbot-memory remember`` in a new process: the fast path
(:mod:`everbot_memory.faces.remember`) prints, exits and writes exactly as the command-line app
does, without loading it; and the candidate checked by hand
(:mod:`everbot_memory.core.proposal`) is the one pydantic gives."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import filelock
import pytest
from conftest import FIXTURES

from everbot_memory import Memory
from everbot_memory.faces.remember import Remember, plain_remember
from everbot_memory.storage.paths import SideFiles

CANONICAL = FIXTURES / "memory" / "canonical.md"

# Runs the command as a new process would, with the ids and the clock fixed so that two runs
# on two copies of a file can be compared byte for byte. argv[1] says which way: "fast" goes
# through the command's entry point, "app" straight to the typer app.
_RUN = """
import json, os, sys
from freezegun import freeze_time

way, sys.argv = sys.argv[1], ["everbot-memory", *sys.argv[2:]]
# Frozen before the package is imported: freezegun looks through every loaded module when
# it starts, which would load all of the package's lazily exported names.
# (Not when a test waits for the lock: a frozen clock never times out.)
if not os.environ.get("UNFROZEN"):
    freeze_time("2026-03-02T10:00:00Z").start()
from everbot_memory.core import clock

numbers = iter(range(1, 10**6))
clock._random_bytes = lambda n: next(numbers).to_bytes(n, "big")
if way == "fast":
    from everbot_memory.faces.entry import main
else:
    from everbot_memory.faces.cli import main
try:
    main()
finally:
    heavy = {"typer", "click", "pydantic"}
    loaded = sorted({m.split(".")[0] for m in sys.modules} & heavy)
    with open(os.environ["LOADED_LIST"], "w") as handle:
        json.dump(loaded, handle)
"""


def _run(
    way: str, folder: Path, args: list[str], env: dict[str, str]
) -> tuple[tuple[int, str, str, str | None], list[str]]:
    """(exit status, stdout, stderr, the file after) and the heavy packages it loaded."""
    loaded = folder / "loaded.json"
    done = subprocess.run(
        [sys.executable, "-c", _RUN, way, *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, **env, "LOADED_LIST": str(loaded)},
        timeout=120,
    )
    path = folder / "MEMORY.md"
    text = path.read_text(encoding="utf-8") if path.exists() else None
    if text is not None:
        text = re.sub(r"<!-- Last updated: .* -->", "", text)
    stdout = done.stdout.replace(str(folder), "FOLDER")
    stderr = done.stderr.replace(str(folder), "FOLDER")
    return (done.returncode, stdout, stderr, text), json.loads(loaded.read_text())


def _both(
    tmp_path: Path, args: list[str], env: dict[str, str] | None = None, start: bool = True
) -> tuple[tuple[int, str, str, str | None], list[str]]:
    """Run ``args`` both ways, each on its own copy of the canonical file (or on no file);
    check they agree; return what the fast way gave and what it loaded."""
    results = []
    for way in ("fast", "app"):
        folder = tmp_path / way
        folder.mkdir()
        if start:
            (folder / "MEMORY.md").write_bytes(CANONICAL.read_bytes())
        results.append(_run(way, folder, args, env or {}))
    (fast, loaded), (app, _) = results
    assert fast == app
    return fast, loaded


@pytest.mark.parametrize(
    "args",
    [
        ["remember", "The user likes green tea."],
        ["remember", "The user's main language is Python; they use FastAPI at work."],
        ["remember", "用户喜欢简洁的代码风格", "-c", "preference", "-i", "high"],
        ["remember", "--json", "The user moved to Paris last year.", "--category=fact"],
        ["remember", "The user lives in Paris.", "--json"],
        ["remember", "-q", "The user plays chess on Sundays.", "--group", "life"],
        ["remember", "The user plays go.", "--group=Work", "--importance", "low", "--quiet"],
        ["remember", "The user plays go.", "--json", "--quiet"],
        ["remember", "  The user keeps notes in Obsidian.  ", "-f", "MEMORY.md"],
        ["remember", "The user's colour is \x1b[31mred\x1b[0m."],
        ["remember", "The user likes tea.", "-c", "fact", "-c", "preference"],
    ],
)
def test_a_plain_remember_runs_as_the_app_does_without_loading_it(
    tmp_path: Path, args: list[str]
) -> None:
    (status, stdout, stderr, _), loaded = _both(tmp_path, args)
    assert status == 0 and stderr == ""
    assert stdout or "-q" in args or "--quiet" in args
    # Colour codes in what is printed: click's own rules decide whether they stay.
    assert loaded == (["typer"] if "\x1b" in stdout or "\x1b" in args[1] else [])


@pytest.mark.parametrize(
    "args",
    [
        ["remember", "   "],
        ["remember", "x", "--category", "hobby"],
        ["remember", "x", "-i", "huge"],
        ["remember", "x", "--group", "two words"],
        ["remember", "x", "--group="],
        ["remember", "x", "--file="],
        ["remember"],
        ["remember", "x", "y"],
        ["remember", "x", "--bogus"],
        ["remember", "x", "-cpreference"],
        ["remember", "-x"],
        ["remember", "--", "-x"],
        ["remember", "x", "--group", "-q"],
        ["remember", "--help"],
        ["remember", "x", "-h"],
        ["remember", "x", "--category"],
        ["remember", "sk-ant-api03-" + "a" * 40],
        ["remember", "The user uses the key sk-ant-api03-" + "a" * 40 + " for tests."],
        ["remember", "bad \udcff byte"],
    ],
)
def test_every_other_remember_gets_the_apps_answer(tmp_path: Path, args: list[str]) -> None:
    (status, _, stderr, _), _ = _both(tmp_path, args)
    if status:
        assert stderr.startswith("everbot-memory: ") and stderr.count("\n") == 1


def test_a_new_file_is_made_alike(tmp_path: Path) -> None:
    (status, _, _, text), loaded = _both(tmp_path, ["remember", "The user likes tea."], start=False)
    assert status == 0 and text is not None and "The user likes tea." in text
    assert loaded == []


def test_the_file_from_the_environment_is_used_alike(tmp_path: Path) -> None:
    args = ["remember", "The user likes tea.", "--json"]
    (status, stdout, _, _), _ = _both(tmp_path, args, {"EVERBOT_MEMORY_FILE": "MEMORY.md"})
    assert status == 0 and json.loads(stdout)["new"] == 1


@pytest.mark.parametrize("timeout", ["soon", "-1", "nan"])
def test_a_bad_lock_timeout_gets_the_apps_answer(tmp_path: Path, timeout: str) -> None:
    (status, _, stderr, _), _ = _both(
        tmp_path, ["remember", "x"], {"EVERBOT_MEMORY_LOCK_TIMEOUT": timeout}
    )
    assert status == 1 and "EVERBOT_MEMORY_LOCK_TIMEOUT" in stderr


def test_a_lock_held_too_long_is_one_line_and_exit_1_both_ways(tmp_path: Path) -> None:
    results = []
    for way in ("fast", "app"):
        folder = tmp_path / way
        folder.mkdir()
        memory = folder / "MEMORY.md"
        memory.write_bytes(CANONICAL.read_bytes())
        with filelock.FileLock(str(SideFiles.of(memory).lock)):
            env = {"EVERBOT_MEMORY_LOCK_TIMEOUT": "0.1", "UNFROZEN": "1"}
            results.append(_run(way, folder, ["remember", "x"], env)[0])
        assert memory.read_bytes() == CANONICAL.read_bytes()
    assert results[0] == results[1]
    status, stdout, stderr, _ = results[0]
    assert status == 1 and stdout == "" and "being written by another process" in stderr


@pytest.mark.parametrize(
    "args, expected",
    [
        (["remember", "tea"], Remember("tea")),
        (
            ["remember", "-c", "preference", "tea", "-i", "high", "-g", "life", "-f", "M.md"],
            Remember("tea", "preference", "high", "life", "M.md"),
        ),
        (
            ["remember", "--category=skill_usage", "--importance=low", "--group=work", "tea"],
            Remember("tea", "skill_usage", "low", "work"),
        ),
        (
            ["remember", "tea", "--file=x.md", "--json", "-q"],
            Remember("tea", file="x.md", as_json=True, quiet=True),
        ),
        (["remember", "tea", "--quiet"], Remember("tea", quiet=True)),
        (["remember", "tea", "--file", "-"], None),
        (["remember", "tea", "-f"], None),
        (["remember", "tea", "--group="], None),
        (["remember", "tea", "--help"], None),
        (["remember", "tea", "--json=yes"], None),
        (["remember", "tea", "again"], None),
        (["remember", "-"], None),
        (["remember"], None),
        (["recall", "tea"], None),
        ([], None),
    ],
)
def test_only_a_plain_remember_skips_the_app(args: list[str], expected: Remember | None) -> None:
    assert plain_remember(args) == expected


@pytest.mark.parametrize(
    "content, category, importance, group",
    [
        ("The user likes tea.", "fact", "medium", None),
        ("  spaced out  ", "preference", "high", "work"),
        ("用户喜欢简洁的代码风格", "workflow", "low", "none"),
        ("x", "todo", "medium", "Life"),
        ("", "fact", "medium", None),
        ("   ", "fact", "medium", None),
        ("bad \udcff", "fact", "medium", None),
        ("x", "hobby", "medium", None),
        ("x", "fact", "huge", None),
        ("x", "fact", "medium", "two words"),
        ("x", "fact", "medium", 3),
        (3, "fact", "medium", None),
        ("x", None, "medium", None),
    ],
)
def test_a_proposal_is_what_the_candidate_would_be(
    content: object, category: object, importance: object, group: object
) -> None:
    from dataclasses import asdict

    from pydantic import ValidationError

    from everbot_memory.core.candidate import Candidate
    from everbot_memory.core.proposal import proposal

    made = proposal(content, category, importance, group)
    try:
        model = Candidate(content=content, category=category, importance=importance, group=group)  # type: ignore[arg-type]
    except ValidationError:
        assert made is None
        return
    if made is not None:
        assert asdict(made) == model.model_dump()
    else:
        assert not isinstance(content, str) or not isinstance(group, (str, type(None)))


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["remember", "The user plays the oboe."], 0, "remembered"),
        (["remember", ""], 1, "nothing to remember"),
        (["list"], 0, "oolong"),
    ],
)
def test_the_command_ends_without_freeing_its_objects_but_runs_exit_handlers_and_flushes(
    tmp_path: Path, args: list[str], status: int, said: str
) -> None:
    memory, ran = tmp_path / "MEMORY.md", tmp_path / "ran"
    Memory(memory).remember("The user drinks oolong tea.")
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(ran)!r}, 'w').write('ran'))\n"
        f"sys.argv = ['everbot-memory', *{args!r}, '--file', {str(memory)!r}]\n"
        "from everbot_memory.faces.entry import run\n"
        "run()\n"
        "print('not reached')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == status, done.stderr
    assert said in (done.stdout + done.stderr)
    assert "not reached" not in done.stdout
    assert ran.read_text() == "ran"


def test_a_command_started_with_its_output_closed_still_does_its_work(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    command = f"{sys.executable} -m everbot_memory remember 'The user likes figs.' --file {memory}"
    done = subprocess.run(["sh", "-c", command + " >&-"], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert "The user likes figs." in memory.read_text()


@pytest.mark.parametrize(("plain", "collecting"), [(True, False), (False, True)])
def test_a_plain_remember_runs_without_the_collector_and_the_app_with_it(
    monkeypatch: pytest.MonkeyPatch, plain: bool, collecting: bool
) -> None:
    import gc

    import everbot_memory.faces.cli as cli
    import everbot_memory.faces.remember as face
    from everbot_memory.faces import entry

    seen: list[bool] = []

    def remember(args: list[str]) -> int | None:
        seen.append(gc.isenabled())
        return 0 if plain else None

    def app() -> None:
        seen.append(gc.isenabled())

    monkeypatch.setattr(face, "run", remember)
    monkeypatch.setattr(cli, "main", app)
    monkeypatch.setattr(sys, "argv", ["everbot-memory", "remember", "The user plays the oboe."])
    was = gc.isenabled()
    try:
        if plain:
            with pytest.raises(SystemExit):
                entry.main()
        else:
            entry.main()
        after = gc.isenabled()
    finally:
        if was:
            gc.enable()
    assert seen[0] is False  # the merge: never collecting
    assert after is collecting  # the app (not a plain remember): collecting again
    if not plain:
        assert seen[1] is True
