"""The hooks' caches built anew on each save: what a save reuses gives what a build from nothing
gives, in the same process (each memory's part) and in the next one (the memo)."""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import T0, make_entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_store import _CONTENT

from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.profile import profile_lines
from everbot_memory.core.rules import CATEGORIES
from everbot_memory.storage import hot, hot_build, hot_patch
from everbot_memory.storage.paths import SideFiles

_IDS = [f"m{n:03d}" for n in range(12)]


@st.composite
def _entry(draw: st.DrawFn, entry_id: str) -> MemoryEntry:
    at = T0 - timedelta(days=draw(st.integers(0, 60)), seconds=draw(st.integers(0, 86_399)))
    expires = draw(st.one_of(st.none(), st.integers(-3, 30)))
    return MemoryEntry(
        id=entry_id,
        content=draw(st.one_of(_CONTENT, st.sampled_from(["I like tea.", "Uses vim daily."]))),
        category=draw(st.sampled_from(CATEGORIES)),
        score=draw(st.floats(min_value=0.05, max_value=1)),
        created_at=at - timedelta(days=draw(st.integers(0, 30))),
        last_activated=at,
        activation_count=draw(st.integers(0, 9)),
        group=draw(st.one_of(st.none(), st.sampled_from(["work", "life"]))),
        replaces=tuple(draw(st.lists(st.sampled_from(_IDS), max_size=2))),
        expires_at=None if expires is None else T0 + timedelta(days=expires),
        condensed_into=draw(st.one_of(st.none(), st.just("m000"))),
    )


@st.composite
def _edits(draw: st.DrawFn) -> list[tuple[list[MemoryEntry], datetime]]:
    """A sequence of files (each a list of entries) and the time each is saved at."""
    entries = {i: draw(_entry(i)) for i in draw(st.lists(st.sampled_from(_IDS), unique=True))}
    now = T0
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        for entry_id in draw(st.lists(st.sampled_from(_IDS), max_size=3, unique=True)):
            action = draw(st.sampled_from(["new", "score", "content", "drop", "copy"]))
            old = entries.get(entry_id)
            if action == "drop":
                entries.pop(entry_id, None)
            elif old is None or action == "new":
                entries[entry_id] = draw(_entry(entry_id))
            elif action == "score":
                entries[entry_id] = old.with_score(draw(st.floats(min_value=0.05, max_value=1)))
            elif action == "content":
                entries[entry_id] = old.replace(content=draw(_CONTENT))
            else:  # an equal entry, but another object (a load of the same file)
                entries[entry_id] = old.replace()
        now += timedelta(hours=draw(st.sampled_from([0, 1, 13, 24, 24 * 9, 24 * 40])))
        steps.append((list(entries.values()), now))
    return steps


def _as_written(built: tuple[dict, dict, list, dict, float]) -> tuple[dict, dict]:  # type: ignore[type-arg]
    prompt, search, parts, _, _ = built
    written = hot_build._search_file(search, [p.json() for p in parts])
    return prompt, hot_build._search_part(json.loads(b"".join(written)))


@given(_edits())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_a_build_from_the_last_ones_parts_is_a_build_from_nothing(
    steps: list[tuple[list[MemoryEntry], datetime]],
) -> None:
    parts: dict[str, hot_build._Part] | None = None
    for n, (entries, now) in enumerate(steps):
        data = f"version {n}".encode()
        profile = profile_lines([], entries)
        again = hot_build.build(data, entries, now, None, profile, parts)
        fresh = hot_build.build(data, entries, now, None, profile)
        assert _as_written(again) == _as_written(fresh)
        assert _as_written(fresh)[1] == json.loads(json.dumps(fresh[1]))  # the same JSON
        parts = again[3]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts tokenized for the search file."""
    import everbot_memory.core.text as text

    seen: list[str] = []
    tokens = text.search_tokens

    def counting(value: str) -> list[str]:
        seen.append(value)
        return tokens(value)

    monkeypatch.setattr(text, "search_tokens", counting)
    monkeypatch.setattr(hot_build, "_BUILT", {})
    yield seen


def _file(path: Path, entries: list[MemoryEntry]) -> bytes:
    data = ("\n".join(e.content for e in entries) + "\n").encode()
    path.write_bytes(data)
    return data


def _spliced_as_built(
    path: Path,
    base: tuple[bytes, list[MemoryEntry]],
    changed: list[MemoryEntry],
    when: datetime,
    counted: list[str],
    tokenized: list[str],
) -> Any:
    """The hooks' files a save of ``changed`` prepares from those of ``base`` (the file's
    bytes and entries), checked to be spliced, not built, to tokenize only ``tokenized``
    (``counted`` records what was), and to equal a build from nothing."""
    profile = profile_lines([], changed)
    data, entries = base
    built = hot_patch.prepare(
        path, _file(path, changed), changed, when, profile, base=(hot.file_digest(data), entries)
    )
    assert built._search_file is not None  # spliced, not built
    assert counted == tokenized
    fresh = hot_build.build(path.read_bytes(), changed, when, None, profile)
    assert (built.prompt, built.search) == fresh[:2]
    return built


def test_a_save_tokenizes_only_the_memories_it_changed(tmp_path: Path, counted: list[str]) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(f"e{n}", f"Memory number {n} is about tea.") for n in range(20)]
    hot_build.write(path, _file(path, entries), entries, T0)
    assert len(counted) == 20
    counted.clear()
    changed = [*entries[:5], entries[5].replace(content="Now about coffee."), *entries[6:]]
    prompt, search = hot_build.write(path, _file(path, changed), changed, T0)
    assert counted == ["Now about coffee."]
    again = hot_build.build(path.read_bytes(), changed, T0)
    assert (prompt, search) == again[:2]


def test_a_new_process_reads_the_memo_of_the_last_build(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(f"e{n}", f"Memory number {n} is about tea.") for n in range(20)]
    hot_build.write(path, _file(path, entries), entries, T0)
    monkeypatch.setattr(hot_build, "_BUILT", {})  # what a new process knows
    counted.clear()
    loaded = [e.replace() for e in entries[1:]]  # the same memories, read from the file
    changed = [entries[0].replace(content="Now about coffee."), *loaded]
    prompt, search = hot_build.write(path, _file(path, changed), changed, T0)
    assert counted == ["Now about coffee."]
    assert (prompt, search) == hot_build.build(path.read_bytes(), changed, T0)[:2]
    cached = hot.HotFiles(path).search(T0.timestamp())
    assert cached is not None and cached.rows == search["rows"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: data.replace(b'"version":5', b'"version":4'),
        lambda data: data[:-2],
        lambda data: b"[]",
    ],
)
def test_a_damaged_search_file_is_not_read(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch, damage: Any
) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(f"e{n}", f"Memory number {n} is about tea.") for n in range(5)]
    data = _file(path, entries)
    hot_build.write(path, data, entries, T0)
    search = SideFiles.of(path).hook_file(hot.SEARCH_FILE)
    search.write_bytes(damage(search.read_bytes()))
    monkeypatch.setattr(hot_build, "_BUILT", {})
    counted.clear()
    changed = [*entries, make_entry("e9", "A new memory about coffee.")]
    version = hot.file_digest(data)
    built = hot_patch.prepare(path, _file(path, changed), changed, T0, base=(version, entries))
    assert len(counted) == 6  # every memory tokenized again
    assert (built.prompt, built.search) == hot_build.build(path.read_bytes(), changed, T0)[:2]


def test_a_secret_typed_into_a_memory_is_not_indexed_or_memoized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hot_build, "_BUILT", {})
    path = tmp_path / "MEMORY.md"
    secret = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
    entries = [make_entry("e1", f"The deploy token is {secret} for the staging box.")]
    hot_build.write(path, _file(path, entries), entries, T0)
    folder = SideFiles.of(path).folder
    for name in (hot.SEARCH_FILE, hot.PROMPT_FILE):
        assert secret.lower() not in (folder / name).read_text(encoding="utf-8").lower()


@given(st.text())
def test_property_a_string_is_encoded_as_json_encodes_it(text: str) -> None:
    assert hot_build._string(text) == json.dumps(text, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("same_version", [True, False])
def test_a_new_process_takes_the_rows_of_the_version_it_read(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch, same_version: bool
) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(f"e{n}", f"Memory number {n} is about tea.") for n in range(20)]
    entries[3] = entries[3].replace(replaces=("e4",))
    data = _file(path, entries)
    hot_build.write(path, data, entries, T0)
    monkeypatch.setattr(hot_build, "_BUILT", {})  # what a new process knows
    hashed: list[str] = []
    key = hot_build._memo_key
    monkeypatch.setattr(hot_build, "_memo_key", lambda text: hashed.append(text) or key(text))
    counted.clear()
    loaded = [e.replace() for e in entries]  # the same memories, as a parse gives them
    changed = [loaded[0].replace(content="Now about coffee."), *loaded[1:3], *loaded[4:]]
    version = hot.file_digest(data) if same_version else "0" * 64
    built = hot_build.prepare(path, _file(path, changed), changed, T0, base=(version, loaded))
    built.put()
    assert counted == ["Now about coffee."]
    if same_version:
        # Only the new text and e4 (no longer replaced by anyone: its row changes) are
        # looked up by their content; the others' rows are taken by id.
        assert hashed == ["Now about coffee.", loaded[4].content]
    else:
        assert len(hashed) == len(changed)  # built for another version: by content only
    assert (built.prompt, built.search) == hot_build.build(path.read_bytes(), changed, T0)[:2]
    cached = hot.HotFiles(path).search(T0.timestamp())
    assert cached is not None and cached.rows == built.search["rows"]


@given(_edits(), st.sampled_from([0, 0, 1, 5, 13, 30]))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_a_save_that_splices_the_last_files_writes_a_build_from_nothing(
    steps: list[tuple[list[MemoryEntry], datetime]], later: int
) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "MEMORY.md"
        for n in range(1, len(steps)):
            (before, now), (after, _) = steps[n - 1], steps[n]
            old, new = f"version {n - 1}".encode(), f"version {n}".encode()
            hot_build._BUILT.clear()
            path.write_bytes(old)
            hot_build.write(path, old, before, now, profile_lines([], before))
            hot_build._BUILT.clear()  # what a new process knows
            profile = profile_lines([], after)
            base = (hot.file_digest(old), before)
            files = SideFiles.of(path)
            # Saved at once, or hours later (a memory shown may have decayed; a day passed).
            when = now + timedelta(hours=later)
            built = hot_patch.patched(files, after, when, profile, hot.file_digest(new), base)
            assert built is not None  # the rows spliced; the lines spliced or chosen anew
            fresh = hot_build.build(new, after, when, None, profile)
            assert (built.prompt, built.search) == fresh[:2]
            built.put()
            cached = hot.HotFiles(path)
            cached._digest = hot.file_digest(new)
            rows = cached.search(when.timestamp())
            assert rows is not None and rows.rows == fresh[1]["rows"]
            assert rows.text == fresh[1]["tokens"] and rows.starts == fresh[1]["starts"]


def test_a_new_memory_in_a_large_file_is_spliced_in(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [
        make_entry(f"e{n:02d}", f"Memory number {n} is about tea.", score=0.3 + n / 100).replace(
            group=("work", "life", None)[n % 3]
        )
        for n in range(60)
    ]
    data = _file(path, entries)
    hot_build.write(path, data, entries, T0, profile_lines([], entries))
    monkeypatch.setattr(hot_build, "_BUILT", {})
    counted.clear()
    strong = make_entry("new", "The user now drinks coffee.", score=0.95).replace(group="work")
    weak = make_entry("weak", "A faint memory of juice.", score=0.2)
    changed = [*entries[:10], strong, *entries[11:], weak]  # e10 (weak, not shown) removed
    tokenized = [strong.content, weak.content]
    built = _spliced_as_built(path, (data, entries), changed, T0, counted, tokenized)
    assert built.prompt["ids"][0] == "new"


def test_saves_in_a_new_process_and_the_same_one_splice_what_a_build_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from everbot_memory.document import parse
    from everbot_memory.storage.store import MemoryStore

    path = tmp_path / "MEMORY.md"
    MemoryStore(path).save(
        [make_entry(f"e{n:02d}", f"Memory number {n} is about tea.") for n in range(40)]
    )
    spliced: list[bool] = []
    patch = hot_patch.patched

    def counting(*args: Any) -> Any:
        built = patch(*args)
        spliced.append(built is not None)
        return built

    monkeypatch.setattr(hot_patch, "patched", counting)
    for step in range(3):
        monkeypatch.setattr(hot_build, "_BUILT", {})  # a new process
        store = MemoryStore(path)
        for again in range(2):  # and a second save in the same one
            entries = store.load()
            new = make_entry(f"n{step}{again}", f"New memory {step} {again} about coffee.")
            store.save([*entries, new])
            data = path.read_bytes()
            now = datetime.now().astimezone()
            doc = parse(data.decode("utf-8"))
            fresh = hot_build.build(data, doc.entries, now, None, doc.profile)
            cached = hot.HotFiles(path)
            lines, rows = cached.prompt(now.timestamp()), cached.search(now.timestamp())
            assert lines is not None and rows is not None
            assert (lines.lines, lines.ids, lines.total) == (
                fresh[0]["lines"],
                fresh[0]["ids"],
                fresh[0]["total"],
            )
            assert (rows.rows, rows.text, rows.lengths) == (
                fresh[1]["rows"],
                fresh[1]["tokens"],
                fresh[1]["lengths"],
            )
    assert spliced == [True] * 6


def _sizes_swapped(data: bytes) -> bytes:
    """Two memories' line sizes swapped (still adding up to the file): its own checksum
    tells."""
    import marshal

    cut = data.find(b"\n", 9)
    ids, sizes = marshal.loads(data[cut + 1 :])
    numbers = array("q", sizes)
    numbers[0], numbers[1] = numbers[1] + 1, numbers[0] - 1
    return data[: cut + 1] + marshal.dumps((ids, numbers), 2)


def _prompt_edited(data: bytes) -> bytes:
    cached = json.loads(data)  # a person's line, in a memory's place
    lines = ["- The user hates music.", *cached["lines"][1:]]
    return json.dumps({**cached, "lines": lines}).encode()


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        (hot_build.LINES_FILE, lambda data: data[:-9] + bytes([data[-9] ^ 1]) + data[-8:]),
        (hot_build.LINES_FILE, lambda data: data.replace(b'"sha256":"', b'"sha256":"0')),
        (hot_build.LINES_FILE, _sizes_swapped),
        (hot_build.LINES_FILE, lambda data: b""),
        (hot.PROMPT_FILE, _prompt_edited),
        (hot.PROMPT_FILE, lambda data: data.replace(b'"ids":["', b'"ids":["zzz')),
    ],
)
def test_caches_damaged_or_changed_by_hand_send_the_save_to_a_build(
    tmp_path: Path, name: str, damage: Any
) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(f"e{n}", f"Memory number {n} is about tea.") for n in range(5)]
    data = _file(path, entries)
    hot_build.write(path, data, entries, T0)
    cache = SideFiles.of(path).hook_file(name)
    cache.write_bytes(damage(cache.read_bytes()))
    changed = [*entries, make_entry("e9", "A new memory about coffee.")]
    base = (hot.file_digest(data), entries)
    built = hot_patch.prepare(path, _file(path, changed), changed, T0, base=base)
    assert built._search_file is None  # built, not spliced
    assert (built.prompt, built.search) == hot_build.build(path.read_bytes(), changed, T0)[:2]
    assert "The user hates music." not in json.dumps(built.prompt)


def test_a_save_after_a_shown_memory_decayed_chooses_the_lines_a_build_chooses(
    tmp_path: Path,
) -> None:
    from everbot_memory.core.rules import GRACE_DAYS

    path = tmp_path / "MEMORY.md"
    start = T0.replace(hour=1, minute=0, second=0)
    # Shown, and a step of decay due at 03:00 each day; the others decay at 23:00.
    decays = make_entry(
        "d0",
        "The user keeps bees.",
        0.9,
        at=start - timedelta(days=GRACE_DAYS + 5) + timedelta(hours=2),
    )
    others = [
        make_entry(
            f"o{n}",
            f"Memory number {n} is about tea.",
            0.8,
            at=start - timedelta(days=GRACE_DAYS + 5) - timedelta(hours=2),
        )
        for n in range(4)
    ]
    entries = [decays, *others]
    data = _file(path, entries)
    hot_build.write(path, data, entries, start)
    base = (hot.file_digest(data), entries)
    changed = [*entries, make_entry("n1", "The user owns a red bicycle.", 0.3)]
    files = SideFiles.of(path)
    new = _file(path, changed)
    # Before 03:00 the change is spliced into the last lines; after it, and the next day,
    # the lines are chosen again from every memory's score (the rows spliced all the same).
    for hours in (1, 4, 30):
        when = start + timedelta(hours=hours)
        built = hot_patch.patched(files, changed, when, [], hot.file_digest(new), base)
        assert built is not None
        fresh = hot_build.build(new, changed, when)
        assert (built.prompt, built.search) == fresh[:2]
    assert "The user keeps bees." in hot_build.build(new, changed, start)[0]["lines"][0]


def test_a_save_days_later_keeps_the_rows_of_memories_only_rescored(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from everbot_memory.core.merge import MergeStats, settle

    path = tmp_path / "MEMORY.md"
    entries = [
        make_entry(f"e{n:02d}", f"Memory number {n} is about tea.", score=0.3 + n / 100).replace(
            group=("work", None)[n % 2]
        )
        for n in range(40)
    ]
    data = _file(path, entries)
    hot_build.write(path, data, entries, T0, profile_lines([], entries))
    monkeypatch.setattr(hot_build, "_BUILT", {})
    counted.clear()
    later = T0 + timedelta(days=20)
    # Every memory decayed (another object, another score, the same anchor), one added.
    decayed = settle(entries, later, MergeStats(), set())
    scores = {e.id: e.score for e in entries}
    assert len(decayed) == len(entries) and all(e.score < scores[e.id] for e in decayed)
    new = make_entry("new", "The user now drinks coffee.", score=0.95, at=later)
    _spliced_as_built(path, (data, entries), [*decayed, new], later, counted, [new.content])


def test_rows_written_in_a_programs_order_are_spliced_for_the_base_in_file_order(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(f"e{n:02d}", f"Memory number {n} is about tea.") for n in range(20)]
    data = _file(path, entries)
    # Saved in the order a program gave them; read back (the base) in the file's order.
    hot_build.write(path, data, entries[::-1], T0, profile_lines([], entries))
    monkeypatch.setattr(hot_build, "_BUILT", {})
    counted.clear()
    new = make_entry("new", "The user now drinks coffee.", score=0.95)
    _spliced_as_built(path, (data, entries), [*entries, new], T0, counted, [new.content])


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 150),
    edits=st.lists(
        st.tuples(st.sampled_from(["add", "drop", "move", "twice"]), st.integers(0, 10**6)),
        max_size=4,
    ),
)
def test_property_rows_found_by_the_ends_are_those_of_a_table(
    size: int, edits: list[tuple[str, int]]
) -> None:
    """Each memory's row in the last search file, found from the ids the last rows and the
    new memories begin and end with alike, is the one a table of every row gives; rows that
    hold an id twice are never spliced this way."""
    ids = [f"id{n}" for n in range(size)]
    new = list(ids)
    for what, at in edits:
        if what == "add":
            new.insert(at % (len(new) + 1), f"new{at}")
        elif new and what == "drop":
            new.pop(at % len(new))
        elif new and what == "move":
            new.insert(at % len(new), new.pop((at // 7) % len(new)))
        elif ids and what == "twice":
            ids[at % len(ids)] = ids[(at // 7) % len(ids)]
    distinct = set(new)
    if len(distinct) != len(new):
        return  # a save never splices memories with an id twice
    found = hot_patch._places(ids, new, distinct)
    if len(set(ids)) != len(ids):
        assert found is None
        return
    table = {i: n for n, i in enumerate(ids)}
    assert found is None or found[0] == [table.get(i, len(ids)) for i in new]
    if len(edits) <= 1 and all(what == "add" or what == "drop" for what, _ in edits):
        assert found is not None  # one change in place: found by the ends
