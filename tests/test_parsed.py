"""The parse kept beside the file: a process reading a version the engine wrote rebuilds the
document from the record, and gets exactly what parsing the file gives; any other version,
or a record that does not check out, is parsed as always."""

from __future__ import annotations

import itertools
import json
import marshal
import sys
import zlib
from array import array
from pathlib import Path
from typing import Any

import pytest
from conftest import T0, days, make_entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import everbot_memory.storage.parsed as parsed_module
import everbot_memory.storage.store as store_module
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.scoring import file_order
from everbot_memory.document import Document, parse
from everbot_memory.errors import StoreError
from everbot_memory.storage.paths import SideFiles
from everbot_memory.storage.store import MemoryStore


def _entries() -> list[MemoryEntry]:
    return [
        make_entry("a1", "The user prefers pytest over unittest.", 0.9),
        make_entry("a2", "Line one\nline two, under the first", 0.7, category="fact"),
        make_entry("a3", "# not a heading\n\n```\ncode\n```", 0.6, category="workflow"),
        make_entry(
            "a4", "Dentist on Friday.", 0.5, category="todo", expires_at=T0 + days(4), group="life"
        ),
        make_entry("a5", "An old memory, archived.", 0.1, category="experience"),
        make_entry("a6", "Merged one.", 0.8, merged_ids=("x1", "x2"), replaces=("a5",)),
        make_entry("a7", "用户喜欢喝乌龙茶。", 0.65, base_score=0.7, base_at=T0 - days(2)),
    ]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the store, or a hook rebuilding its files, parsed a file's text."""
    calls: list[int] = []
    # The parser's module (the package's ``parse`` names the function): what a hook's
    # rebuild imports when it runs.
    parse_module = sys.modules["everbot_memory.document.parse"]
    for module in (store_module, parse_module):
        real = module.parse

        def counting(text: str, *args: object, real: Any = real) -> Document:
            calls.append(len(text))
            return real(text, *args)  # type: ignore[no-any-return]

        monkeypatch.setattr(module, "parse", counting)
    return calls


def _same(doc: Document, text: str) -> None:
    """``doc`` is what parsing ``text`` gives, field by field."""
    expected = parse(text)
    assert doc.entries == expected.entries
    assert [e.id for e in doc.entries] == [e.id for e in expected.entries]
    assert doc.lines == expected.lines
    assert doc.preamble == expected.preamble
    assert doc.notes == expected.notes
    assert doc.profile == expected.profile
    assert doc.last_updated == expected.last_updated
    assert doc.problems == expected.problems == []
    assert {k: v[1] for k, v in doc.sources.items()} == {
        k: v[1] for k, v in expected.sources.items()
    }
    assert all(doc.sources[k][0] == v[0] for k, v in expected.sources.items())


def _split(part: bytes) -> tuple[dict[str, Any], bytes, bytes, bytes]:
    """A record's first part taken apart: its head, its rows, its places, its trailer."""
    size = int(part[:16], 16)
    payload, trailer = part[26 : 26 + size], part[26 + size :][: parsed_module._TRAILER]
    cut = payload.index(b"\n")
    head = json.loads(payload[:cut])
    rows = payload[cut + 1 : cut + 1 + head["size"]]
    return head, rows, payload[cut + 1 + head["size"] :], trailer


def _framed(head: dict[str, Any], rows: bytes, rest: bytes, trailer: bytes) -> bytes:
    """A part made of these pieces, framed and checksummed as a record's are."""
    head = {**head, "size": len(rows)}
    payload = json.dumps(head, separators=(",", ":")).encode() + b"\n" + rows + rest
    return b"%016x %08x\n" % (len(payload), zlib.crc32(payload)) + payload + trailer


def _person_text(path: Path) -> None:
    """A person's text around the entries: before them, in the profile, in the notes."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(" -->\n\n## ")  # the header's last comment
    text = f"{head} -->\n\nSome words of mine.\n\nAnd a second paragraph.\n\n## {rest}"
    text += "\n## Notes\n\nA note of mine.\n\n- a list\n- of two\n"
    path.write_text(text, encoding="utf-8")


def test_a_new_process_reads_the_record_of_the_version_a_save_wrote(
    memory_path: Path, parses: list[int]
) -> None:
    MemoryStore(memory_path).save(_entries())
    parses.clear()
    doc = MemoryStore(memory_path).load_document()
    assert parses == []  # from the record
    _same(doc, memory_path.read_text(encoding="utf-8"))


def test_the_record_holds_a_persons_text_as_a_parse_reads_it(
    memory_path: Path, parses: list[int]
) -> None:
    MemoryStore(memory_path).save(_entries())
    _person_text(memory_path)
    store = MemoryStore(memory_path)
    loaded = store.load()
    assert parses  # an editor's version: parsed
    store.save([*loaded[1:], make_entry("b1", "A new memory after the edit.", 0.75)])
    parses.clear()
    doc = MemoryStore(memory_path).load_document()
    assert parses == []
    assert doc.preamble and doc.notes
    _same(doc, memory_path.read_text(encoding="utf-8"))


def test_an_editors_version_is_parsed_not_read_from_the_record(
    memory_path: Path, parses: list[int]
) -> None:
    MemoryStore(memory_path).save(_entries())
    text = memory_path.read_text(encoding="utf-8")
    memory_path.write_text(text.replace("over unittest", "over nose"), encoding="utf-8")
    parses.clear()
    doc = MemoryStore(memory_path).load_document()
    assert parses
    assert doc.entries[0].content == "The user prefers pytest over nose."


@pytest.mark.parametrize(
    "damage",
    ["flip", "cut", "garbage", "format", "python", "head", "shape", "values", "places", "shifted"],
)
def test_a_record_that_does_not_check_out_is_ignored(
    memory_path: Path, parses: list[int], damage: str
) -> None:
    MemoryStore(memory_path).save(_entries())
    record = SideFiles.of(memory_path).hook_file(parsed_module.FILE)
    data = record.read_bytes()
    if damage == "flip":
        # The same length and shape, one memory's text changed: the checksum tells.
        data = data.replace(b"pytest over unittest", b"pytest over unittesT")
    elif damage == "cut":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = b"\x00\xff not json"
    elif damage == "format":
        data = data.replace(b'"format":%d' % parsed_module.FORMAT, b'"format":0', 1)
    elif damage == "python":
        # Written in another version of marshal's format.
        data = data.replace(b'"marshal":%d' % parsed_module._MARSHAL, b'"marshal":99', 1)
    elif damage in ("shape", "values", "places", "shifted"):
        # Checksummed right, but not the columns of entries (one column short, or columns of
        # the wrong kinds of value), or not where the entries' texts are (each a byte off,
        # or counted in characters, as an older format did): a save would write those cuts.
        head, rows, rest, trailer = _split(data)
        columns = marshal.loads(rows)
        (lines, places, sizes, order), until = marshal.loads(rest)
        typecode = head["places"]
        offsets = array(typecode, places)
        if damage == "shape":
            columns = columns[1:]
        elif damage == "values":
            columns = [["text"]] * len(columns)
        elif damage == "places":
            offsets = array(typecode, [at + 1 for at in offsets])
        else:
            raw = memory_path.read_bytes()
            before = head["before"]  # the header: ASCII
            chars = array(typecode, [len(raw[: before + at].decode()) - before for at in offsets])
            assert chars != offsets  # a memory in Chinese comes before some
            offsets = chars
        rows = marshal.dumps(columns, parsed_module._MARSHAL)
        rest = marshal.dumps(((lines, offsets, sizes, order), until), parsed_module._MARSHAL)
        data = _framed(head, rows, rest, trailer)
    else:
        # Still well-formed, what the file holds besides its entries changed: the checksum
        # covers the head too.
        assert b'"preamble":[]' in data
        data = data.replace(b'"preamble":[]', b'"preamble":["Not in the file."]', 1)
    record.write_bytes(data)
    parses.clear()
    store = MemoryStore(memory_path)
    doc = store.load_document()
    assert parses
    assert doc.entries == parse(memory_path.read_text(encoding="utf-8")).entries
    # A save from it writes every memory whole.
    store.save([*doc.entries, make_entry("b9", "One more memory.", 0.5)])
    again = parse(memory_path.read_text(encoding="utf-8"))
    assert again.problems == []
    added = [*doc.entries, make_entry("b9", "One more memory.", 0.5)]
    assert again.entries == sorted(added, key=file_order)


def test_a_folder_that_cannot_hold_the_record_costs_a_parse_only(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[int]
) -> None:
    def refuse(*args: object, **kwargs: object) -> bool:
        raise OSError(13, "Permission denied")

    import everbot_memory.storage.atomic as atomic

    real = atomic.write_atomically

    def picky(path: Path, *args: object, **kwargs: object) -> bool:
        if path.name == parsed_module.FILE:
            return refuse()
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic, "write_atomically", picky)
    MemoryStore(memory_path).save(_entries())
    parses.clear()
    doc = MemoryStore(memory_path).load_document()
    assert parses
    assert len(doc.entries) == len(_entries())


_PIECES = [*"ab #*-_>`~<!|[]()\n\t.:1用", "<!--", "-->", "```", "~~~", "## ", "\n\n", "- "]
_PIECES.append("### [x] fact | 0.50 | 2026-01-01 | 1\n")
_TEXT = (
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=16)
    .map("".join)
    .filter(lambda t: t.strip() != "")
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    contents=st.lists(_TEXT, min_size=1, max_size=6),
    preamble=st.lists(_TEXT, max_size=2),
    notes=st.lists(_TEXT, max_size=2),
)
def test_the_record_is_what_a_parse_of_the_written_file_gives(
    tmp_path_factory: pytest.TempPathFactory,
    contents: list[str],
    preamble: list[str],
    notes: list[str],
) -> None:
    path = tmp_path_factory.mktemp("record") / "MEMORY.md"
    entries = [
        make_entry(f"h{n}", text, 0.15 + 0.8 * n / len(contents)) for n, text in enumerate(contents)
    ]
    doc = Document(entries, [p.strip() for p in preamble], [n.strip() for n in notes])
    from everbot_memory.document import render

    # A person's text first (as an editor would leave it), then a save by the engine.
    path.write_text(render(doc, "2026-03-01T09:00:00Z"), encoding="utf-8")
    store = MemoryStore(path)
    loaded = store.load()
    before = path.read_bytes()
    try:
        store.save([*loaded, make_entry("new", "One more memory.", 0.5)])
    except StoreError:
        assert path.read_bytes() == before  # refused (a person's text would swallow more)
        return
    text = path.read_text(encoding="utf-8")
    files = SideFiles.of(path)
    from everbot_memory.storage.atomic import digest

    recorded = parsed_module.document(files, digest(text.encode()) or "", text.encode())
    if parse(text).problems:
        # Text a parse repairs or warns about is never recorded as canonical.
        assert recorded is None
        return
    assert recorded is not None  # a text that parses clean is recorded
    _same(recorded, text)


def test_the_profile_made_from_recorded_entries_follows_their_changes(memory_path: Path) -> None:
    lives = make_entry("p1", "The user lives in Porto.", 0.9, category="fact")
    works = make_entry("p2", "The user works at Nordwind Logistics.", 0.8, category="fact")
    MemoryStore(memory_path).save([lives, works, *_entries()])
    assert "Porto" in memory_path.read_text(encoding="utf-8").split("## Active")[0]
    store = MemoryStore(memory_path)
    loaded = store.load()
    assert store.load_document().derived is not None  # the record's profile, reused
    moved = [e.replace(content="The user lives in Lisbon.") if e.id == "p1" else e for e in loaded]
    store.save(moved)
    text = memory_path.read_text(encoding="utf-8")
    profile = text.split("## Active")[0]
    assert "Lisbon" in profile and "Porto" not in profile
    assert "Nordwind" in profile
    # What a save from a parse (no record) writes for the same memories.
    other = memory_path.with_name("OTHER.md")
    MemoryStore(other).save(moved)
    assert (
        other.read_text(encoding="utf-8").split("## Active")[0].split("\n", 4)[4]
        == (profile.split("\n", 4)[4])
    )


def test_the_hooks_rebuild_their_files_from_the_record(
    memory_path: Path, parses: list[int]
) -> None:
    from everbot_memory.facade.hooks import refresh

    MemoryStore(memory_path).save(_entries())
    parses.clear()
    later = (T0 + days(2)).timestamp()  # a day passed: the hooks' files are stale
    _, rows = refresh(memory_path, later)
    assert parses == []
    assert len(rows.rows) == len(_entries())
    # An editor's version is parsed.
    text = memory_path.read_text(encoding="utf-8")
    memory_path.write_text(text.replace("over unittest", "over nose"), encoding="utf-8")
    _, rows = refresh(memory_path, later)
    assert parses and any("over nose" in row for row in rows.rows)


def _recorded(path: Path) -> Document | None:
    """What a new process reads from the record for the file as it is (None: it parses)."""
    from everbot_memory.storage.atomic import digest

    data = path.read_bytes()
    return parsed_module.document(SideFiles.of(path), digest(data) or "", data)


def _record_of(path: Path) -> Path:
    return SideFiles.of(path).hook_file(parsed_module.FILE)


def _edits(entries: list[MemoryEntry], step: int) -> list[MemoryEntry]:
    """One of a few kinds of change, by ``step``: a memory changed, added, removed, rescored
    (moved to the other section), or several at once."""
    kind = step % 5
    if kind == 0:
        return [entries[0].replace(content=f"Changed at step {step}."), *entries[1:]]
    if kind == 1:
        return [*entries, make_entry(f"n{step}", f"A memory added at step {step}.", 0.55)]
    if kind == 2:
        return entries[:1] + entries[2:]
    if kind == 3:
        last = entries[-1]
        moved = last.replace(score=0.1 if last.score >= 0.2 else 0.9)
        return [*entries[:-1], moved]
    changed = [e.replace(content=e.content + " Again.") for e in entries[::3]]
    return changed + [e for n, e in enumerate(entries) if n % 3]


@pytest.mark.parametrize("new_process", [False, True])
def test_each_save_appends_its_change_to_the_record(
    memory_path: Path, parses: list[int], new_process: bool
) -> None:
    MemoryStore(memory_path).save(
        [*_entries(), *(make_entry(f"m{n}", f"Memory {n}.") for n in range(200))]
    )
    first = _record_of(memory_path).read_bytes()
    store = MemoryStore(memory_path)
    entries = store.load()
    for step in range(4):  # (more, and the record is written whole again: see below)
        if new_process:
            store = MemoryStore(memory_path)
            entries = store.load()
        entries = _edits(entries, step)
        store.save(entries)
        parses.clear()
        loaded = MemoryStore(memory_path).load()
        assert parses == []  # a new process reads the record
        assert loaded == parse(memory_path.read_text(encoding="utf-8")).entries
        entries = store.load()
        record = _record_of(memory_path).read_bytes()
        assert record.startswith(first) and len(record) > len(first)  # appended to
        doc = _recorded(memory_path)
        assert doc is not None
        _same(doc, memory_path.read_text(encoding="utf-8"))
        first = record


def test_a_record_grown_enough_is_written_whole_again(memory_path: Path) -> None:
    entries = [make_entry(f"m{n}", f"Memory number {n}.", 0.3 + n / 100) for n in range(30)]
    MemoryStore(memory_path).save(entries)
    size = len(_record_of(memory_path).read_bytes())
    store = MemoryStore(memory_path)
    entries = store.load()
    sizes = []
    for step in range(40):
        entries = [entries[0].replace(content=f"Changed {step} times."), *entries[1:]]
        store.save(entries)
        sizes.append(len(_record_of(memory_path).read_bytes()))
    assert max(sizes) <= 3 * size  # the first part, as many bytes of parts, and one more
    assert any(b < a for a, b in itertools.pairwise(sizes))  # written whole again
    doc = _recorded(memory_path)
    assert doc is not None
    _same(doc, memory_path.read_text(encoding="utf-8"))


def _damaged(record: bytes, damage: str, other: bytes) -> bytes:
    """``record`` (a first part and parts appended) damaged in one way."""
    if damage == "cut-last":
        return record[:-40]
    if damage == "cut-trailer":
        return record[:-1]
    if damage == "flip-middle":
        middle = len(record) * 2 // 3
        return record[:middle] + bytes([record[middle] ^ 0x55]) + record[middle + 1 :]
    if damage == "garbage":
        return record + b"\x00\xff not a part at all\n" * 3
    if damage == "frame":
        return record + b"%016x %08x\n" % (10, 0) + b"0123456789"
    if damage == "other-record":
        # A part written for another record (another file's, or one written whole again).
        size = int(other[:16], 16) + 26 + parsed_module._TRAILER
        return record + other[size:]
    if damage == "empty":
        return b""
    raise AssertionError(damage)


_DAMAGE = ["cut-last", "cut-trailer", "flip-middle", "garbage", "frame", "other-record", "empty"]


@pytest.mark.parametrize("damage", _DAMAGE)
def test_a_damaged_chain_of_parts_is_never_trusted(
    memory_path: Path, parses: list[int], damage: str
) -> None:
    # Another file's record, with parts appended, to take a part from.
    other_path = memory_path.with_name("OTHER.md")
    other = MemoryStore(other_path)
    other.save(_entries())
    other.save([*other.load(), make_entry("o1", "Another file's memory.", 0.5)])
    other.save([*other.load(), make_entry("o2", "And another one.", 0.5)])
    store = MemoryStore(memory_path)
    store.save(_entries())
    for step in range(4):
        store.save(_edits(store.load(), step))
    record = _record_of(memory_path)
    record.write_bytes(_damaged(record.read_bytes(), damage, _record_of(other_path).read_bytes()))
    text = memory_path.read_text(encoding="utf-8")
    found = _recorded(memory_path)
    if found is not None:  # what is read is what a parse gives, or nothing
        _same(found, text)
    parses.clear()
    later = MemoryStore(memory_path)
    doc = later.load_document()
    _same(doc, text)
    if damage in ("garbage", "frame", "other-record"):
        assert parses == []  # the parts before the damage still stand for this version
    # Saves after it keep a record that reads as the file does.
    for step in range(4, 7):
        later.save(_edits(later.load(), step))
        found = _recorded(memory_path)
        assert found is not None
        _same(found, memory_path.read_text(encoding="utf-8"))
        assert MemoryStore(memory_path).load() == parse(memory_path.read_text("utf-8")).entries


def test_a_file_put_back_to_an_earlier_version_is_read_as_that_version(
    memory_path: Path,
) -> None:
    store = MemoryStore(memory_path)
    store.save([*_entries(), *(make_entry(f"m{n}", f"Memory {n}.") for n in range(200))])
    texts = []
    for step in range(3):
        store.save(_edits(store.load(), step))
        texts.append(memory_path.read_bytes())
    memory_path.write_bytes(texts[1])  # as an undo in an editor leaves it
    doc = _recorded(memory_path)
    assert doc is not None  # the record's parts up to that version
    _same(doc, texts[1].decode())
    # The next save writes a record that reads as the file does.
    later = MemoryStore(memory_path)
    later.save(_edits(later.load(), 7))
    found = _recorded(memory_path)
    assert found is not None
    _same(found, memory_path.read_text(encoding="utf-8"))


_STEPS = st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=12)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=_STEPS)
def test_property_a_record_with_parts_appended_reads_as_a_parse(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[int, bool]]
) -> None:
    path = tmp_path_factory.mktemp("chain") / "MEMORY.md"
    store = MemoryStore(path)
    store.save(_entries())
    entries = store.load()
    for number, (kind, new_process) in enumerate(steps):
        if new_process:
            store = MemoryStore(path)
            entries = store.load()
        entries = _edits(entries, kind + 5 * number)
        store.save(entries)
        entries = store.load()
        text = path.read_text(encoding="utf-8")
        found = _recorded(path)
        assert found is not None
        _same(found, text)


@pytest.mark.parametrize("shared", [True, False])
def test_the_recorded_times_read_back_as_written(shared: bool) -> None:
    """The record's times come back as the entries held them, whether they are most of them
    different (each made on its own) or shared by many entries (made once each), with and
    without an expiry; a column of times that is another's shares that one's objects."""
    entries = [
        make_entry(
            f"t{n}",
            f"Memory {n}.",
            at=T0 - days(n % 3 if shared else n),
            expires_at=None if n % 2 else T0 + days(1 + n % 4),
        )
        for n in range(40)
    ]
    entries += [make_entry("moved", "Anchored apart.", base_score=0.9, base_at=T0 - days(9))]
    back = parsed_module._entries(parsed_module._columns(entries))
    assert back == entries
    assert [e.expires_at for e in back] == [e.expires_at for e in entries]
    if shared:
        # Entries that had one time hold one object for it.
        assert len({id(e.created_at) for e in back}) == len({e.created_at for e in back})
    same = parsed_module._entries(parsed_module._columns(entries[:-1]))
    # (make_entry anchors each memory at its last activation.)
    assert all(e.base_at is e.last_activated for e in same)


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 150),
    edits=st.lists(
        st.tuples(st.sampled_from(["add", "drop", "move", "fresh"]), st.integers(0, 10**6)),
        max_size=6,
    ),
    shuffled=st.booleans(),
)
def test_property_rows_found_by_the_ends_are_the_rows_of_each_id(
    size: int, edits: list[tuple[str, int]], shuffled: bool
) -> None:
    """The row each entry takes in an appended part, found from the ids the two versions
    begin and end with alike, is the one a table of every id gives."""
    import random

    before = [f"id{n}" for n in range(size)]
    rows = array("q", range(size))
    if shuffled:
        random.Random(size).shuffle(rows)
    after = parsed_module.Log("v", before, rows, size + 3, 0, 0, "m")
    ids, fresh = list(before), set()
    for what, at in edits:
        if what == "add":
            ids.insert(at % (len(ids) + 1), f"new{at}")
        elif ids and what == "drop":
            ids.pop(at % len(ids))
        elif ids and what == "move":
            ids.insert(at % len(ids), ids.pop((at // 7) % len(ids)))
        elif ids:
            fresh.add(ids[at % len(ids)])
    row_of = dict(zip(before, rows, strict=True))
    for gone in fresh:
        row_of.pop(gone, None)
    expected = list(map(row_of.get, ids))
    found = parsed_module._kept_rows(after, ids, fresh)
    assert found is None or found == expected
    if len(edits) <= 1 and all(what != "move" for what, _ in edits):
        assert found is not None  # one change in place: found by the ends


def test_places_past_four_bytes_are_kept_in_eight(memory_path: Path) -> None:
    """The record keeps each entry's place in 4-byte numbers, copied as they are; a file of
    2 GB or more (a place that does not fit) has them all kept in 8-byte numbers."""
    import importlib

    render_module = importlib.import_module("everbot_memory.document.render")
    assert parsed_module._numbers([0, 2**31 - 1]).typecode == "i"
    assert parsed_module._numbers([0, 2**31]).typecode == "q"
    texts = [b"### [a] x\nText.", b"### [b] x\nMore\ntext."]
    out = [b"# Title", b"", b"## Active Memories", b"", texts[0], b"", texts[1], b""]
    small = render_module._starts(out, 1, [(2, 2)])
    wide = render_module._starts_in("q", out, 1, [(2, 2)])
    assert [a.typecode for a in small] == ["i", "i"] and [a.typecode for a in wide] == ["q"] * 2
    assert small == (array("i", wide[0]), array("i", wide[1]))
    MemoryStore(memory_path).save(_entries())
    store = MemoryStore(memory_path)
    doc = store.load_document()
    assert store._log is not None
    kept = parsed_module.Record(
        doc,
        array("q", [2**31 + n for n in range(len(doc.entries))]),
        array("i", range(len(doc.entries))),
        array("i", [1] * len(doc.entries)),
        1,
        0,
    )
    part = parsed_module._part("0" * 64, kept, None, (), "m" * 16, doc.entries)
    head = json.loads(part[parsed_module._FRAME : part.index(b"\n", parsed_module._FRAME)])
    assert (head["places"], head["width"]) == ("q", 8)


def test_recorded_places_are_trusted_only_where_each_text_ends_a_line() -> None:
    """Each entry's text is cut from the file's bytes only where it begins with its own
    heading and a line break follows it: a place past the end of the bytes, or one whose
    text is not followed by a line break, makes the record useless (the file is parsed)."""
    data = b"# T\n\n### [a] x\nOne.\n\n### [b] x\nTwo.\n"
    first, second = data.index(b"### [a]"), data.index(b"### [b]")
    sizes = [len(b"### [a] x\nOne."), len(b"### [b] x\nTwo.")]
    assert parsed_module._texts(data, ["a", "b"], [first, second], sizes) == [
        b"### [a] x\nOne.",
        b"### [b] x\nTwo.",
    ]
    assert parsed_module._texts(data, ["a", "b"], [first, second], [sizes[0] - 1, sizes[1]]) is None
    assert parsed_module._texts(data, ["a", "b"], [first, second], [sizes[0], sizes[1] + 1]) is None
    assert parsed_module._texts(data[:-1], ["a", "b"], [first, second], sizes) is None
    assert parsed_module._texts(data, ["b", "a"], [first, second], sizes) is None
