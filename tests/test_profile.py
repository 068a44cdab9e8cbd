"""The profile: derived from the strongest preference and fact memories at every save, shown
first at session start; a person's correction, pin, addition or hidden label wins."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import make_entry
from freezegun import freeze_time
from hypothesis import given, settings
from hypothesis import strategies as st

from everbot_memory import Memory
from everbot_memory.core.profile import derive, in_groups, profile_lines, read_line, shown
from everbot_memory.document.merge3 import merge_texts
from everbot_memory.document.model import Document
from everbot_memory.document.parse import parse
from everbot_memory.document.render import render
from everbot_memory.facade import hooks
from everbot_memory.facade.locations import Place
from everbot_memory.storage.store import MemoryStore

FACTS = [
    make_entry("aaaaaa", "The user's name is Lena.", 0.9, category="fact"),
    make_entry(
        "bbbbbb", "The user works at Nordwind Logistics as a data engineer.", 0.85, category="fact"
    ),
    make_entry("cccccc", "The user lives in Porto.", 0.8, category="fact"),
    make_entry("dddddd", "The user speaks German and English.", 0.75, category="fact"),
    make_entry("eeeeee", "The user prefers Neovim over VS Code.", 0.7),
    make_entry("ffffff", "The user is a vegetarian.", 0.7, category="fact"),
    make_entry("gggggg", "用户叫王小明", 0.3, category="fact"),  # Archived: not in the profile
]


def values(lines: list[str]) -> dict[str, str]:
    return {r[0]: r[1] for r in map(read_line, lines) if r is not None}


def test_derive_reads_who_the_user_is_from_the_strongest_memories() -> None:
    got = {line.label: line.value for line in derive(FACTS)}
    assert got == {
        "Name": "Lena",
        "Role": "data engineer",
        "Works at": "Nordwind Logistics",
        "Lives in": "Porto",
        "Languages": "German and English",
        "Tools": "Neovim",
        "Preferences": "The user prefers Neovim over VS Code",
    }


@pytest.mark.parametrize(
    ("content", "label", "value"),
    [
        ("用户叫王小明", "Name", "王小明"),
        ("用户是一名护士", "Role", "护士"),
        ("用户住在柏林", "Lives in", "柏林"),
        ("用户在字节跳动工作", "Works at", "字节跳动"),
        ("用户会说粤语", "Languages", "粤语"),
        ("用户改用 React", "Tools", "React"),
    ],
)
def test_derive_reads_chinese(content: str, label: str, value: str) -> None:
    got = {line.label: line.value for line in derive([make_entry(content=content, score=0.8)])}
    assert got[label] == value


def test_the_section_round_trips_and_a_canonical_file_saves_unchanged(tmp_path: Path) -> None:
    doc = Document(FACTS)
    text = render(doc)
    assert "\n## Profile\n" in text and text.index("## Profile") < text.index("## Active")
    assert "- Name: Lena <!-- derived [aaaaaa] " in text
    again = parse(text)
    assert again.profile == [] and sorted(again.entries, key=lambda e: e.id) == FACTS
    assert render(again) == text
    path = tmp_path / "MEMORY.md"
    path.write_text(text, encoding="utf-8")
    store = MemoryStore(path)
    assert store.save(store.load()) is False


def test_a_persons_correction_pin_addition_and_hidden_label_win(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-01"):
        MemoryStore(path).save(FACTS)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    edited = []
    for line in lines:
        if line.startswith("- Lives in: Porto"):
            line = line.replace("Porto", "Lisbon")  # corrected, comment left in place
        elif line.startswith("- Name: Lena"):
            line = "- Name: Lena M."  # comment removed: pinned
        elif line.startswith("- Tools:"):
            line = "- Tools: -"  # hidden
        edited.append(line)
        if line.startswith("- Role:"):
            edited.append("- Pronouns: she/her")  # a person's own line
    path.write_text("\n".join(edited), encoding="utf-8")
    with freeze_time("2026-03-02"):
        memory = Memory(path)
        memory.remember("The user now lives in Madrid.", "fact", "high")
        block = memory.prompt_block()
    saved = path.read_text(encoding="utf-8")
    section = saved.split("## Profile", 1)[1].split("## Active", 1)[0]
    got = values(section.split("\n"))
    assert got["Lives in"] == "Lisbon" and got["Name"] == "Lena M." and got["Tools"] == "-"
    assert got["Pronouns"] == "she/her"
    assert "- Lives in: Lisbon\n" in section and "- Pronouns: she/her\n" in section
    assert "Neovim" not in section.split("Preferences")[0]
    profile = block.split("<profile>", 1)[1].split("</profile>", 1)[0]
    assert "Lives in: Lisbon" in profile and "Pronouns: she/her" in profile
    assert "Tools" not in profile and "<!--" not in profile


def test_hostile_memory_text_cannot_break_the_file_through_the_profile() -> None:
    bad = make_entry(
        content="The user's name is Eve <!-- ``` [x](y) -->\x00.", score=0.9, category="fact"
    )
    text = render(Document([bad, *FACTS]))
    doc = parse(text)
    assert sorted(doc.entries, key=lambda e: e.id) == sorted([bad, *FACTS], key=lambda e: e.id)
    assert not [p for p in doc.problems if p.kind == "warning"] and not doc.notes
    assert "\x00" not in text.split("## Active", 1)[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=60), min_size=1, max_size=6))
def test_property_any_content_round_trips_with_a_profile(texts: list[str]) -> None:
    entries = []
    for n, raw in enumerate(texts):
        content = f"The user's name is {raw}" if n % 2 else f"The user prefers {raw}"
        entries.append(make_entry(f"{n:06x}", content, 0.9, category="fact"))
    doc = Document(entries)
    text = render(doc)
    again = parse(text)
    assert sorted(again.entries, key=lambda e: e.id) == sorted(entries, key=lambda e: e.id)
    assert again.profile == [] and not again.notes and render(again) == text


def test_the_merge_driver_keeps_a_persons_profile_lines() -> None:
    now = datetime(2026, 3, 2, tzinfo=timezone.utc)
    base = render(Document(FACTS))
    ours = base.replace("- Lives in: Porto", "- Lives in: Lisbon")  # a person's correction
    extra = make_entry("hhhhhh", "The user drinks oolong tea.", 0.6)
    theirs = render(Document([*FACTS, extra]))  # the other machine learned something
    for a, b in ((ours, theirs), (theirs, ours), (ours, base)):
        merged = merge_texts(base, a, b, now=now)
        assert parse(merged.text).profile == ["- Lives in: Lisbon"]


def test_the_profile_respects_a_group_filter() -> None:
    entries = [
        make_entry("aaaaaa", "The user prefers Neovim over VS Code.", 0.9, group="work"),
        make_entry("bbbbbb", "The user prefers decaf after six.", 0.8, group="life"),
    ]
    lines = profile_lines(["- Pronouns: she/her"], entries)
    assert shown(in_groups(lines, entries, frozenset({"work"}))) == [
        "Tools: Neovim",
        "Pronouns: she/her",
    ]


def test_the_session_start_block_shows_the_profile_first(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-01"):
        MemoryStore(path).save(FACTS)
    block = hooks.session_start([Place("file", path)], "s1", 1_772_409_600.0)
    assert block.index("<profile>") < block.index("<memories>")
    assert "Name: Lena" in block.split("</profile>")[0]
    assert len(json.dumps(block, ensure_ascii=False)) <= hooks.MAX_CONTEXT_CHARS


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("My name is Marco Rossi", {"Name": "Marco Rossi"}),
        (
            "I work at Acme Robotics as a backend developer",
            {"Role": "backend developer", "Works at": "Acme Robotics"},
        ),
        ("I live in Turin.", {"Lives in": "Turin"}),
        ("I speak Italian and English", {"Languages": "Italian and English"}),
        (
            "用户叫王小明，是一名前端工程师，在字节跳动工作",
            {"Name": "王小明", "Role": "前端工程师", "Works at": "字节跳动"},
        ),
        ("用户会说中文和英语", {"Languages": "中文和英语"}),
        ("I'm a big fan of jazz", {}),
    ],
)
def test_derive_reads_the_users_own_words(content: str, expected: dict[str, str]) -> None:
    got = {
        line.label: line.value
        for line in derive([make_entry(content=content, score=0.8, category="fact")])
    }
    assert got == expected


def test_a_persons_items_keep_their_shape_through_saves(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-01"):
        MemoryStore(path).save(FACTS)
    text = path.read_text(encoding="utf-8")
    mine = (
        "- Hobbies:\n  - climbing\n  - 围棋\n- Name: Lena M.\n  - nickname Lenny\n\n"
        "She moved here from Porto\nin 2019.\n"
    )
    head, rest = text.split("- Name: Lena <!--", 1)
    path.write_text(head + mine + "\n- Name: Lena <!--" + rest, encoding="utf-8")
    with freeze_time("2026-03-02"):
        Memory(path).maintain()
        block = Memory(path).prompt_block()
        again = path.read_text(encoding="utf-8")
        Memory(path).maintain()
    assert path.read_text(encoding="utf-8") == again  # a fixed point
    section = again.split("## Profile", 1)[1].split("## Active", 1)[0]
    assert "- Name: Lena M.\n  - nickname Lenny\n" in section
    assert "- Hobbies:\n  - climbing\n  - 围棋\n" in section
    assert "\n\nShe moved here from Porto\nin 2019.\n" in section
    profile = block.split("<profile>", 1)[1].split("</profile>", 1)[0]
    assert "Name: Lena M.; nickname Lenny" in profile
    assert "Hobbies: climbing; 围棋" in profile
    assert "She moved here from Porto in 2019." in profile


def test_the_hooks_profile_keeps_each_line_beside_its_groups(tmp_path: Path) -> None:
    """The shown lines and their groups are cached side by side: a hidden label, a label
    with only lines under it, or a person's own line must not shift one list against the
    other."""
    entries = [
        make_entry("aaaaaa", "The user prefers Neovim over VS Code.", 0.9, group="work"),
        make_entry("bbbbbb", "The user lives in Porto.", 0.8, category="fact", group="life"),
    ]
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-01"):
        MemoryStore(path).save(entries)
    text = path.read_text(encoding="utf-8")
    mine = "- Tools: -\n- Hobbies:\n  - climbing\n- Pronouns: she/her\n"
    path.write_text(text.replace("- Lives in: Porto", mine + "- Lives in: Porto"), "utf-8")
    with freeze_time("2026-03-02"):
        Memory(path).maintain()
    now = 1_772_452_800.0  # 2026-03-02 12:00 UTC
    work = hooks.session_start([Place("file", path)], "s1", now, groups=frozenset({"work"}))
    life = hooks.session_start([Place("file", path)], "s2", now, groups=frozenset({"life"}))
    shown_work = work.split("<profile>", 1)[1].split("</profile>", 1)[0]
    shown_life = life.split("<profile>", 1)[1].split("</profile>", 1)[0]
    assert "Hobbies: climbing" in shown_work and "Pronouns: she/her" in shown_work
    assert "Lives in: Porto" not in shown_work and "Neovim" in shown_work
    assert "Lives in: Porto" in shown_life and "Neovim" not in shown_life
    assert "Tools" not in shown_work + shown_life
