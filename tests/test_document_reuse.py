"""Saves that write again the text of unchanged entries: the result is the full canonical render."""

from __future__ import annotations

import importlib
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import T0, make_entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_store import _CONTENT, entries_strategy

from everbot_memory.core.entry import MemoryEntry
from everbot_memory.document import Document, parse, render
from everbot_memory.document.render import render_entry, render_parts
from everbot_memory.errors import StoreError
from everbot_memory.storage.store import MemoryStore

STAMP = "2026-01-01T00:00:00Z"


@st.composite
def changed(draw: st.DrawFn, entries: list[MemoryEntry]) -> list[MemoryEntry]:
    """``entries`` with some changed (content, score or hits), some removed, some added."""
    result = []
    for entry in entries:
        action = draw(st.sampled_from(["keep", "keep", "content", "score", "hits", "drop"]))
        if action == "content":
            entry = entry.replace(content=draw(_CONTENT))
        elif action == "score":
            entry = entry.replace(score=draw(st.floats(min_value=0, max_value=1)))
        elif action == "hits":
            entry = entry.replace(activation_count=entry.activation_count + 1)
        if action != "drop":
            result.append(entry)
    taken = {e.id for e in result}
    for n in range(draw(st.integers(0, 2))):
        if f"new00{n}" not in taken:
            result.append(make_entry(f"new00{n}", draw(_CONTENT), 0.5))
    return result


@given(st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_reused_text_equals_the_full_render(data: st.DataObject) -> None:
    entries = data.draw(entries_strategy())
    notes = data.draw(st.lists(st.text(min_size=1, max_size=30), max_size=2))
    first = render(Document(entries=entries, notes=notes, last_updated=STAMP))
    doc = parse(first)
    wanted = data.draw(changed(doc.entries))
    new = Document(wanted, doc.preamble, doc.notes, STAMP, sources=doc.sources)
    body = render_parts(new, reuse=True)
    full = render(Document(wanted, doc.preamble, doc.notes, STAMP))
    assert full.endswith(body.text)
    unchanged = {e.id: e for e in doc.entries}
    assert {e.id for e in body.fresh} == {e.id for e in wanted if unchanged.get(e.id) != e}


@given(st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_a_save_from_the_engines_file_is_the_canonical_file(data: st.DataObject) -> None:
    entries = data.draw(entries_strategy())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        store = MemoryStore(path)
        store.save(entries)
        loaded = MemoryStore(path)
        wanted = data.draw(changed(loaded.load()))
        loaded.save(wanted)
        text = path.read_text(encoding="utf-8")
        stamp = parse(text).last_updated
        assert text == render(Document(entries=wanted, last_updated=stamp))
        reread = MemoryStore(path).load()
        assert sorted(reread, key=lambda e: e.id) == sorted(wanted, key=lambda e: e.id)


def test_text_the_engine_did_not_write_is_rendered_anew(memory_path: Path) -> None:
    entry = make_entry("a1b2c3", "The user likes green tea", 0.8)
    canonical = render(Document(entries=[entry], last_updated=STAMP))
    # The same entry with its metadata keys in another order: read alike, not canonical.
    meta = next(line for line in canonical.splitlines() if line.startswith("<!-- everbot"))
    body = meta.removeprefix("<!-- everbot {").removesuffix("} -->")
    first, rest = body.split(", ", 1)
    shuffled = "<!-- everbot {" + rest + ", " + first + "} -->"
    memory_path.write_text(canonical.replace(meta, shuffled), encoding="utf-8")
    store = MemoryStore(memory_path)
    entries = store.load()
    assert entries == [entry]
    other = make_entry("d4e5f6", "The user lives in Berlin", 0.6)
    store.save([*entries, other])
    text = memory_path.read_text(encoding="utf-8")
    assert shuffled not in text
    assert text == render(Document(entries=[entry, other], last_updated=parse(text).last_updated))


def test_the_second_save_from_one_store_reuses_the_first(memory_path: Path) -> None:
    store = MemoryStore(memory_path)
    entries = [make_entry(f"e0000{n}", f"The user owns {n} bikes", 0.5) for n in range(5)]
    store.save(entries)
    doc = store.load_document()
    assert set(doc.sources) == {e.id for e in entries}
    store.save([*entries[1:], entries[0].replace(content="The user owns no bike")])
    assert set(store.load_document().sources) == {e.id for e in entries}


def test_a_changed_entry_that_does_not_read_back_fails_closed(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore(memory_path)
    entries = [make_entry(f"e0000{n}", f"The user owns {n} bikes", 0.5) for n in range(3)]
    store.save(entries)
    before = memory_path.read_bytes()

    render_module = importlib.import_module("everbot_memory.document.render")
    # A renderer that leaves a fence open would hide the entries after it.
    monkeypatch.setattr(render_module, "render_content", lambda content: "```\n" + content)
    store = MemoryStore(memory_path)
    loaded = store.load()
    with pytest.raises(StoreError, match="would not read back"):
        store.save([loaded[0].replace(content="changed"), *loaded[1:]])
    assert memory_path.read_bytes() == before


def test_values_outside_the_normal_form_take_the_full_checks() -> None:
    fields = {
        "id": "a1b2c3",
        "content": "The user likes tea",
        "category": "fact",
        "score": 0.5,
        "created_at": T0.replace(microsecond=5),
        "last_activated": T0,
        "activation_count": 1,
        "source_session": "",
        "base_score": 0.5,
        "base_at": T0,
        "merged_ids": (),
        "expires_at": None,
        "replaces": (),
    }
    entry = MemoryEntry.from_file(**fields)
    assert entry.created_at == T0.replace(microsecond=0)
    assert entry == MemoryEntry(**fields)
    with pytest.raises(ValueError, match="score"):
        MemoryEntry.from_file(**{**fields, "score": 1.004})
    with pytest.raises(ValueError, match="memory content"):
        MemoryEntry.from_file(**{**fields, "content": "  "})
    naive = {**fields, "created_at": datetime(2026, 1, 1)}
    with pytest.raises(ValueError, match="timezone-aware"):
        MemoryEntry.from_file(**naive)
    same = MemoryEntry.from_file(**{**fields, "created_at": T0})
    assert same == MemoryEntry(**{**fields, "created_at": T0})
    assert same.created_at.tzinfo is timezone.utc


@given(st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_a_memory_whose_score_alone_changed_is_rescored_as_rendered(
    data: st.DataObject,
) -> None:
    # What decay does to every memory each day: the score moves, its anchor does not.
    entries = data.draw(entries_strategy())
    doc = parse(render(Document(entries=entries, last_updated=STAMP)))
    wanted = [e.with_score(data.draw(st.floats(min_value=0.05, max_value=1))) for e in doc.entries]
    body = render_parts(
        Document(wanted, doc.preamble, doc.notes, STAMP, sources=doc.sources), reuse=True
    )
    full = render(Document(wanted, doc.preamble, doc.notes, STAMP))
    assert full.endswith(body.text)
    for entry in wanted:
        assert body.sources[entry.id][1] == render_entry(entry).encode()
    # Rescored, not rendered anew: every one whose score changed, but the one back at its
    # base (whose metadata loses a key).
    rescored = {e.id for e in body.rescored}
    for entry, before in zip(wanted, doc.entries, strict=True):
        if entry.score != before.score and entry.score != entry.base_score:
            assert entry.id in rescored


def test_a_memory_changed_in_more_than_its_score_is_rendered_anew() -> None:
    entry = make_entry("a1b2c3", "The user likes green tea", 0.8, group="life")
    doc = parse(render(Document(entries=[entry], last_updated=STAMP)))
    [loaded] = doc.entries
    for changed in (
        loaded.replace(score=0.5, activation_count=2),
        loaded.replace(score=0.5, group="work"),
        loaded.replace(score=0.5, content="The user likes black tea"),
    ):
        body = render_parts(Document([changed], sources=doc.sources), reuse=True)
        assert body.fresh == [changed] and body.rescored == []
        assert body.sources[changed.id][1] == render_entry(changed).encode()
    # A text not laid out as the engine writes it is not spliced.
    odd = {loaded.id: (loaded, doc.sources[loaded.id][1].replace(b"| 0.80 |", b"| .8 |"))}
    body = render_parts(Document([loaded.with_score(0.5)], sources=odd), reuse=True)
    assert body.rescored == []


def test_a_text_whose_metadata_says_another_score_or_base_is_rendered_anew() -> None:
    entry = make_entry("a1b2c3", "The user likes green tea", 0.8)
    doc = parse(render(Document(entries=[entry], last_updated=STAMP)))
    [loaded] = doc.entries
    text = doc.sources[loaded.id][1]
    based = loaded.with_score(0.5)  # a score below its base: the metadata says both
    based_text = render_entry(based).encode()
    for source in (
        (loaded, text.replace(b'"score": 0.8,', b'"score": 0.83,')),  # a longer number
        (based, based_text.replace(b'"base": 0.8,', b'"base": 0.85,')),
        (based, based_text.replace(b', "base": 0.8', b"")),
        (loaded, text.replace(b'"score": 0.8,', b'"score": 0.8, "base": 0.8,')),
    ):
        changed = source[0].with_score(0.4)
        body = render_parts(Document([changed], sources={changed.id: source}), reuse=True)
        assert body.rescored == []
        assert body.sources[changed.id][1] == render_entry(changed).encode()
