"""Near-duplicates: reinforced instead of added, reported by doctor, merged by dedupe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, T0, days, make_entry
from freezegun import freeze_time
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from everbot_memory import MemoryManager, MemoryMerger, MemoryStore
from everbot_memory.core.candidate import Candidate
from everbot_memory.core.duplicates import find_duplicates, most_similar
from everbot_memory.core.text import similarity
from everbot_memory.faces.cli import app

DUPLICATES = FIXTURES / "memory" / "duplicates.md"
runner = CliRunner()


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("The user prefers pytest over unittest.", "The user prefers pytest to unittest", True),
        ("The user likes painting landscapes", "The user likes to paint landscapes", True),
        ("用户喜欢简洁的代码风格，不喜欢过多注释", "用户喜欢简洁的代码风格,不喜欢太多注释", True),
        ("用户住在柏林", "用户住在柏林。", True),
        ("The user likes green tea.", "The user likes black coffee.", False),
        ("用户喜欢喝绿茶", "用户喜欢喝红茶", False),
        ("The user checks quotes at 9:00.", "The user checks quotes at 10:00.", False),
        ("Worker 0 memory number 1.", "Worker 1 memory number 0.", False),
    ],
)
def test_similarity_tells_rewordings_from_different_facts(a: str, b: str, same: bool) -> None:
    assert (similarity(a, b) >= 0.8) is same


@pytest.mark.parametrize(
    "known, said",
    [
        ("The user prefers pytest over unittest.", "The user prefers pytest to unittest"),
        ("用户喜欢简洁的代码风格，不喜欢过多注释", "用户喜欢简洁的代码风格,不喜欢太多注释"),
    ],
)
def test_a_rewording_reinforces_instead_of_adding(known: str, said: str) -> None:
    entry = make_entry(content=known, score=0.6)
    with freeze_time(T0 + days(2)):
        result = MemoryMerger().merge([entry], [Candidate(content=said)], "s2")
    assert result.stats.as_dict() == {
        "new": 0,
        "updated": 1,
        "archived": 0,
        "forgotten": 0,
        "contradicted": 0,
    }
    [after] = result.entries
    assert (after.content, after.activation_count) == (known, 2)
    assert result.placed == [entry.id]


def test_doctor_lists_each_planted_pair(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(DUPLICATES.read_bytes())
    result = runner.invoke(app, ["doctor", "--file", str(path), "--json"])
    assert result.exit_code == 1
    pairs = [p["message"] for p in json.loads(result.stdout)["problems"]]
    assert len(pairs) == 2
    assert "[d00001] and [d00002]" in pairs[0] or "[d00001] and [d00002]" in pairs[1]
    assert any("[d00003] and [d00004]" in p for p in pairs)
    pairs_found = {(a.id, b.id) for a, b, _ in find_duplicates(MemoryStore(path).load())}
    assert pairs_found == {("d00001", "d00002"), ("d00003", "d00004")}


def test_dedupe_keeps_the_stronger_sums_hits_and_records_ids(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(DUPLICATES.read_bytes())
    refused = runner.invoke(app, ["dedupe", "--file", str(path)])
    assert refused.exit_code == 1 and "add --yes" in refused.output
    assert path.read_bytes() == DUPLICATES.read_bytes()
    result = runner.invoke(app, ["dedupe", "--yes", "--file", str(path), "--json"])
    assert result.exit_code == 0, result.output
    merged = {g["kept"]["id"]: g for g in json.loads(result.stdout)}
    assert set(merged) == {"d00001", "d00003"}
    assert merged["d00001"]["kept"]["activation_count"] == 4  # 3 + 1
    assert merged["d00003"]["kept"]["merged_ids"] == ["d00004"]
    entries = {e.id: e for e in MemoryStore(path).load()}
    assert "d00002" not in entries and "d00004" not in entries
    assert entries["d00001"].merged_ids == ("d00002",)  # kept in the file's hidden metadata
    assert {"d00005", "d00006", "d00007", "d00008"} <= set(entries)  # not duplicates
    again = runner.invoke(app, ["dedupe", "--yes", "--file", str(path)])
    assert again.stdout.strip() == "no duplicates found"
    assert runner.invoke(app, ["doctor", "--file", str(path)]).exit_code == 0


def test_remember_says_which_memory_a_rewording_reinforced(tmp_path: Path) -> None:
    manager = MemoryManager(tmp_path / "MEMORY.md")
    first, _ = manager.remember("The user prefers pytest over unittest.")
    second, result = manager.remember("The user prefers pytest to unittest")
    assert second.id == first.id and result.stats.updated == 1


# The last two are compatibility forms: the same tokens once normalized.
_WORDS = st.sampled_from(
    [
        "The user",
        "likes",
        "green",
        "tea",
        "用户",
        "喜欢",
        "绿茶",
        "咖啡",
        "9",
        "10",
        "。",
        "ﾃｽﾄ",
        "\uf900",
    ]
)
_TEXTS = st.lists(_WORDS, min_size=1, max_size=6).map(" ".join)


@given(_TEXTS, st.lists(_TEXTS, max_size=12), st.sampled_from([0.5, 0.8]))
@settings(max_examples=300, deadline=None)
def test_property_most_similar_is_the_best_of_a_full_comparison(
    content: str, texts: list[str], threshold: float
) -> None:
    entries = [make_entry(f"e{n:05d}", text) for n, text in enumerate(texts)]
    best, best_score = None, threshold
    for entry in entries:  # every memory compared, as the cheap tests must not change
        score = similarity(content, entry.content)
        if score >= best_score:
            best, best_score = entry, score
    assert most_similar(content, entries, threshold) == best


# Words whose stems are not their start ("dying" gives "die", "happy" "happi", "went" "go"),
# forms NFKC or case-folding changes (full-width letters, "İ", "ß"), numbers, CJK runs, and
# words sharing beginnings: what the probes of a token must never miss.
_INFLECTED = st.sampled_from(
    [
        *("the", "user", "went", "go", "goes", "going", "gone", "thought", "think"),
        *("dying", "die", "dies", "lying", "lie", "tying", "tie", "skies", "sky"),
        *("happy", "happiness", "happily", "possibility", "possible", "possibly"),
        *("relational", "relate", "relating", "organization", "organize", "hoping", "hope"),
        *("hopping", "hop", "cries", "cry", "generously", "generous", "news", "bought", "buy"),
        *("ＴＥＡ", "tea", "Tea", "İstanbul", "istanbul", "Straße", "strasse", "café", "cafe"),
        *("3.12", "2024", "9:30", "用户", "喜欢", "用户喜欢", "绿茶", "喝绿茶", "的", "吗"),
        *("ﾃｽﾄ", "テスト", "\uf900", "abc中文", "中文abc", "x", "ab", "abc"),
    ]
)
_INFLECTED_TEXTS = st.lists(_INFLECTED, min_size=1, max_size=7).map(" ".join)


@given(_INFLECTED_TEXTS, st.lists(_INFLECTED_TEXTS, max_size=16), st.sampled_from([0.5, 0.8]))
@settings(max_examples=400, deadline=None)
def test_property_the_cheap_tests_keep_every_decision_on_inflected_words(
    content: str, texts: list[str], threshold: float
) -> None:
    entries = [make_entry(f"e{n:05d}", text) for n, text in enumerate(texts)]
    best, best_score = None, threshold
    for entry in entries:
        score = similarity(content, entry.content)
        if score >= best_score:
            best, best_score = entry, score
    assert most_similar(content, entries, threshold) == best


def test_the_probes_of_a_token_are_in_every_text_that_gives_it() -> None:
    from everbot_memory.core.text import casefolded, probes, tokenize

    texts = [
        "The user went dying happily to the relational organization, hoping for skies.",
        "Generously, the user bought possibilities; İstanbul ＴＥＡ Straße café 3.12",
        "用户喜欢喝绿茶吗 abc中文 ﾃｽﾄ \uf900 x ab cries tying lying thought gone",
    ]
    for text in texts:
        normal = casefolded(text)
        for token in tokenize(text):
            assert all(not found or any(p in normal for p in found) for found in [probes(token)])
