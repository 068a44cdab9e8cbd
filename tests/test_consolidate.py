"""Consolidation: clusters of related, weaker memories condensed into one stronger memory, the
originals archived (never deleted by this step), the plan shown as a diff first."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import make_entry
from fake_anthropic import fake_anthropic, message
from freezegun import freeze_time
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.core.candidate import Candidate
from everbot_memory.core.consolidate import apply, plan
from everbot_memory.core.merge import MemoryMerger
from everbot_memory.core.rules import ACTIVE_MIN_SCORE
from everbot_memory.faces.cli import app
from everbot_memory.storage.store import MemoryStore

anthropic = pytest.importorskip("anthropic")

NOW = datetime(2026, 3, 10, 12, tzinfo=timezone.utc)
AT = NOW - timedelta(days=2)

HIKING = [
    make_entry("aaaaaa", "The user likes hiking in the Alps on weekends.", 0.5, at=AT),
    make_entry("bbbbbb", "The user likes hiking in the Alps.", 0.4, at=AT),
    make_entry("cccccc", "The user likes hiking in the Alps on the weekends!", 0.45, at=AT),
]
OTHERS = [
    make_entry("dddddd", "The user drinks oolong tea.", 0.45, at=AT),
    make_entry("eeeeee", "The user likes hiking in the Alps on weekends too.", 0.9, at=AT),
    make_entry("ffffff", "The user likes hiking in the Alps.", 0.4, category="fact", at=AT),
    make_entry("gggggg", "用户周末喜欢去阿尔卑斯山徒步", 0.4, at=AT),
    make_entry("hhhhhh", "用户周末喜欢去阿尔卑斯山徒步旅行", 0.4, at=AT),
]


def test_plan_clusters_weaker_near_duplicates_of_one_category() -> None:
    clusters = plan([*HIKING, *OTHERS], NOW)
    ids = sorted(sorted(c.ids) for c in clusters)
    # The strong memory (0.9) and the fact stay out; Chinese near-duplicates cluster too.
    assert ids == [["aaaaaa", "bbbbbb", "cccccc"], ["gggggg", "hhhhhh"]]
    hiking = next(c for c in clusters if "aaaaaa" in c.ids)
    assert hiking.members[0].id == "aaaaaa"  # strongest first
    assert hiking.content == "The user likes hiking in the Alps on weekends."


def test_apply_makes_one_stronger_memory_and_archives_the_originals() -> None:
    entries, made = apply([*HIKING, *OTHERS], plan(HIKING, NOW), NOW)
    [new] = made
    assert new.condensed_from == ("aaaaaa", "cccccc", "bbbbbb")  # strongest first
    assert new.score > 0.5 and new.activation_count == 3
    assert new.created_at == AT and new.last_activated == NOW
    by_id = {e.id: e for e in entries}
    for member in HIKING:
        old = by_id[member.id]
        assert old.condensed_into == new.id and old.score < ACTIVE_MIN_SCORE
        assert old.content == member.content
    assert len(entries) == len(HIKING) + len(OTHERS) + 1


def test_apply_skips_a_cluster_changed_since_the_plan() -> None:
    clusters = plan(HIKING, NOW)
    changed = [HIKING[0].replace(content="The user hikes."), *HIKING[1:]]
    entries, made = apply(changed, clusters, NOW)
    assert made == [] and entries == changed


def test_a_session_confirming_an_original_reinforces_the_condensed_memory() -> None:
    entries, [new] = apply(HIKING, plan(HIKING, NOW), NOW)
    result = MemoryMerger().merge(
        entries, [Candidate(content="The user likes hiking in the Alps.")], "s9", NOW
    )
    by_id = {e.id: e for e in result.entries}
    assert by_id[new.id].activation_count == new.activation_count + 1
    assert by_id["bbbbbb"].score < ACTIVE_MIN_SCORE


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    with freeze_time(AT):
        MemoryStore(path).save([*HIKING, *OTHERS])
    return path


def test_dry_run_shows_a_diff_and_changes_nothing(memory: Path) -> None:
    before = memory.read_bytes()
    with freeze_time(NOW):
        result = CliRunner().invoke(app, ["consolidate", "--dry-run", "--file", str(memory)])
    assert result.exit_code == 0, result.output
    assert memory.read_bytes() == before
    assert "[aaaaaa], [cccccc], [bbbbbb] -> The user likes hiking in the Alps on weekends." in (
        result.output
    )
    assert "+## Archived Memories" in result.output or '+<!-- everbot {"score": 0.19' in (
        result.output
    )
    assert '"into": ' in result.output and "2 cluster(s) would be condensed" in result.output


def test_consolidate_condenses_and_every_original_stays_findable(memory: Path) -> None:
    with freeze_time(NOW):
        result = CliRunner().invoke(app, ["consolidate", "--json", "--file", str(memory)])
        data = json.loads(result.output)
        again = Memory(memory).consolidate()
        entries = Memory(memory).entries()
        for member in [*HIKING, OTHERS[3], OTHERS[4]]:
            hits = Memory(memory).recall(member.content, k=10)
            assert member.id in [h.entry.id for h in hits]
    assert data["applied"] and len(data["clusters"]) == 2
    assert all(c["new_id"] for c in data["clusters"])
    assert again.clusters == []  # nothing left to condense: the originals are linked
    assert len(entries) == len(HIKING) + len(OTHERS) + 2


def test_an_llm_backend_writes_the_condensed_sentence(memory: Path) -> None:
    from everbot_memory.extract.claude import AnthropicExtractor

    def condensed(body: dict[str, Any]) -> Any:
        asked = body["messages"][0]["content"]
        count = asked.count("Group ")
        return message(json.dumps({"condensed": [f"Condensed group {n}." for n in range(count)]}))

    with fake_anthropic() as fake:
        fake.respond = condensed
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        extractor = AnthropicExtractor(client=client, model="claude-test")
        with freeze_time(NOW):
            done = Memory(memory, extractor).consolidate()
    assert fake.calls == 1 and done.writer == "anthropic"
    sent = fake.requests[0]["messages"][0]["content"]
    assert "Group 1:\n- The user likes hiking in the Alps on weekends." in sent
    assert fake.requests[0]["output_config"]["format"]["schema"]["required"] == ["condensed"]
    texts = sorted(e.content for e in done.made)
    assert texts == [f"Condensed group {n}." for n in range(len(done.clusters))]
    # Related, not only near-duplicate: the LLM is given wider clusters than the rules.
    assert len(done.clusters[0].members) >= 3


def test_an_unusable_condense_answer_changes_nothing(memory: Path) -> None:
    from everbot_memory.errors import AnswerError
    from everbot_memory.extract.claude import AnthropicExtractor

    before = memory.read_bytes()
    with fake_anthropic() as fake:
        fake.replies = [message("not json"), message(json.dumps({"condensed": []}))]
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        extractor = AnthropicExtractor(client=client, model="claude-test")
        with freeze_time(NOW), pytest.raises(AnswerError):
            Memory(memory, extractor).consolidate()
    assert memory.read_bytes() == before and fake.calls == 2


def test_maintain_consolidates_on_the_users_schedule(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with freeze_time(NOW):
        Memory(memory).maintain()
    assert not any(e.condensed_from for e in Memory(memory).entries())
    monkeypatch.setenv("EVERBOT_MEMORY_CONSOLIDATE_DAYS", "30")
    with freeze_time(NOW):
        first = Memory(memory)
        first.maintain()
    assert first.last_consolidation is not None and len(first.last_consolidation.made) == 2
    with freeze_time(NOW + timedelta(days=10)):
        second = Memory(memory)
        second.maintain()
    assert second.last_consolidation is None  # not due yet
    bad = CliRunner().invoke(
        app, ["maintain", "--file", str(memory)], env={"EVERBOT_MEMORY_CONSOLIDATE_DAYS": "x"}
    )
    assert bad.exit_code == 1 and "consolidate_days" in bad.output


def test_nothing_to_consolidate_says_so(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    Memory(path).remember("The user drinks oolong tea.")
    result = CliRunner().invoke(app, ["consolidate", "--file", str(path)])
    assert result.exit_code == 0 and "nothing to consolidate" in result.output


def test_after_consolidation_doctor_and_dedupe_leave_the_originals_alone(memory: Path) -> None:
    with freeze_time(NOW):
        Memory(memory).consolidate()
        before = {e.id: e for e in Memory(memory).entries() if e.condensed_into}
        groups = Memory(memory).duplicate_groups()
        Memory(memory).dedupe()
        after = {e.id: e for e in Memory(memory).entries()}
    # A memory consolidation archived is never taken for a duplicate of what it became.
    assert len(before) == 5
    assert not any(e.condensed_into for kept, others in groups for e in (kept, *others))
    assert all(after[i] == entry for i, entry in before.items())


def test_dedupe_never_folds_two_groups() -> None:
    from everbot_memory.core.duplicates import find_duplicates

    work = make_entry("aaaaaa", "The user likes short answers.", group="work")
    life = make_entry("bbbbbb", "The user likes short answers!", group="life")
    none = make_entry("cccccc", "The user likes short answers", group=None)
    pairs = {(a.id, b.id) for a, b, _ in find_duplicates([work, life, none])}
    assert pairs and ("aaaaaa", "bbbbbb") not in pairs and ("bbbbbb", "aaaaaa") not in pairs


def test_the_dry_run_names_the_memory_the_real_run_makes(memory: Path) -> None:
    with freeze_time(NOW):
        planned = Memory(memory).consolidate(dry_run=True)
        made = Memory(memory).consolidate()
    assert sorted(e.id for e in planned.made) == sorted(e.id for e in made.made)
    assert all(f"+### [{e.id}]" in planned.diff for e in planned.made)


def test_the_originals_are_never_in_a_prompt(memory: Path) -> None:
    with freeze_time(NOW):
        Memory(memory).consolidate()
        shown = {e.id for e in Memory(memory).prompt_entries(min_score=0.0)}
        archived = {e.id for e in Memory(memory).entries() if e.condensed_into}
    assert archived and not shown & archived


def test_the_openai_backend_condenses_through_the_same_contract(memory: Path) -> None:
    openai = pytest.importorskip("openai")
    from fake_openai import completion, fake_openai

    from everbot_memory.core.consolidate import RELATED_SIMILARITY
    from everbot_memory.extract.openai_chat import OpenAIExtractor

    with freeze_time(NOW):
        count = len(plan(Memory(memory).entries(), NOW, RELATED_SIMILARITY))
    texts = [f"Condensed {n}." for n in range(count)]
    with fake_openai() as server:
        server.replies = [completion(json.dumps({"condensed": texts}))]
        client = openai.OpenAI(api_key="k", base_url=server.url, max_retries=0)
        with freeze_time(NOW):
            done = Memory(memory, OpenAIExtractor(client, model="m")).consolidate()
    sent = server.requests[0]
    assert sent["response_format"]["json_schema"]["schema"]["required"] == ["condensed"]
    assert sorted(e.content for e in done.made) == texts and done.writer == "openai"


def test_a_memory_another_one_replaced_is_never_condensed_back() -> None:
    moved = make_entry("mmmmmm", "The user lives in Shanghai now.", 0.6, category="fact", at=AT)
    moved = moved.replace(replaces=("oooooo",))
    old = make_entry("oooooo", "The user lives in Berlin.", 0.19, category="fact", at=AT)
    again = make_entry("pppppp", "The user lives in Berlin!", 0.15, category="fact", at=AT)
    assert plan([moved, old, again], NOW) == []


def test_a_cluster_is_one_group() -> None:
    none = make_entry("aaaaaa", "The user prefers dark mode in every editor.", 0.55, at=AT)
    work = make_entry("bbbbbb", "The user prefers dark mode in every editor!", 0.5, at=AT)
    life = make_entry("cccccc", "The user prefers dark mode in every editor.", 0.45, at=AT)
    also_life = make_entry("dddddd", "The user prefers dark mode in every editor", 0.4, at=AT)
    work, life = work.replace(group="work"), life.replace(group="life")
    also_life = also_life.replace(group="life")
    clusters = plan([none, work, life, also_life], NOW)
    assert [c.ids for c in clusters] == [("cccccc", "dddddd")]


def test_more_alike_memories_than_the_common_word_limit_are_one_cluster() -> None:
    same = [
        make_entry(f"d{i:05d}", "The user prefers tabs over spaces.", 0.4, at=AT) for i in range(40)
    ]
    other = make_entry("eeeeee", "The user prefers dark mode in the terminal.", 0.4, at=AT)
    [cluster] = plan([*same, other], NOW)
    assert sorted(cluster.ids) == [e.id for e in same]
