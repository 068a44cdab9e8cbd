"""Conflict markers a line merge leaves in MEMORY.md: readers read both sides, writers wait."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_entry

from everbot_memory import Memory, MemoryStore
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
