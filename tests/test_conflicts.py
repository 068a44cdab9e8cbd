"""Conflict markers a line merge leaves in MEMORY.md: readers read both sides, writers wait."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import make_entry

from everbot_memory import Memory, MemoryStore
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.document import parse
from everbot_memory.document.conflicts import conflict_line, sides
from everbot_memory.errors import StoreError


def _file(path: Path) -> str:
    MemoryStore(path).save([make_entry("t00001", "The user drinks green tea.", 0.7)])
    return path.read_text(encoding="utf-8")


def _conflicted(path: Path, ours: str, theirs: str, base: str | None = None) -> str:
    """The file as git's line merge leaves it when both sides added a memory at one place."""
    text = _file(path)
    at = text.index("## Archived Memories")
    middle = [] if base is None else ["||||||| base", base]
    block = ["<<<<<<< HEAD", ours, *middle, "=======", theirs, ">>>>>>> origin/main", ""]
    return text[:at] + "\n".join(block) + "\n" + text[at:]


OURS = "### [c00001] fact | 0.60 | 2026-11-20 | 1\nThe user plays tennis on weekends.\n"
THEIRS = "### [c00002] fact | 0.60 | 2026-11-20 | 1\nThe user plays chess on weekends.\n"


@pytest.mark.parametrize("base", [None, "### [c00000] fact | 0.60 | 2026-11-20 | 1\nOld.\n"])
def test_a_file_with_a_line_conflict_reads_as_both_sides_memories_without_markers(
    tmp_path: Path, base: str | None
) -> None:
    text = _conflicted(tmp_path / "MEMORY.md", OURS, THEIRS, base)
    doc = parse(text)
    contents = {e.content for e in doc.entries}
    assert contents == {
        "The user drinks green tea.",
        "The user plays tennis on weekends.",
        "The user plays chess on weekends.",
    }
    assert not any(mark in c for c in contents for mark in ("<<<<<<<", "=======", ">>>>>>>"))
    assert "Old." not in contents  # a diff3 base is neither side
    assert not any("<<<<<<<" in note or ">>>>>>>" in note for note in doc.notes)
    (warning,) = [p for p in doc.problems if "merge conflict" in p.message]
    assert warning.kind == "warning" and warning.line == conflict_line(text)


def test_the_same_memory_changed_on_both_sides_reads_as_ours(tmp_path: Path) -> None:
    ours = "### [c00001] fact | 0.60 | 2026-11-20 | 1\nThe user uses emacs as editor.\n"
    theirs = "### [c00001] fact | 0.60 | 2026-11-20 | 1\nThe user uses neovim as editor.\n"
    doc = parse(_conflicted(tmp_path / "MEMORY.md", ours, theirs))
    assert [e.content for e in doc.entries if e.id == "c00001"] == [
        "The user uses emacs as editor."
    ]


def test_readers_see_both_sides_and_writers_refuse_until_it_is_settled(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text(_conflicted(path, OURS, THEIRS), encoding="utf-8")
    before = path.read_bytes()
    memory = Memory(path)
    prompt = memory.get_prompt_memories()
    assert "tennis" in prompt and "chess" in prompt and "<<<<<<<" not in prompt
    assert [h.entry.content for h in memory.recall("chess")][:1] == [
        "The user plays chess on weekends."
    ]
    with pytest.raises(StoreError, match="merge conflict"):
        memory.remember("The user likes figs.")
    assert path.read_bytes() == before


def test_the_engines_own_conflict_blocks_and_open_conflicts_are_read_as_they_are() -> None:
    engine = "\n".join(
        [
            "## Notes",
            "",
            "<<<<<<< [c00001] was changed on both sides; the memory keeps this text:",
            "",
            "```memory\nThe user uses emacs.\n```",
            "",
            "=======",
            "",
            "```memory\nThe user uses neovim.\n```",
            "",
            ">>>>>>> [c00001] the other side's text. Put the right text in the memory, then "
            "delete these lines.",
            "",
        ]
    )
    assert conflict_line(engine) is not None and sides(engine) is None
    assert sides("<<<<<<< HEAD\nours\n=======\ntheirs\n") is None  # never closed
    assert sides("nothing to see\n") is None
    fenced = "```memory\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> z\n```\n"
    assert sides(fenced) is None  # markers inside a memory's fence are its text


def _rendered(tmp_path: Path, name: str, entries: list[MemoryEntry]) -> str:
    path = tmp_path / name / "MEMORY.md"
    path.parent.mkdir()
    MemoryStore(path).save(entries)
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("style", [["--diff3"]])
def test_fenced_contents_that_hold_marker_lines_are_read_whole_on_each_side(
    tmp_path: Path, style: list[str]
) -> None:
    # A memory is fenced because a line of it reads as structure ("=======" here): on either
    # side of a conflict it is that memory's text, not a marker. Real `git merge-file` output.
    # Without --diff3, git shares both sides' closing fence line after the markers: the
    # sides cannot be told apart then, and the file is read as it stands, as before.
    others = [make_entry(f"z{i}", f"Other memory {i}.", 0.4) for i in range(3)]
    files = {
        "base": _rendered(tmp_path, "b", others),
        "ours": _rendered(
            tmp_path,
            "o",
            [make_entry("a1", "Setup steps:\n=======\nrun make", 0.5), *others],
        ),
        "theirs": _rendered(
            tmp_path,
            "t",
            [make_entry("a2", "Deploy steps:\n=======\nrun deploy", 0.5), *others],
        ),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    names = [str(tmp_path / n) for n in ("ours", "base", "theirs")]
    merged = subprocess.run(
        ["git", "merge-file", "-p", *style, *names], capture_output=True, text=True
    ).stdout
    assert "<<<<<<<" in merged
    contents = {e.id: e.content for e in parse(merged).entries}
    assert contents["a1"] == "Setup steps:\n=======\nrun make"
    assert contents["a2"] == "Deploy steps:\n=======\nrun deploy"
    assert {"z0", "z1", "z2"} <= contents.keys()


def test_a_merge_of_merges_nested_conflicts_read_as_every_side() -> None:
    head = "# Agent Memory\n\n<!-- Total entries: 2 -->\n\n## Active Memories\n\n"
    one = "### [{0}] fact | 0.50 | 2026-03-01 | 1\n{1}\n"
    nested = "".join(
        [
            "<<<<<<< HEAD\n",
            one.format("b1", "Ours new."),
            "<<<<<<<< Temporary merge branch 1\n",
            one.format("b3", "Inner one."),
            "========\n",
            one.format("b4", "Inner two."),
            ">>>>>>>> Temporary merge branch 2\n",
            "=======\n",
            one.format("b2", "Theirs new."),
            ">>>>>>> x\n\n",
        ]
    )
    doc = parse(head + nested + "## Archived Memories\n")
    assert {e.id: e.content for e in doc.entries} == {
        "b1": "Ours new.",
        "b2": "Theirs new.",
        "b3": "Inner one.",
        "b4": "Inner two.",
    }
    assert not doc.notes


def test_the_merge_driver_still_sees_an_unsettled_conflict_and_keeps_both_texts(
    tmp_path: Path,
) -> None:
    from datetime import datetime, timezone

    from everbot_memory.document.merge3 import merge_texts

    common = [make_entry(f"z{i}", f"Other memory {i}.", 0.4) for i in range(3)]
    base = _rendered(tmp_path, "b", [make_entry("c1", "The user uses vim.", 0.6), *common])
    ours = _rendered(tmp_path, "o", [make_entry("c1", "The user uses emacs.", 0.6), *common])
    other = _rendered(tmp_path, "t", [make_entry("c1", "The user uses neovim.", 0.6), *common])
    mine, theirs = ours.split("\n"), other.split("\n")
    at = next(n for n, line in enumerate(mine) if "emacs" in line)
    block = ["<<<<<<< HEAD", mine[at], "=======", theirs[at], ">>>>>>> origin/main"]
    conflicted = "\n".join(mine[:at] + block + mine[at + 1 :])
    later = _rendered(tmp_path, "l", [make_entry("c1", "The user uses vim.", 0.6), *common])
    out = merge_texts(base, conflicted, later, now=datetime.now(timezone.utc))
    assert out.text is not None and "neovim" in out.text and "emacs" in out.text
