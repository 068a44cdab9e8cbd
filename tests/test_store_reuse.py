"""A save pays for what changed: the memories the engine wrote and that are unchanged are
neither checked for secrets nor read back again, and nothing a person typed escapes either."""

from __future__ import annotations

import gc
import gzip
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import make_entry

import everbot_memory.storage.store as store_module
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.document import Document, parse, render
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
    memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MemoryStore(memory_path).save(_entries())
    store = MemoryStore(memory_path)
    loaded = store.load()
    read_back: list[list[str]] = []
    check = MemoryStore._check_rendered

    def recording(self: MemoryStore, output: str, doc: Document) -> None:
        read_back.append([e.id for e in doc.entries])
        check(self, output, doc)

    monkeypatch.setattr(MemoryStore, "_check_rendered", recording)
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
