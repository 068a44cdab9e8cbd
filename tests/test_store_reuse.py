"""A save pays for what changed: the memories the engine wrote and that are unchanged are
neither checked for secrets nor read back again, and nothing a person typed escapes either."""

from __future__ import annotations

import gc
import gzip
import importlib
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import make_entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import everbot_memory.storage.store as store_module
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.profile import profile_lines
from everbot_memory.document import Document, parse, render
from everbot_memory.document.render import render_parts
from everbot_memory.errors import StoreError
from everbot_memory.storage.journal import Journal
from everbot_memory.storage.paths import SideFiles
from everbot_memory.storage.store import MemoryStore, scrub_mark

SECRET = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"


def _entries(count: int = 8) -> list[MemoryEntry]:
    return [
        make_entry(f"e{n:05d}", f"Memory {n}: the user likes tea number {n}.") for n in range(count)
    ]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the memories a save looked at for secrets."""
    seen: list[str] = []
    scrub = store_module.scrub

    def counting(items: Sequence[MemoryEntry], *args: object) -> object:
        seen.extend(e.id for e in items)
        return scrub(items, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "scrub", counting)
    return seen


@pytest.fixture
def read_back(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The ids of the memories each read-back check of a save parsed."""
    seen: list[list[str]] = []
    check = MemoryStore._check_rendered

    def recording(self: MemoryStore, output: str, doc: Document) -> None:
        seen.append([e.id for e in doc.entries])
        check(self, output, doc)

    monkeypatch.setattr(MemoryStore, "_check_rendered", recording)
    return seen


def _everything_beside(path: Path) -> str:
    """MEMORY.md and every side file, as text (the journal's versions decompressed)."""
    texts = [path.read_text(encoding="utf-8")]
    for file in SideFiles.of(path).folder.rglob("*"):
        if file.is_file():
            data = file.read_bytes()
            texts.append(
                gzip.decompress(data).decode("utf-8", "replace")
                if file.suffix == ".gz"
                else data.decode("utf-8", "replace")
            )
    return "\n".join(texts)


def test_a_save_checks_for_secrets_only_what_changed(memory_path: Path, checked: list[str]) -> None:
    MemoryStore(memory_path).save(_entries())
    store = MemoryStore(memory_path)
    loaded = store.load()
    checked.clear()
    store.save([loaded[0].replace(content="The user now likes coffee."), *loaded[1:]])
    assert checked == ["e00000"]
    checked.clear()
    again = store.load()  # the same file, read again: equal entries, other objects
    store.save([*again, make_entry("e99999", "A new memory.")])
    assert checked == ["e99999"]


def test_a_save_reads_back_only_what_it_rendered_anew(
    memory_path: Path, read_back: list[list[str]]
) -> None:
    MemoryStore(memory_path).save(_entries())
    store = MemoryStore(memory_path)
    loaded = store.load()
    read_back.clear()
    store.save([loaded[0].replace(content="Changed:\n```\nkept as data\n```"), *loaded[1:]])
    assert read_back == [["e00000"]]
    text = memory_path.read_text(encoding="utf-8")
    assert text == render(Document(parse(text).entries, last_updated=parse(text).last_updated))


def test_a_secret_typed_by_hand_into_a_memory_is_redacted_by_the_next_save(
    memory_path: Path,
) -> None:
    MemoryStore(memory_path).save(_entries())
    text = memory_path.read_text(encoding="utf-8")
    memory_path.write_text(text.replace("tea number 3.", f"tea; token {SECRET} here."))
    store = MemoryStore(memory_path)
    loaded = store.load()
    assert any(SECRET in e.content for e in loaded)
    store.save([loaded[0].replace(score=0.9), *loaded[1:]])  # the typed memory itself unchanged
    assert any("redacted" in w and "e00003" in w for w in store.warnings)
    assert SECRET not in _everything_beside(memory_path)


def test_a_secret_typed_while_a_change_is_made_is_redacted(memory_path: Path) -> None:
    MemoryStore(memory_path).save(_entries())
    store = MemoryStore(memory_path)
    loaded = store.load()
    # A person saves from an editor between the engine's load and its save.
    text = memory_path.read_text(encoding="utf-8")
    memory_path.write_text(text.replace("tea number 5.", f"tea; token {SECRET} here."))
    store.save([loaded[0].replace(content="The user now likes coffee."), *loaded[1:]])
    after = {e.id: e.content for e in MemoryStore(memory_path).load()}
    assert after["e00000"] == "The user now likes coffee."
    assert "[redacted:" in after["e00005"]
    assert SECRET not in _everything_beside(memory_path)


def test_memories_checked_with_other_rules_are_all_checked_again(
    memory_path: Path, checked: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    MemoryStore(memory_path).save(_entries())
    head = Journal(memory_path).scrubbed(MemoryStore(memory_path).backend.read().version)
    assert head == scrub_mark()
    # A newer engine, with another secret rule: what the old one wrote is not trusted as is.
    monkeypatch.setattr(store_module, "scrub_mark", lambda: "another-rule-set")
    store = MemoryStore(memory_path)
    loaded = store.load()
    checked.clear()
    store.save([loaded[0].replace(score=0.9), *loaded[1:]])
    assert sorted(checked) == sorted(e.id for e in loaded)


def test_a_version_the_engine_did_not_write_is_rendered_and_checked_whole(
    memory_path: Path, checked: list[str]
) -> None:
    MemoryStore(memory_path).save(_entries())
    text = memory_path.read_text(encoding="utf-8")
    memory_path.write_text(text + "\nA note a person typed.\n")
    store = MemoryStore(memory_path)
    loaded = store.load()
    checked.clear()
    store.save([loaded[0].replace(score=0.9), *loaded[1:]])
    assert sorted(checked) == sorted(e.id for e in loaded)
    assert "A note a person typed." in memory_path.read_text(encoding="utf-8")


def test_the_journal_keeps_a_version_whole_with_its_ancestry(memory_path: Path) -> None:
    store = MemoryStore(memory_path)
    store.save(_entries(3))
    first = memory_path.read_bytes()
    store.save(_entries(4))
    journal = Journal(memory_path)
    head = journal.head()
    assert head is not None and head[1] == memory_path.read_bytes()
    assert journal.common_ancestor(journal.head()[0], journal.head()[0]) == head[1]  # type: ignore[index]
    older = [v for v in journal._engine_versions() if journal._read(v) == first]
    assert older and journal._with_meta(older[0]).scrubbed == scrub_mark()


@pytest.mark.parametrize("fails", [False, True])
def test_the_collector_runs_again_after_a_save(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch, fails: bool
) -> None:
    if fails:

        def broken(*args: object, **kwargs: object) -> None:
            raise StoreError("disk gone", memory_path)

        monkeypatch.setattr(MemoryStore, "_save_locked", broken)
    assert gc.isenabled()
    try:
        MemoryStore(memory_path).save(_entries(2))
    except StoreError:
        assert fails
    assert gc.isenabled()


_SAYS = st.sampled_from(
    [
        "The user's name is Lena.",
        "The user's name is Omar.",
        "用户住在柏林",
        "The user lives in Lisbon.",
        "The user prefers short answers.",
        "The user uses vim and tmux.",
        "The user works at Acme.",
        "Nothing about the user at all.",
    ]
)


@st.composite
def _profile_edits(draw: st.DrawFn) -> list[list[MemoryEntry]]:
    """Files in turn: memories the profile may or may not be derived from, changed,
    added and removed."""
    ids = [f"p{n:05d}" for n in range(8)]

    def one(entry_id: str) -> MemoryEntry:
        return make_entry(
            entry_id,
            draw(_SAYS),
            draw(st.sampled_from([0.3, 0.49, 0.5, 0.7, 0.9])),
            category=draw(st.sampled_from(["preference", "fact", "workflow"])),
            condensed_into=draw(st.sampled_from([None, None, "p00000"])),
        )

    entries = {i: one(i) for i in draw(st.lists(st.sampled_from(ids), unique=True))}
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        for entry_id in draw(st.lists(st.sampled_from(ids), max_size=3, unique=True)):
            if draw(st.booleans()):
                entries.pop(entry_id, None)
            else:
                entries[entry_id] = one(entry_id)
        steps.append(list(entries.values()))
    return steps


@given(_profile_edits(), st.sampled_from([[], ["- Name: Pinned by hand"], ["Some words."]]))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_a_reused_profile_is_the_one_derived_anew(
    steps: list[list[MemoryEntry]], person: list[str]
) -> None:
    _assert_reused_profile_is_derived_anew(steps, person)


def _assert_reused_profile_is_derived_anew(
    steps: list[list[MemoryEntry]], person: list[str]
) -> None:
    last = None
    for entries in steps:
        doc = Document(entries, last_updated="2026-01-01T00:00:00Z", profile=list(person))
        if last is not None:
            doc.sources, doc.derived = last.sources, last.derived
        last = render_parts(doc, reuse=True)
        full = render_parts(Document(entries, last_updated="x", profile=list(person)))
        assert (last.text, last.profile) == (full.text, full.profile)
        # Derived from a prefix of the file: the same as from every memory.
        assert full.profile == profile_lines(person, entries)


def test_an_unchanged_memory_is_written_as_the_engine_wrote_it(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tricky = [
        make_entry("t00001", "Line one\n### [x] fact | 0.9 | 2026-01-01 | 1\n## Archived Memories"),
        make_entry("t00002", "```python\nprint('fenced')\n```\n<!-- a comment -->"),
        make_entry("t00003", "A bell \x07 and a tab\tinside."),
        *_entries(3),
    ]
    MemoryStore(memory_path).save(tricky)
    before = memory_path.read_text(encoding="utf-8")
    store = MemoryStore(memory_path)
    loaded = store.load()
    rendered: list[str] = []
    module = importlib.import_module("everbot_memory.document.render")
    render_entry = module.render_entry

    def counting(entry: MemoryEntry) -> str:
        rendered.append(entry.id)
        return render_entry(entry)

    monkeypatch.setattr(module, "render_entry", counting)
    changed = [e.replace(content="Changed.") if e.id == "e00001" else e for e in loaded]
    store.save(changed)
    assert rendered == ["e00001"]
    after = memory_path.read_text(encoding="utf-8")
    for entry_id in ("t00001", "t00002", "t00003", "e00000", "e00002"):
        assert _block(before, entry_id) == _block(after, entry_id)
    monkeypatch.undo()
    stamp = parse(after).last_updated
    assert after == render(Document(changed, last_updated=stamp))


def _block(text: str, entry_id: str) -> str:
    """An entry's text in the file: its heading up to the next heading."""
    start = text.index(f"### [{entry_id}]")
    ends = [i for i in (text.find("\n### [", start + 1), text.find("\n## ", start)) if i > 0]
    return text[start : min(ends, default=len(text))]


@given(_profile_edits(), st.sampled_from([[], ["- Name: Pinned by hand"]]), st.integers(1, 4))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_a_profile_kept_while_its_strongest_memories_stay_is_the_one_derived_anew(
    steps: list[list[MemoryEntry]], person: list[str], limit: int
) -> None:
    from everbot_memory.core import profile

    with pytest.MonkeyPatch.context() as patch:
        # Fewer memories considered than the file holds: a change to one of the others
        # keeps the profile without deriving it again.
        patch.setattr(profile, "MAX_SOURCES", limit)
        _assert_reused_profile_is_derived_anew(steps, person)


def test_a_new_memory_weaker_than_the_strongest_keeps_the_profile_without_deriving_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from everbot_memory.core import profile

    monkeypatch.setattr(profile, "MAX_SOURCES", 2)
    entries = [
        make_entry("s00001", "The user prefers tea.", 0.9),
        make_entry("s00002", "The user works at Acme.", 0.8),
    ]
    first = render_parts(Document(entries, last_updated="x"), reuse=True)
    derived: list[int] = []
    derive = profile.derive
    monkeypatch.setattr(profile, "derive", lambda e: derived.append(1) or derive(e))
    weak = make_entry("s00003", "The user works at Initech.", 0.6)
    doc = Document([*entries, weak], last_updated="x")
    doc.sources, doc.derived = first.sources, first.derived
    again = render_parts(doc, reuse=True)
    assert derived == [] and again.profile == first.profile
    strong = make_entry("s00004", "The user prefers coffee.", 0.95)
    doc = Document([*entries, strong], last_updated="x")
    doc.sources, doc.derived = first.sources, first.derived
    assert render_parts(doc, reuse=True).profile != first.profile


def test_a_save_a_month_later_rescores_every_memory_without_rendering_or_checking_it(
    memory_path: Path,
    checked: list[str],
    read_back: list[list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from datetime import timedelta

    from everbot_memory.core.merge import MergeStats, settle

    entries = [*_entries(30), make_entry("f00000", "A fenced one:\n```\ncode\n```", 0.9)]
    MemoryStore(memory_path).save(entries)
    store = MemoryStore(memory_path)
    loaded = store.load()
    later = max(e.last_activated for e in loaded) + timedelta(days=30)
    decayed = settle(loaded, later, MergeStats(), set())
    scores = {e.id: e.score for e in loaded}
    assert len(decayed) == len(loaded) and all(e.score < scores[e.id] for e in decayed)
    rendered: list[str] = []
    render_module = importlib.import_module("everbot_memory.document.render")
    render_entry = render_module.render_entry
    monkeypatch.setattr(
        render_module, "render_entry", lambda e: rendered.append(e.id) or render_entry(e)
    )
    checked.clear()
    read_back.clear()
    store.save([*decayed, make_entry("n00000", "A new memory.")])
    assert checked == ["n00000"] and rendered == ["n00000"] and read_back == [["n00000"]]
    text = memory_path.read_text(encoding="utf-8")
    doc = parse(text)
    assert text == render(Document(doc.entries, last_updated=doc.last_updated))
    assert sorted(MemoryStore(memory_path).load(), key=lambda e: e.id) == sorted(
        [*decayed, make_entry("n00000", "A new memory.")], key=lambda e: e.id
    )


def test_a_save_that_failed_after_letting_go_of_old_texts_saves_whole_the_next_time(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A save lets go of the texts its rescored and changed memories had before it writes;
    # when the write fails, the next save from the same store renders those memories anew.
    from datetime import timedelta

    from everbot_memory.core.merge import MergeStats, settle
    from everbot_memory.storage.backend import LocalFile

    MemoryStore(memory_path).save(_entries(20))
    before = memory_path.read_bytes()
    store = MemoryStore(memory_path)
    loaded = store.load()
    later = max(e.last_activated for e in loaded) + timedelta(days=30)
    decayed = settle(loaded, later, MergeStats(), set())
    wanted = [decayed[0].replace(content="The user now likes coffee."), *decayed[1:]]
    write = LocalFile.write

    def failing(self: LocalFile, *args: object, **kwargs: object) -> object:
        raise OSError("disk full")

    monkeypatch.setattr(LocalFile, "write", failing)
    with pytest.raises(OSError):
        store.save(wanted)
    assert memory_path.read_bytes() == before
    monkeypatch.setattr(LocalFile, "write", write)
    assert store.save(wanted)
    text = memory_path.read_text(encoding="utf-8")
    doc = parse(text)
    assert text == render(doc)  # canonical, the profile derived from these memories
    assert sorted(MemoryStore(memory_path).load(), key=lambda e: e.id) == sorted(
        wanted, key=lambda e: e.id
    )


def test_bytes_read_or_written_before_are_not_hashed_again(
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save reads the file it loaded (or last wrote) again: the same bytes are compared
    with those, not hashed again, nor looked over again for a save caught halfway; bytes
    that differ are hashed and looked over as always."""
    import everbot_memory.storage.backend as backend_module

    store = MemoryStore(memory_path)
    store.save(_entries(4))
    hashed: list[bytes] = []
    looked: list[bytes | None] = []
    digest, complete = backend_module.digest, store_module._complete

    def hashing(data: bytes | None) -> str | None:
        hashed.append(data or b"")
        return digest(data)

    def looking(snapshot: object) -> bool:
        looked.append(snapshot.data)  # type: ignore[attr-defined]
        return complete(snapshot)  # type: ignore[arg-type]

    monkeypatch.setattr(backend_module, "digest", hashing)
    monkeypatch.setattr(store_module, "digest", hashing)
    monkeypatch.setattr(store_module, "_complete", looking)
    entries = store.load()
    on_disk = memory_path.read_bytes()
    assert store.save([*entries, make_entry("e99999", "One more memory.")])
    assert on_disk not in hashed and on_disk not in looked  # written by this store: known
    written = memory_path.read_bytes()
    assert hashed == [written]  # the new bytes, hashed once, when made
    assert store.load()[-1].id == "e99999"
    assert hashed == [written] and written not in looked
    # A change made by someone else is hashed and looked over, and read as it is.
    changed = written.replace(b"One more memory.", b"One more memory, edited.")
    memory_path.write_bytes(changed)
    assert store.load()[-1].content == "One more memory, edited."
    assert hashed[-1] == changed and looked[-1] == changed


def test_a_backend_reads_bytes_it_holds_already_as_those(memory_path: Path) -> None:
    """Read again, the bytes a backend last read or wrote come back as the bytes it holds
    (compared with the file, not read into another copy); a change of the file, even one
    that keeps its size, is read and hashed as always."""
    from everbot_memory.storage.atomic import digest
    from everbot_memory.storage.backend import LocalFile

    MemoryStore(memory_path).save(_entries(3))
    backend = LocalFile(memory_path)
    first = backend.read()
    again = backend.read()
    assert again.data is first.data and again.version == first.version
    assert first.data is not None
    changed = first.data.replace(b"tea number 1.", b"tea number 7.")
    assert len(changed) == len(first.data) and changed != first.data
    memory_path.write_bytes(changed)
    after = backend.read()
    assert after.data == changed and after.version == digest(changed)
    memory_path.unlink()
    assert backend.read() == type(after)(None, None)
