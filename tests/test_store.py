"""MemoryStore: tolerant parsing, canonical rendering, and safe saving (seed §7.1, SPEC §1, §3)."""

from __future__ import annotations

import os
import stat
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import FIXTURES, T0, days, make_entry
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from everbot_memory import MemoryManager
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.rules import CATEGORIES
from everbot_memory.document import Document, parse, render
from everbot_memory.errors import LockTimeoutError, NotTextError, StoreError
from everbot_memory.storage.atomic import digest
from everbot_memory.storage.journal import KEEP, Journal
from everbot_memory.storage.paths import SideFiles
from everbot_memory.storage.store import MemoryStore

CANONICAL = FIXTURES / "memory" / "canonical.md"
HAND_EDITED = FIXTURES / "memory" / "hand_edited.md"
CRLF_BOM = FIXTURES / "memory" / "crlf_bom.md"


def copy_fixture(source: Path, dest: Path) -> Path:
    dest.write_bytes(source.read_bytes())
    return dest


# -- seed §7.1 -------------------------------------------------------------------------------


def test_parses_every_field_of_a_normal_file() -> None:
    doc = parse(CANONICAL.read_text(encoding="utf-8"))
    assert doc.problems == []
    assert [e.id for e in doc.entries] == ["a1b2c3", "d4e5f6", "g7h8i9", "x1y2z3"]
    first = doc.entries[0]
    assert first.content == "用户喜欢简洁的代码风格，不喜欢过多注释"
    assert first.category == "preference"
    assert first.score == 0.92
    assert first.last_activated == datetime(2026, 2, 20, 10, 30, tzinfo=timezone.utc)
    assert first.created_at == datetime(2026, 1, 2, 8, 0, tzinfo=timezone.utc)
    assert first.activation_count == 12
    assert first.source_session == "s-001"
    third = doc.entries[2]
    assert (third.score, third.base_score) == (0.4523, 0.5)
    assert doc.last_updated == "2026-03-01T09:00:00Z"


@pytest.mark.parametrize("content", [None, b"", b"\n\n", b"   \n"])
def test_missing_or_empty_file_has_no_entries(memory_path: Path, content: bytes | None) -> None:
    if content is not None:
        memory_path.write_bytes(content)
    store = MemoryStore(memory_path)
    assert store.load() == []
    assert store.problems == []


def test_a_damaged_entry_is_skipped_with_a_warning_and_the_rest_load() -> None:
    doc = parse(HAND_EDITED.read_text(encoding="utf-8"))
    warnings = [p for p in doc.problems if p.kind == "warning"]
    assert [(p.line, "very high" in p.message) for p in warnings] == [(20, True)]
    assert {e.id for e in doc.entries} >= {"a1b2c3", "d4e5f6", "g7h8i9", "b2c3d4", "x1y2z3"}
    assert len(doc.entries) == 6  # the hand-added entry without id counts too
    assert any("very high" in note for note in doc.notes)


def test_save_then_load_round_trips(memory_path: Path) -> None:
    entries = [make_entry("a00001", "one", 0.9), make_entry("a00002", "二", 0.1)]
    MemoryStore(memory_path).save(entries)
    assert MemoryStore(memory_path).load() == entries


def test_save_keeps_the_previous_version_as_bak(memory_path: Path) -> None:
    store = MemoryStore(memory_path)
    store.save([make_entry("a00001", "first version")])
    before = memory_path.read_bytes()
    store.save([make_entry("a00001", "second version")])
    assert store.backup_path.read_bytes() == before
    assert [e.content for e in parse(before.decode()).entries] == ["first version"]


def test_active_and_archived_sections_split_at_0_2() -> None:
    entries = [
        make_entry("a00001", "strong", 0.2),
        make_entry("a00002", "weak", 0.1999),
        make_entry("a00003", "faint", 0.05),
    ]
    text = render(Document(entries=entries))
    active, archived = text.split("## Archived Memories")
    assert "[a00001]" in active and "[a00001]" not in archived
    assert "[a00002]" in archived and "[a00003]" in archived


def test_entries_are_written_by_score_descending() -> None:
    entries = [make_entry(f"b0000{i}", f"m{i}", s) for i, s in enumerate([0.3, 0.9, 0.5, 0.1])]
    reread = parse(render(Document(entries=entries))).entries
    assert [e.score for e in reread] == [0.9, 0.5, 0.3, 0.1]


# -- canonical writing -----------------------------------------------------------------------


def test_canonical_file_is_byte_identical_after_load_and_save(memory_path: Path) -> None:
    copy_fixture(CANONICAL, memory_path)
    before = memory_path.read_bytes()
    mtime = memory_path.stat().st_mtime_ns
    store = MemoryStore(memory_path)
    assert store.save(store.load()) is False
    assert memory_path.read_bytes() == before
    assert memory_path.stat().st_mtime_ns == mtime
    assert not store.backup_path.exists()  # nothing was written at all


def test_render_of_the_canonical_fixture_is_the_fixture() -> None:
    text = CANONICAL.read_text(encoding="utf-8")
    assert render(parse(text)) == text


# -- tolerant reading and hand edits ----------------------------------------------------------


@freeze_time("2026-03-01 12:00:00")
def test_hand_edit_repairs_are_reported_with_line_numbers() -> None:
    doc = parse(HAND_EDITED.read_text(encoding="utf-8"))
    found = {(p.line, p.kind) for p in doc.problems}
    messages = {p.line: [] for p in doc.problems}
    for p in doc.problems:
        messages[p.line].append(p.message)
    assert (1, "repair") in found  # paragraph before the title
    assert any("moved to ## Notes" in m for m in messages[14])  # note between entries
    assert any("reformatted" in m for m in messages[16])  # sloppy spacing
    assert any("no id" in m for m in messages[23])  # entry added without id
    assert any("4 '#'" in m for m in messages[26])  # wrong heading level
    assert any("time" in m for m in messages[26])  # date with a time
    assert any("hobby" in m for m in messages[29])  # unknown category
    assert any("hit count" in m for m in messages[29])  # missing hits


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("preferance", "preference"),
        ("prefernce", "preference"),
        ("decison", "decision"),
        ("workfow", "workflow"),
        ("expierence", "experience"),
        ("Skil usage", "skill_usage"),
        ("habbits", "workflow"),
    ],
)
def test_a_misspelt_category_is_read_as_the_one_meant(written: str, meant: str) -> None:
    heading = f"### [abc123] {written} | 0.5 | 2026-03-01 | 1\nsome memory text here\n"
    doc = parse(f"# Agent Memory\n\n## Active Memories\n\n{heading}")
    assert [e.category for e in doc.entries] == [meant]
    assert [p.message for p in doc.problems if "category" in p.message] == [
        f"misspelt category {written!r} read as {meant!r}"
    ]


@pytest.mark.parametrize(
    "written", ["hobby", "factor", "prefer", "idea", "reference", "references", "ask", "kill"]
)
def test_a_category_close_to_none_is_read_as_a_fact(written: str) -> None:
    heading = f"### [abc123] {written} | 0.5 | 2026-03-01 | 1\nsome memory text here\n"
    doc = parse(f"# Agent Memory\n\n## Active Memories\n\n{heading}")
    assert [e.category for e in doc.entries] == ["fact"]
    assert [p.message for p in doc.problems if "category" in p.message] == [
        f"unknown category {written!r} read as 'fact'"
    ]


def test_hand_edit_fields_are_read_as_meant() -> None:
    doc = parse(HAND_EDITED.read_text(encoding="utf-8"))
    by_content = {e.content: e for e in doc.entries}
    sloppy = by_content["The user's main language is Python; they use FastAPI at work."]
    assert (sloppy.id, sloppy.category, sloppy.score, sloppy.activation_count) == (
        "d4e5f6",
        "fact",
        0.88,
        8,
    )
    no_id = by_content["The user reviews pull requests every morning before stand-up."]
    assert len(no_id.id) == 6 and int(no_id.id, 16) >= 0
    timed = by_content["用户每天早上 9 点查看 A 股行情，关注新能源板块"]
    assert timed.last_activated == datetime(2026, 2, 20, 7, 45, tzinfo=timezone.utc)
    assert by_content["The user plays go on weekends."].category == "fact"
    assert doc.preamble == ["Notes to myself: keep this file short, and review it every Friday."]


def test_crlf_and_bom_read_like_the_plain_file() -> None:
    plain = parse(HAND_EDITED.read_text(encoding="utf-8"), now=T0)
    crlf = parse(CRLF_BOM.read_bytes().decode("utf-8"), now=T0)
    strip_ids = [(e.content, e.score, e.category) for e in plain.entries]
    assert [(e.content, e.score, e.category) for e in crlf.entries] == strip_ids
    assert crlf.notes == plain.notes and crlf.preamble == plain.preamble
    messages = [p.message for p in crlf.problems]
    assert "removed the byte order mark" in messages
    assert "converted CRLF line endings to LF" in messages


def _person_lines(path: Path) -> list[str]:
    """The lines a person wrote: prose, not headings or the engine's comments."""
    text = path.read_bytes().decode("utf-8").lstrip("\ufeff").replace("\r\n", "\n")
    return [
        line
        for line in text.split("\n")
        if line.strip() and not line.lstrip().startswith(("#", "<!--"))
    ]


@pytest.mark.parametrize("fixture", [HAND_EDITED, CRLF_BOM], ids=["lf", "crlf-bom"])
@freeze_time("2026-03-01 12:00:00")
def test_save_keeps_every_line_a_person_wrote(memory_path: Path, fixture: Path) -> None:
    copy_fixture(fixture, memory_path)
    store = MemoryStore(memory_path)
    assert store.save(store.load()) is True
    after = memory_path.read_text(encoding="utf-8")
    for line in _person_lines(fixture):
        assert line in after.split("\n"), line
    assert "### [zz99] decision | very high | someday" in after  # damaged block, verbatim
    assert "\r" not in after and not after.startswith("\ufeff")
    # The repaired file is canonical: loading and saving it again changes nothing.
    assert MemoryStore(memory_path).save(MemoryStore(memory_path).load()) is False


def test_hand_edited_score_is_honoured_and_decays_from_then() -> None:
    text = CANONICAL.read_text(encoding="utf-8").replace(
        "### [d4e5f6] fact | 0.88 |", "### [d4e5f6] fact | 0.30 |"
    )
    edited_at = datetime(2026, 4, 1, tzinfo=timezone.utc)
    entry = next(e for e in parse(text, now=edited_at).entries if e.id == "d4e5f6")
    assert entry.score == 0.3
    assert entry.anchor == (0.3, edited_at)


def test_person_added_entry_with_only_a_heading_and_text(memory_path: Path) -> None:
    memory_path.write_text("### preference | 0.9 | 2026-02-01 | 1\nThe user likes tea.\n")
    store = MemoryStore(memory_path)
    [entry] = store.load()
    assert entry.content == "The user likes tea." and entry.score == 0.9
    assert any("no id" in p.message for p in store.problems)


def test_unclosed_fence_in_free_text_fails_closed(memory_path: Path) -> None:
    original = "Some notes\n```\nunclosed code\n\n## Active Memories\n"
    memory_path.write_text(original)
    store = MemoryStore(memory_path)
    store.load()
    with pytest.raises(StoreError, match="would not read back the same"):
        store.save([make_entry()])
    assert memory_path.read_text() == original


# -- content is data -------------------------------------------------------------------------

TRICKY = [
    "line one\nline two",
    "### [ffffff] fact | 0.99 | 2026-01-01 | 1",
    "## Archived Memories",
    "# Agent Memory",
    "```\nunclosed fence",
    "~~~python\nprint(1)\n~~~",
    "````\n```\n````",
    "<!-- a comment -->",
    "<!-- unclosed comment",
    "text with --> inside",
    '<!-- everbot {"score": 1.0} -->',
    "a\n---",
    "a\n===",
    "[ref]: http://example.com",
    "- a list\n- of items",
    "> quoted",
    "    indented code",
    "tab\there",
    "first\n\n\nafter blank lines",
    "carriage\rreturn",
    "nul\x00byte",
    "vertical\x0btab and \x1b escape",
    "unicode line\u2028separator",
    "<script>\nalert(1)\n\n## Archived Memories",
    "混合 English 与中文，还有 emoji 🎉",
    "|a|b|\n|-|-|",
]


@pytest.mark.parametrize("content", TRICKY)
def test_tricky_content_round_trips_and_breaks_nothing(content: str) -> None:
    entries = [
        make_entry("c00001", "before", 0.9),
        make_entry("c00002", content, 0.5),
        make_entry("c00003", "after", 0.1),
    ]
    text = render(Document(entries=entries))
    doc = parse(text)
    assert doc.entries == entries
    assert doc.problems == [] and doc.notes == []
    assert render(doc) == text


_SPECIAL = st.sampled_from(
    ["\n", "###", "## Archived Memories", "```", "~~~", "<!--", "-->", "\r\n", "`", "#", "- "]
)
_CONTENT = (
    st.lists(st.one_of(st.text(min_size=1, max_size=20), _SPECIAL), min_size=1, max_size=8)
    .map("".join)
    .filter(lambda s: s.strip() != "")
)
_TIMES = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(timezone.utc)
)


@st.composite
def entries_strategy(draw: st.DrawFn) -> list[MemoryEntry]:
    count = draw(st.integers(min_value=0, max_value=5))
    ids = draw(
        st.lists(
            st.from_regex(r"[0-9a-f]{6}", fullmatch=True),
            min_size=count,
            max_size=count,
            unique=True,
        )
    )
    entries = []
    for entry_id in ids:
        activated = draw(_TIMES)
        entries.append(
            MemoryEntry(
                id=entry_id,
                content=draw(_CONTENT),
                category=draw(st.sampled_from(CATEGORIES)),
                score=draw(st.floats(min_value=0, max_value=1)),
                created_at=activated - days(draw(st.integers(0, 400))),
                last_activated=activated,
                activation_count=draw(st.integers(0, 10_000)),
                source_session=draw(st.text(max_size=20)),
                base_score=draw(st.floats(min_value=0, max_value=1)),
                base_at=activated + days(draw(st.integers(0, 400))),
                group=draw(
                    st.one_of(st.none(), st.from_regex(r"[a-z家工][a-z0-9_-]{0,8}", fullmatch=True))
                ),
                condensed_from=tuple(
                    draw(st.lists(st.from_regex(r"[0-9a-f]{6}", fullmatch=True), max_size=3))
                ),
                condensed_into=draw(
                    st.one_of(st.none(), st.from_regex(r"[0-9a-f]{6}", fullmatch=True))
                ),
            )
        )
    return entries


@given(entries_strategy())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_parse_of_render_is_identity(entries: list[MemoryEntry]) -> None:
    doc = parse(render(Document(entries=entries)))
    assert sorted(doc.entries, key=lambda e: e.id) == sorted(entries, key=lambda e: e.id)
    assert doc.problems == [] and doc.notes == [] and doc.preamble == []


@given(entries_strategy(), st.lists(st.text(min_size=1, max_size=40), max_size=3))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_canonical_text_is_a_fixed_point(
    entries: list[MemoryEntry], notes: list[str]
) -> None:
    first = render(Document(entries=entries, last_updated="2026-01-01T00:00:00Z"))
    assert render(parse(first)) == first
    # A person's notes appended at the end settle after one save and then stay put.
    with_notes = first + "\n" + "\n\n".join(notes) + "\n"
    settled = render(parse(with_notes))
    assert render(parse(settled)) == settled
    for note in notes:
        for line in note.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if line.strip():
                assert line.strip() in settled


# -- the file on disk ------------------------------------------------------------------------


def test_new_file_is_created_0600(memory_path: Path) -> None:
    store = MemoryStore(memory_path)
    store.save([make_entry()])
    assert stat.S_IMODE(memory_path.stat().st_mode) == 0o600
    store.save([make_entry(content="changed")])
    assert stat.S_IMODE(store.backup_path.stat().st_mode) == 0o600


def test_existing_file_keeps_its_mode(memory_path: Path) -> None:
    copy_fixture(CANONICAL, memory_path)
    memory_path.chmod(0o640)
    store = MemoryStore(memory_path)
    store.save([*store.load(), make_entry("e00001", "new one")])
    assert stat.S_IMODE(memory_path.stat().st_mode) == 0o640
    assert stat.S_IMODE(store.backup_path.stat().st_mode) == 0o640


def test_symlinked_file_stays_a_link(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = copy_fixture(CANONICAL, real_dir / "MEMORY.md")
    link = tmp_path / "MEMORY.md"
    link.symlink_to(target)
    store = MemoryStore(link)
    store.save([*store.load(), make_entry("e00001", "through the link")])
    assert link.is_symlink()
    assert "through the link" in target.read_text()
    assert (real_dir / ".MEMORY.md.everbot" / "MEMORY.md.bak").exists()


def test_save_that_changes_nothing_writes_nothing(memory_path: Path) -> None:
    store = MemoryStore(memory_path)
    entries = [make_entry()]
    assert store.save(entries) is True
    mtime = memory_path.stat().st_mtime_ns
    assert store.save(entries) is False
    assert memory_path.stat().st_mtime_ns == mtime


def test_outside_edit_between_load_and_save_is_merged_not_overwritten(memory_path: Path) -> None:
    copy_fixture(CANONICAL, memory_path)
    store = MemoryStore(memory_path)
    entries = store.load()
    # The engine reinforces one memory and adds another ...
    changed = [e.replace(activation_count=13) if e.id == "a1b2c3" else e for e in entries]
    changed.append(make_entry("e00001", "The engine learned this."))
    # ... while a person, in an editor (no lock), fixes a memory, deletes one and adds a note.
    text = memory_path.read_text()
    text = text.replace("they use FastAPI at work", "they use Django at work")
    text = text.replace("### [x1y2z3] fact | 0.18 | 2026-01-10 | 2\n", "")
    text = text.replace("用户曾尝试用 Vue 写前端，但后来放弃了\n", "")
    text += "\nA note the person typed.\n"
    memory_path.write_text(text)
    store.save(changed)
    after = parse(memory_path.read_text())
    by_id = {e.id: e for e in after.entries}
    assert by_id["a1b2c3"].activation_count == 13  # the engine's change
    assert "Django" in by_id["d4e5f6"].content  # the person's fix
    assert "e00001" in by_id  # the engine's addition
    assert "x1y2z3" not in by_id  # the person's deletion
    assert "A note the person typed." in "\n".join(after.notes)


@pytest.mark.parametrize(
    "setup, error, message",
    [
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00"), NotTextError, "binary"),
        (lambda p: p.write_bytes(b"caf\xe9 au lait\n"), NotTextError, "not UTF-8"),
        (lambda p: p.mkdir(), StoreError, "is a directory"),
    ],
    ids=["binary", "latin-1", "directory"],
)
def test_unreadable_file_gives_a_clear_error(memory_path: Path, setup, error, message) -> None:  # type: ignore[no-untyped-def]
    setup(memory_path)
    with pytest.raises(error, match=message):
        MemoryStore(memory_path).load()
    with pytest.raises(error, match=message):
        MemoryStore(memory_path).save([make_entry()])
    if message == "is a directory":
        assert not SideFiles.of(memory_path).folder.exists()  # nothing made beside it


@pytest.mark.parametrize("failing", ["MEMORY.md", "MEMORY.md.bak"])
def test_write_failure_leaves_the_file_and_releases_the_lock(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    copy_fixture(CANONICAL, memory_path)
    MemoryStore(memory_path).save(MemoryStore(memory_path).load())  # the hooks' caches too
    before = memory_path.read_bytes()
    side = SideFiles.of(memory_path).folder
    caches = {p.name: p.read_bytes() for p in side.glob("hook-*")}
    store = MemoryStore(memory_path)
    entries = store.load()
    real_replace = os.replace

    def no_space(src: str, dst: str | Path) -> None:
        if Path(dst).name == failing:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    from everbot_memory.storage import backend

    real_exchange = backend.exchange

    def no_space_exchange(src: Path, dst: Path, *, new: bool = False) -> bool:
        if Path(dst).name == failing:
            raise OSError(28, "No space left on device")
        return real_exchange(src, dst, new=new)

    monkeypatch.setattr(os, "replace", no_space)
    monkeypatch.setattr(backend, "exchange", no_space_exchange)
    with pytest.raises(StoreError, match=r"disk is full.*was not changed"):
        store.save([*entries, make_entry("e00001", "will not fit")])
    monkeypatch.undo()
    assert memory_path.read_bytes() == before
    assert [p.name for p in memory_path.parent.iterdir() if p.name.endswith(".tmp")] == []
    # The hooks' files made for the write that failed were never put in place.
    assert [p.name for p in side.rglob("*.tmp")] == []
    assert {p.name: p.read_bytes() for p in side.glob("hook-*")} == caches
    store.save([*entries, make_entry("e00001", "now it fits")])  # the lock was released
    assert "now it fits" in memory_path.read_text()


def test_lock_held_past_the_timeout_is_a_clear_error(memory_path: Path) -> None:
    import filelock

    copy_fixture(CANONICAL, memory_path)
    before = memory_path.read_bytes()
    store = MemoryStore(memory_path, lock_timeout=0.2)
    holder = filelock.FileLock(str(store.lock_path))
    with holder, pytest.raises(LockTimeoutError, match=r"waited 0\.2s"):
        store.save([make_entry()])
    assert memory_path.read_bytes() == before


# -- the fast path reads files exactly as markdown-it-py does -----------------------------------

_LINES = st.sampled_from(
    [
        "",
        "   ",
        "### [a1b2c3] fact | 0.50 | 2026-01-01 | 1",
        "## Active Memories",
        "# Agent Memory ##",
        "####### seven",
        "#hashtag",
        "   ### indented heading",
        '<!-- everbot {"score": 0.5} -->',
        "<!-- open comment",
        "close -->",
        "<!-->",
        "plain words",
        "用户喜欢猫",
        "```",
        "```memory",
        "~~~",
        "    code",
        "- item",
        "1. item",
        "> quote",
        "---",
        "===",
        "[ref]: http://x",
        "<div>",
        "</div>",
        "<script>",
        "</script>",
        "\ttabbed",
        "x\x00y",
    ]
)


@given(st.lists(_LINES, max_size=40))
@settings(max_examples=1500, deadline=None)
def test_property_fast_path_reads_like_markdown_it(lines: list[str]) -> None:
    from everbot_memory.document.blocks import read_blocks, reference_blocks

    assert read_blocks(lines) == reference_blocks(lines)


def test_an_unclosed_metadata_comment_hides_nothing_after_it(memory_path: Path) -> None:
    memory_path.write_text(
        "# Agent Memory\n\n## Active Memories\n\n"
        "### [aaa111] fact | 0.80 | 2026-03-01 | 1\n"
        '<!-- everbot {"score": 0.8, "activated": "2026-03-01T09:00:00Z"\n'
        "The user keeps bees.\n\n"
        "A note the person wrote.\n\n"
        "### [bbb222] fact | 0.70 | 2026-03-01 | 1\n"
        '<!-- everbot {"score": 0.7, "activated": "2026-03-01T09:00:00Z", '
        '"created": "2026-03-01T09:00:00Z"} -->\n'
        "The user lives in Lyon.\n",
        encoding="utf-8",
    )
    store = MemoryStore(memory_path)
    entries = {e.id: e.content for e in store.load()}
    assert entries == {"aaa111": "The user keeps bees.", "bbb222": "The user lives in Lyon."}
    assert any(p.line == 6 and "metadata" in p.message for p in store.problems)
    store.save(store.load())
    text = memory_path.read_text(encoding="utf-8")
    assert "A note the person wrote." in text and "The user lives in Lyon." in text


def test_an_unclosed_comment_in_a_note_is_read_as_one_line_and_reported(
    memory_path: Path,
) -> None:
    memory_path.write_text(
        "# Agent Memory\n\n<!-- draft: things to add\n\n## Active Memories\n\n"
        "### [aaa111] fact | 0.80 | 2026-03-01 | 1\nThe user keeps bees.\n",
        encoding="utf-8",
    )
    store = MemoryStore(memory_path)
    assert [e.content for e in store.load()] == ["The user keeps bees."]
    assert any(p.line == 3 and "never closes" in p.message for p in store.problems)
    store.save(store.load())
    assert "<!-- draft: things to add" in memory_path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "content", ["<!-- an opener\nand more", "x\n<!-- everbot {\n### [zz] fact | 1 | 2000-01-01"]
)
def test_content_holding_an_unclosed_opener_round_trips(memory_path: Path, content: str) -> None:
    MemoryStore(memory_path).save([make_entry("a1", content)])
    assert [e.content for e in MemoryStore(memory_path).load()] == [content]


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "MEMORY.md"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="not a regular file"):
        MemoryStore(fifo).load()


def test_a_read_only_file_is_not_written(memory_path: Path) -> None:
    copy_fixture(CANONICAL, memory_path)
    memory_path.chmod(0o444)
    before = memory_path.read_bytes()
    store = MemoryStore(memory_path)
    with pytest.raises(StoreError, match="read-only"):
        store.save([*store.load(), make_entry("e00001", "not written")])
    assert memory_path.read_bytes() == before


def test_a_missing_folder_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "typo" / "MEMORY.md"
    with pytest.raises(StoreError, match="does not exist"):
        MemoryStore(path).save([make_entry("e00001", "x")])
    assert not (tmp_path / "typo").exists()


def test_a_dangling_link_is_an_error(tmp_path: Path) -> None:
    link = tmp_path / "MEMORY.md"
    link.symlink_to(tmp_path / "gone" / "REAL.md")
    with pytest.raises(StoreError, match="does not exist"):
        MemoryStore(link).save([make_entry("e00001", "x")])


def test_a_save_removes_stale_temp_files_but_not_fresh_ones(memory_path: Path) -> None:
    copy_fixture(CANONICAL, memory_path)
    stale = memory_path.with_name(".MEMORY.md.dead1234.tmp")
    fresh = memory_path.with_name(".MEMORY.md.live5678.tmp")
    for path in (stale, fresh):
        path.write_text("a copy of the memories", encoding="utf-8")
    os.utime(stale, (0, 0))
    store = MemoryStore(memory_path)
    store.save([*store.load(), make_entry("e00001", "one more")])
    assert not stale.exists() and fresh.exists()


# -- the versions journal: which version came from which


def _stamped(n: int, *entries: str) -> bytes:
    """A file the engine wrote at second ``n``, holding ``entries``."""
    head = f"# Memory\n\n<!-- Last updated: 2026-01-01T00:00:{n:02d}Z -->\n"
    return (head + "".join(f"\n### [{e}] fact | 0.5\n{e}\n" for e in entries)).encode()


def test_the_merge_base_of_a_long_person_lineage_is_its_engine_ancestor(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "MEMORY.md")
    root = _stamped(1, "a")
    journal.record(root)
    person = root
    for n in range(3 * KEEP):  # more saves than the journal keeps of them
        person += f"\n### fact | 0.9\nhand {n}\n".encode()
        journal.observe(person, digest(person) or "")
    assert journal.common_ancestor(digest(root) or "", digest(person) or "") == root
    # The engine merges one of the person's saves: that save is the newest common ancestor.
    merged = _stamped(2, "a", "b") + person[len(root) :]
    journal.record(merged, parents=[digest(person), digest(root)])
    later = person + b"\n### fact | 0.9\nhand later\n"
    journal.observe(later, digest(later) or "")
    assert journal.common_ancestor(digest(merged) or "", digest(later) or "") == person


def test_a_copy_whose_version_was_pruned_has_no_merge_base(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "MEMORY.md", keep=4)
    first = _stamped(0, "a")
    versions = [first, *(_stamped(n, "a", *map(str, range(n))) for n in range(1, 8))]
    for previous, version in zip([None, *versions], versions, strict=False):
        journal.record(version, parents=[None if previous is None else digest(previous)])
    # Edited from the first version, which is gone: the nearest kept one is not its parent
    # (it holds memories the copy never had), so no version is taken as the merge base.
    copy = first + b"\n### fact | 0.9\nhand\n"
    journal.observe(copy, digest(copy) or "")
    assert journal.common_ancestor(digest(versions[-1]) or "", digest(copy) or "") is None
    # Still the nearest version the engine's head descends from, for merging fields.
    nearest = journal.nearest_ancestor(digest(versions[-1]) or "", copy)
    assert nearest == versions[-4]  # the oldest kept: the first was pruned


def test_a_copy_from_elsewhere_keeps_its_text_over_the_engines_older_one(
    memory_path: Path, tmp_path: Path
) -> None:
    """A file brought from another machine (no ancestor the journal knows), seen once, then
    edited by hand: the engine's next save keeps the copy's text of a memory the engine last
    wrote differently. (The copy's own earlier version was taken as the base, so the engine's
    older text read as a change of the engine's.)"""
    editor = make_entry("aaaaaa", "The user uses vim as editor.")
    coffee = make_entry("bbbbbb", "The user drinks coffee every morning.")
    store = MemoryStore(memory_path)
    with freeze_time("2026-03-01 10:00:00"):
        store.save([editor])
    with freeze_time("2026-03-01 10:00:01"):
        store.save([editor, coffee])
    elsewhere = MemoryStore(tmp_path / "elsewhere" / "MEMORY.md")
    (tmp_path / "elsewhere").mkdir()
    with freeze_time("2026-03-02 09:00:00"):
        settled = editor.replace(content="The user uses emacs as editor.")
        elsewhere.save([settled, coffee, make_entry("cccccc", "The user owns a kayak.")])
    copy = elsewhere.path.read_bytes()
    memory_path.write_bytes(copy)
    store.journal.observe(copy, digest(copy))  # as a sync's commit does
    with open(memory_path, "ab") as handle:
        handle.write(b"\n### fact | 0.7\nThe user was born in Paris.\n")
    later = MemoryStore(memory_path)
    later.save([*later.load(), make_entry("dddddd", "The user has a cat.")])
    found = {e.id: e.content for e in parse(memory_path.read_text(encoding="utf-8")).entries}
    assert found["aaaaaa"] == "The user uses emacs as editor."
    assert {"bbbbbb", "cccccc", "dddddd"} <= set(found) and len(found) == 5


def test_a_write_that_did_not_happen_is_not_a_version(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "MEMORY.md")
    journal.record(_stamped(1, "a"))
    journal.discard(journal.record(_stamped(2, "a", "b")))
    assert journal.head() == ((digest(_stamped(1, "a")) or "")[:16], _stamped(1, "a"))
    assert not journal.wrote(digest(_stamped(2, "a", "b")))


def test_what_the_engine_forgot_outlives_the_versions_that_forgot_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "MEMORY.md", keep=3)
    previous = journal.record(_stamped(0, "a"))
    assert previous is not None
    for n in range(1, 10):
        data = _stamped(n, "a", str(n))
        forgot = {"abc123": "f00d"} if n == 1 else {}
        journal.record(data, parents=[digest(_stamped(n - 1, "a", str(n - 1)))], forgot=forgot)
    assert journal.forgotten() == {"abc123": "f00d"}


def test_a_versions_ancestry_is_read_from_the_start_of_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ancestry of a kept version (its parents, what it forgot, its rules' mark) is read
    from the start of its file, without the version's bytes after it; an ancestry longer
    than the start read is read whole all the same."""
    import zlib

    import everbot_memory.storage.journal as journal_module

    journal = Journal(tmp_path / "MEMORY.md")
    root = journal.record(_stamped(0, "a"))
    forgot = {f"gone{n:04d}": f"{n:08x}" for n in range(300)}
    kept = journal.record(
        _stamped(1, "b"), parents=[digest(_stamped(0, "a"))], forgot=forgot, scrubbed="mark"
    )
    assert root is not None and kept is not None
    # The version's bytes after the ancestry (its own compressed member), damaged: the
    # ancestry is still read.
    raw = kept.read_bytes()
    member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    member.decompress(raw)
    ancestry_end = len(raw) - len(member.unused_data)
    kept.write_bytes(raw[:ancestry_end] + b"\x1f\x8b damaged after the ancestry" * 5000)
    read: list[int] = []

    class Counted:
        def __init__(self, path: Path, mode: str) -> None:
            self.handle = path.open(mode)

        def __enter__(self) -> Counted:
            return self

        def __exit__(self, *_: object) -> None:
            self.handle.close()

        def read(self, size: int = -1) -> bytes:
            data: bytes = self.handle.read(size)
            read.append(len(data))
            return data

    monkeypatch.setattr(journal_module, "open", Counted, raising=False)
    assert journal.scrubbed(digest(_stamped(1, "b"))) == "mark"
    assert journal.forgotten() == forgot
    assert read and max(read) <= journal_module._START_READ  # never the whole version
    monkeypatch.undo()
    # A start read that stops inside the ancestry: read on, to the end of it.
    monkeypatch.setattr(journal_module, "_START_READ", 16)
    assert journal.scrubbed(digest(_stamped(1, "b"))) == "mark"
    assert journal.forgotten() == forgot


def test_a_new_process_hashes_the_swapped_out_file_once_per_save(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file a save swapped out (kept to see an editor's late write into it) is hashed
    once by the next process's save, to check it holds what its name says, and compared as
    bytes after that."""
    import everbot_memory.storage.backend as backend_module

    MemoryStore(memory_path).save([make_entry("aaaaaa", "The user likes tea.")])
    first = memory_path.read_bytes()
    MemoryStore(memory_path).save([make_entry("aaaaaa", "The user likes green tea.")])
    hashed: list[bytes] = []
    real = backend_module.digest

    def hashing(data: bytes | None) -> str | None:
        hashed.append(data or b"")
        return real(data)

    monkeypatch.setattr(backend_module, "digest", hashing)
    store = MemoryStore(memory_path)
    assert store.save([*store.load(), make_entry("bbbbbb", "The user has a cat.")])
    assert hashed.count(first) == 1  # the swapped-out file of the save before
    # It was not written into: it is gone now, and the new one is kept instead.
    folder = SideFiles.of(memory_path).previous.parent
    assert len(list(folder.glob("previous-*"))) == 1


def test_a_late_write_into_the_swapped_out_file_during_a_save_is_kept(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A late write into the file the last save swapped out, landing after the next save
    found it as it was kept (and before it swaps the file again), keeps it on disk for a
    save to merge, even when the write leaves it as long as it was."""
    from everbot_memory.storage.backend import LocalFile

    MemoryStore(memory_path).save([make_entry("aaaaaa", "The user likes tea.")])
    MemoryStore(memory_path).save([make_entry("aaaaaa", "The user likes mint.")])
    folder = SideFiles.of(memory_path).previous.parent
    (swapped_out,) = folder.glob("previous-*")
    keep = LocalFile._keep_previous

    def writing_late(self: LocalFile, *args: object) -> None:
        with swapped_out.open("r+b") as handle:  # an editor's in-place save, as long
            data = handle.read().replace(b"likes tea.", b"likes tee.")
            handle.seek(0)
            handle.write(data)
        keep(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(LocalFile, "_keep_previous", writing_late)
    store = MemoryStore(memory_path)
    assert store.save([*store.load(), make_entry("bbbbbb", "The user has a cat.")])
    assert swapped_out.exists() and b"likes tee." in swapped_out.read_bytes()
    monkeypatch.undo()
    store = MemoryStore(memory_path)
    store.save([*store.load(), make_entry("cccccc", "The user has a dog.")])
    assert not swapped_out.exists()  # merged, then let go of


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["type", "type", "reload", "read", "write"]), max_size=45))
def test_any_interleaving_of_editor_saves_and_engine_writes_loses_nothing(
    steps: list[str],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "MEMORY.md"
        now = datetime.now(timezone.utc)
        MemoryStore(path).save(
            [make_entry(f"e{i:05d}", f"seed {i}", 0.5, at=now) for i in range(5)]
        )
        buffer = path.read_text(encoding="utf-8")  # what the person's editor holds
        hand: list[str] = []
        engine: list[str] = []
        memory = MemoryManager(path)
        for step in steps:
            if step == "type":  # the person adds a memory and saves the buffer
                hand.append(f"Hand memory {len(hand)}.")
                at = buffer.find("\n## Archived Memories")
                at = at if at >= 0 else len(buffer)
                today = now.strftime("%Y-%m-%d")
                buffer = buffer[:at] + f"\n### fact | 0.9 | {today}\n{hand[-1]}\n" + buffer[at:]
                path.write_text(buffer, encoding="utf-8")
            elif step == "reload":
                buffer = path.read_text(encoding="utf-8")
            elif step == "read":
                MemoryStore(path).load()
            else:
                engine.append(f"Engine memory {len(engine)}.")
                memory.remember(engine[-1])
        memory.remember("The last word.")
        text = path.read_text(encoding="utf-8")
        assert [c for c in hand + engine if c not in text] == []
        assert all(text.count(c) == 1 for c in hand + engine)


def test_an_unclosed_fence_that_swallows_memories_is_reported_with_its_line() -> None:
    from everbot_memory.document.parse import parse

    text = (
        "# Agent Memory\n\n## Active Memories\n\n### workflow | 0.8 | 2026-03-01\n"
        "The user runs:\n```python\nprint(1)\n\n### todo | 0.5 | 2026-03-05 | 1\n"
        "The user needs to buy milk.\n"
    )
    [warning] = [p for p in parse(text).problems if p.kind == "warning"]
    assert warning.line == 7 and "never closes" in warning.message
    closed = text.replace("print(1)\n", "print(1)\n```\n")
    assert not [p for p in parse(closed).problems if p.kind == "warning"]
    assert len(parse(closed).entries) == 2


def test_a_file_the_previous_version_wrote_loads_unchanged(memory_path: Path) -> None:
    """Groups, the profile and consolidation's links are new; a file written before them reads
    with nothing repaired, and a save only adds the derived profile in front of its memories."""
    old = (FIXTURES / "memory" / "previous_version.md").read_text(encoding="utf-8")
    doc = parse(old)
    assert doc.problems == [] and doc.notes == [] and len(doc.entries) == 4
    assert all(e.group is None and not e.condensed_from for e in doc.entries)
    memory_path.write_text(old, encoding="utf-8")
    store = MemoryStore(memory_path)
    store.save(store.load())
    new = memory_path.read_text(encoding="utf-8")
    profile = new[new.index("## Profile") : new.index("## Active Memories")]
    body = new.replace(profile, "")
    assert body.split("-->\n", 2)[2] == old.split("-->\n", 2)[2]  # all but the header stamp
    assert parse(new).entries == doc.entries


def test_a_change_past_the_first_megabyte_of_a_large_file_is_seen(memory_path: Path) -> None:
    """The file is compared a megabyte at a time: a save that changes the last memory of a
    file of several megabytes writes it, and one that changes nothing writes nothing."""
    entries = [
        make_entry(f"m{n:05d}", f"Memory {n}: {'the user likes long notes. ' * 12}", 0.9 - n / 1e5)
        for n in range(6000)
    ]
    store = MemoryStore(memory_path)
    store.save(entries)
    assert memory_path.stat().st_size > 2 * 2**20
    loaded = store.load()
    assert store.save(loaded) is False
    last = loaded[-1]
    assert store.save([*loaded[:-1], last.replace(content=last.content + " Changed.")]) is True
    assert memory_path.read_text(encoding="utf-8").count("Changed.") == 1


def test_the_file_is_compared_with_what_was_read_a_piece_at_a_time(tmp_path: Path) -> None:
    from everbot_memory.storage.backend import _file_holds

    data = bytes(range(256)) * 9000  # more than two pieces
    path = tmp_path / "f"
    path.write_bytes(data)
    assert _file_holds(path, data)
    assert not _file_holds(path, data[:-1] + b"\x00")
    assert not _file_holds(path, data + b"x")
    path.write_bytes(data[: 2**20] + bytes([data[2**20] ^ 1]) + data[2**20 + 1 :])
    assert not _file_holds(path, data)


def test_a_memory_removed_by_a_save_that_repeats_an_older_version_stays_removed(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Added and removed within one second's stamp, the file is byte for byte an older
    version: the removal is still kept, and a person's edit merged after it does not bring
    the memory back."""
    import everbot_memory.storage.store as store_module

    # The stamp stays on one second (the clock itself runs: the journal orders by it).
    stamp = datetime(2026, 3, 2, 10, 0, 0, tzinfo=timezone.utc)
    monkeypatch.setattr(store_module, "utcnow", lambda: stamp)
    tea = make_entry("aaaaaa", "The user likes tea.")
    bicycle = make_entry("bbbbbb", "The user owns a red bicycle.")
    store = MemoryStore(memory_path)
    store.save([tea])
    first = memory_path.read_bytes()
    store.save([tea, bicycle])
    store.save([tea])
    assert memory_path.read_bytes() == first
    with open(memory_path, "ab") as handle:  # a person's entry, typed by hand
        handle.write(b"\n### [dddddd] fact | 0.70 | 2026-03-01 | 1\nHand note.\n")
    stamp = datetime(2026, 3, 2, 10, 0, 5, tzinfo=timezone.utc)
    store.save([tea, make_entry("cccccc", "The user drinks coffee.")])
    ids = {e.id for e in parse(memory_path.read_text(encoding="utf-8")).entries}
    assert ids == {"aaaaaa", "cccccc", "dddddd"}


def test_a_date_before_the_year_1000_is_written_with_four_digits(memory_path: Path) -> None:
    """A heading a person dated 0001-01-01 reads back as that day after a save (the year was
    written as "1", which reads as no date, and every save was refused)."""
    memory_path.write_text(
        "# Agent Memory\n\n<!-- Last updated: 2026-02-20T10:30:00Z -->\n"
        "<!-- Total entries: 1 -->\n\n## Active Memories\n\n"
        "### [a1b2c3] preference | 0.92 | 0001-01-01 | 12\nThe user likes tea.\n",
        encoding="utf-8",
    )
    store = MemoryStore(memory_path)
    store.save([*store.load(), make_entry("c1", "The user owns a cat.")])
    text = memory_path.read_text(encoding="utf-8")
    assert "| 0001-01-01 |" in text
    doc = parse(text)
    assert doc.problems == []
    assert {e.id: e.last_activated.year for e in doc.entries}["a1b2c3"] == 1


@given(
    st.lists(st.sampled_from("abcdefgh"), max_size=12),
    st.lists(st.tuples(st.integers(0, 12), st.sampled_from("abcdefghz")), max_size=4),
    st.lists(st.integers(0, 12), max_size=4),
    st.sampled_from([None, 2, 100]),
)
@settings(max_examples=400, deadline=None)
def test_the_ids_a_save_removes_are_those_a_set_difference_gives(
    before: list[str],
    inserted: list[tuple[int, str]],
    removed: list[int],
    long: int | None,
) -> None:
    """Ids twice, ids moved, and lists alike but for a few places or for many."""
    from everbot_memory.storage import store

    if long is not None:  # many alike at both ends, or more than the window between
        before = [f"x{n}" for n in range(long)] + before + [f"y{n}" for n in range(long)]
    after = list(before)
    for place in removed:
        if after:
            del after[place % len(after)]
    for place, name in inserted:
        after.insert(place % (len(after) + 1), name)
    assert store._gone(before, after) == set(before) - set(after)


def test_a_kept_version_reuses_the_compressed_pieces_of_the_one_it_came_from(
    tmp_path: Path,
) -> None:
    import gzip

    from everbot_memory.storage import journal as journal_module

    path = tmp_path / "MEMORY.md"
    path.write_text("# Memory\n", encoding="utf-8")
    journal = Journal(path)
    # Memories enough for a few pieces (at least a megabyte each).
    body = "".join(
        f"### [{n:06x}] fact | 0.60 | 2026-03-01 | 1\nMemory {n} says {'words ' * 40}\n\n"
        for n in range(12_000)
    )
    before = f"# Memory\n\n<!-- Last updated: 2026-03-01T00:00:00Z -->\n\n{body}".encode()
    first = digest(before)
    journal.record(before, version=first, packed=journal.packing(before, None, None))
    cut = before.index(b"\n### [", len(before) // 2) + 1
    after = (
        before[:cut].replace(b"2026-03-01T00:00:00Z", b"2026-03-02T00:00:00Z")
        + b"### [zzzzzz] fact | 0.60 | 2026-03-02 | 1\nA new memory.\n\n"
        + before[cut:]
    )
    second = digest(after)
    journal.record(
        after, parents=[first], version=second, packed=journal.packing(after, first, before)
    )
    head = journal.head()
    assert head is not None and head == (second[:16], after)
    kept = sorted(journal.folder.glob("*.gz"))
    assert gzip.decompress(kept[-1].read_bytes()).split(b"\n", 1)[1] == after
    # The pieces after the new memory's are the same compressed bytes as before.
    old = journal_module._Kept(kept[0], before).places
    new = journal_module._Kept(kept[1], after).places
    assert len(old) >= 3
    shared = {k for k in old if k in new and bytes(old[k][1]) == bytes(new[k][1])}
    assert len(shared) >= len(old) - 2
    # A piece damaged on disk is compressed again, not carried on.
    damaged = bytearray(kept[1].read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF  # a piece the next version holds as it is
    kept[1].write_bytes(bytes(damaged))
    third = digest(after + b"\n")
    journal.record(
        after + b"\n",
        parents=[second],
        version=third,
        packed=journal.packing(after + b"\n", second, after),
    )
    assert journal.head() == (third[:16], after + b"\n")


@pytest.mark.parametrize("pieces", [[{"size": 1}], [[1, 2]], "x", [[1, 2, "3"]]])
def test_a_kept_version_with_a_damaged_record_of_its_pieces_reuses_none(
    tmp_path: Path, pieces: object
) -> None:
    import gzip
    import json

    from everbot_memory.storage import journal as journal_module

    data = b"# Memory\n"
    meta = json.dumps({"pieces": pieces}).encode()
    kept = tmp_path / "v.gz"
    kept.write_bytes(gzip.compress(journal_module._MAGIC + meta + b"\n") + gzip.compress(data))
    assert journal_module._Kept(kept, data).places == {}
    kept.write_bytes(gzip.compress(journal_module._MAGIC + b"{not json\n") + gzip.compress(data))
    assert journal_module._Kept(kept, data).places == {}
