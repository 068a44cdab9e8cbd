"""MemoryMerger: seeding, reinforcement, decay, archive and forget (seed §7.3, SPEC §2)."""

from __future__ import annotations

import itertools
from datetime import datetime

import pytest
from conftest import T0, days, make_entry
from freezegun import freeze_time
from hypothesis import given, settings
from hypothesis import strategies as st

from everbot_memory.core.candidate import Candidate
from everbot_memory.core.merge import MemoryMerger, rebase
from everbot_memory.core.scoring import score_at as current_score
from everbot_memory.document import Document, parse, render

merger = MemoryMerger()


def merge_at(now: datetime, existing, candidates=(), session="s-1"):  # type: ignore[no-untyped-def]
    """A merge with the clock frozen at ``now`` (the merger reads the clock itself)."""
    with freeze_time(now):
        return merger.merge(list(existing), list(candidates), session)


def merge_now(now: datetime, existing, candidates=()):  # type: ignore[no-untyped-def]
    """The same with ``now`` passed in: for long loops, where freezing the clock is slow."""
    return merger.merge(list(existing), list(candidates), "s-1", now=now)


@pytest.mark.parametrize("importance, score", [("high", 0.8), ("medium", 0.6), ("low", 0.4)])
def test_new_memory_starts_from_its_importance(importance: str, score: float) -> None:
    result = merge_at(T0, [], [Candidate(content="x", importance=importance)])  # type: ignore[arg-type]
    [entry] = result.entries
    assert entry.score == score
    assert (entry.activation_count, entry.last_activated, entry.created_at) == (1, T0, T0)
    assert entry.source_session == "s-1"
    assert len(entry.id) == 6 and int(entry.id, 16) >= 0
    assert result.stats.as_dict() == {
        "new": 1,
        "updated": 0,
        "archived": 0,
        "forgotten": 0,
        "contradicted": 0,
    }


def test_reinforcement_follows_the_formula_and_counts_the_hit() -> None:
    entry = make_entry(score=0.6, hits=3)
    later = T0 + days(2)
    result = merge_at(later, [entry], [Candidate(content="x", confirms=entry.id)])
    [after] = result.entries
    assert after.score == pytest.approx(0.6 + 0.4 * 0.2)  # 0.68
    assert after.activation_count == 4
    assert after.last_activated == later
    assert result.stats.updated == 1 and result.stats.new == 0
    again = merge_at(later, [after], [Candidate(content="x", confirms=entry.id)]).entries[0]
    assert again.score == pytest.approx(0.744)  # the seed's 0.6 -> 0.68 -> 0.744


def test_reinforcement_converges_to_one_and_never_exceeds_it() -> None:
    entry = make_entry(score=0.4)
    scores = []
    for n in range(200):
        entry = merge_now(T0 + days(n), [entry], [Candidate(content="x", confirms=entry.id)])
        entry = entry.entries[0]
        scores.append(entry.score)
    assert all(a <= b for a, b in itertools.pairwise(scores))
    assert scores[30] > 0.99 and all(s <= 1.0 for s in scores)
    assert scores[10] < 1.0


@pytest.mark.parametrize("elapsed", [0, 1, 6.5, 7, 7.99])
def test_no_decay_within_the_seven_day_grace(elapsed: float) -> None:
    [entry] = merge_at(T0 + days(elapsed), [make_entry(score=0.6)]).entries
    assert entry.score == 0.6


@pytest.mark.parametrize("elapsed", [8, 10, 30, 100])
def test_decay_after_seven_days_is_0_99_per_day(elapsed: int) -> None:
    [entry] = merge_at(T0 + days(elapsed), [make_entry(score=0.6)]).entries
    assert entry.score == pytest.approx(0.6 * 0.99 ** (elapsed - 7))


def test_decayed_below_0_2_is_archived() -> None:
    # 0.25 * 0.99**23 = 0.198
    result = merge_at(T0 + days(30), [make_entry(score=0.25)])
    [entry] = result.entries
    assert 0.05 <= entry.score < 0.2
    assert result.stats.archived == 1
    assert "## Archived Memories\n\n### [a1b2c3]" in render(Document(entries=result.entries))


def test_decayed_below_0_05_is_forgotten_and_reported() -> None:
    # 0.06 * 0.99**30 = 0.044
    entry = make_entry(score=0.06)
    result = merge_at(T0 + days(37), [entry])
    assert result.entries == []
    assert result.stats.forgotten == 1
    assert [e.id for e in result.stats.forgotten_entries] == [entry.id]


def test_mixed_new_reinforced_decayed_forgotten() -> None:
    now = T0 + days(40)
    reinforced = make_entry("aaaaa1", "The user likes tea.", 0.5)
    decaying = make_entry("aaaaa2", "The user uses vim.", 0.9)
    archived = make_entry("aaaaa3", "The user tried Rust once.", 0.25)
    forgotten = make_entry("aaaaa4", "The user had a cold.", 0.06)
    fresh = make_entry("aaaaa5", "The user moved to Berlin.", 0.7, at=now - days(3))
    candidates = [
        Candidate(content="the user likes tea。"),  # normalized duplicate -> reinforce
        Candidate(content="The user writes Go at work.", importance="high"),
    ]
    result = merge_at(now, [reinforced, decaying, archived, forgotten, fresh], candidates)
    by_content = {e.content: e for e in result.entries}
    factor = 0.99**33
    assert by_content["The user likes tea."].score == pytest.approx(
        0.5 * factor + (1 - 0.5 * factor) * 0.2
    )
    assert by_content["The user uses vim."].score == pytest.approx(0.9 * factor)
    assert by_content["The user tried Rust once."].score == pytest.approx(0.25 * factor)
    assert by_content["The user moved to Berlin."].score == 0.7
    assert by_content["The user writes Go at work."].score == 0.8
    assert "The user had a cold." not in by_content
    assert result.stats.as_dict() == {
        "new": 1,
        "updated": 1,
        "archived": 1,
        "forgotten": 1,
        "contradicted": 0,
    }
    assert [e.score for e in result.entries] == sorted(
        (e.score for e in result.entries), reverse=True
    )


def test_normalized_duplicate_reinforces_instead_of_duplicating() -> None:
    entry = make_entry(content="用户偏好用 pytest 而非 unittest。")
    result = merge_at(
        T0 + days(1), [entry], [Candidate(content="  用户偏好用 PYTEST 而非 unittest ")]
    )
    assert len(result.entries) == 1
    assert result.entries[0].activation_count == 2


def test_one_session_reinforces_an_entry_once_and_adds_a_repeat_once() -> None:
    entry = make_entry(content="The user likes tea.")
    candidates = [
        Candidate(content="The user likes tea."),
        Candidate(content="something else", confirms=entry.id),
        Candidate(content="New thing."),
        Candidate(content="new thing"),
    ]
    result = merge_at(T0, [entry], candidates)
    assert result.stats.updated == 1 and result.stats.new == 1
    assert len(result.entries) == 2


def test_one_session_saying_a_new_thing_twice_in_other_words_adds_it_once() -> None:
    candidates = [
        Candidate(content="The user deploys the API on Tuesdays."),
        Candidate(content="The user deploys the API on Tuesdays!"),
        Candidate(content="The user plays the cello."),
    ]
    result = merge_at(T0, [], candidates)
    assert result.stats.new == 2 and len(result.entries) == 2
    assert result.placed[0] == result.placed[1] != result.placed[2]


def test_confirming_an_unknown_id_adds_a_new_memory() -> None:
    result = merge_at(T0, [make_entry()], [Candidate(content="other", confirms="ffffff")])
    assert result.stats.new == 1


def test_merge_reads_the_clock_when_no_time_is_given() -> None:
    with freeze_time("2026-06-01 12:00:00"):
        [entry] = MemoryMerger().merge([], [Candidate(content="x")], "s").entries
    assert entry.created_at.isoformat() == "2026-06-01T12:00:00+00:00"


# -- path independence -----------------------------------------------------------------------


def through_file(entries, now):  # type: ignore[no-untyped-def]
    """Save and load, as the engine does between two runs."""
    return parse(render(Document(entries=entries)), now=now).entries


def run_schedule(score: float, schedule: list[int]) -> dict[int, float | None]:
    """Maintain on each day of ``schedule``; the score seen on each (None once forgotten)."""
    entries = [make_entry(score=score)]
    seen: dict[int, float | None] = {}
    for day in schedule:
        now = T0 + days(day)
        entries = merge_now(now, through_file(entries, now)).entries
        seen[day] = entries[0].score if entries else None
    return seen


def expected(score: float, day: int) -> float | None:
    value = score * 0.99 ** max(0, day - 7)
    return value if value >= 0.05 else None


@given(
    score=st.floats(min_value=0.05, max_value=1.0),
    schedule=st.lists(st.integers(min_value=0, max_value=400), max_size=25).map(sorted),
)
@settings(max_examples=200, deadline=None)
def test_property_decay_is_path_independent(score: float, schedule: list[int]) -> None:
    seen = run_schedule(score, [*schedule, 400])
    for day, value in seen.items():
        want = expected(score, day)
        if want is None or value is None:
            assert value == want, (day, value, want)
        else:
            assert value == pytest.approx(want, rel=1e-12)


@given(st.lists(st.integers(min_value=1, max_value=200), min_size=1, max_size=8).map(sorted))
@settings(max_examples=40, deadline=None)
def test_property_reinforcement_then_decay_depends_only_on_the_last_activation(
    hits: list[int],
) -> None:
    """Daily maintenance between reinforcements changes nothing either.

    (Hits fall within 200 days, so a 0.6 entry is never forgotten between two of them.)
    """
    entry = make_entry(score=0.6)
    sparse, dense = [entry], [entry]
    for day in range(0, 401):
        now = T0 + days(day)
        confirm = [Candidate(content="x", confirms=entry.id)] if day in hits else []
        dense = merge_now(now, through_file(dense, now), confirm).entries
        if confirm:
            sparse = merge_now(now, sparse, confirm).entries
    final = merge_now(T0 + days(400), sparse).entries
    assert [e.score for e in dense] == pytest.approx([e.score for e in final], rel=1e-12)


def test_a_0_3_entry_left_alone_200_days_is_forgotten_daily_or_once() -> None:
    daily = run_schedule(0.3, list(range(1, 201)))
    once = run_schedule(0.3, [200])
    assert daily[200] is None and once[200] is None
    # ... and on the same day either way: 0.3 * 0.99**(d - 7) < 0.05 from day 186 on.
    first_gone = min(day for day, value in daily.items() if value is None)
    assert first_gone == 186
    assert run_schedule(0.3, [185])[185] is not None
    assert run_schedule(0.3, [186])[186] is None


def test_rounded_display_does_not_stall_decay() -> None:
    """Hourly maintenance, each time through the file with its 2-decimal display."""
    entries = [make_entry(score=0.5)]
    for hour in range(0, 24 * 60, 6):
        now = T0 + days(hour / 24)
        entries = merge_now(now, through_file(entries, now)).entries
    assert entries[0].score == pytest.approx(0.5 * 0.99 ** (60 - 1 - 7), rel=1e-12)


def test_current_score_never_rises_when_the_clock_goes_back() -> None:
    entry = make_entry(score=0.5)
    assert current_score(entry, T0 - days(30)) == 0.5


# -- three-way merge of an outside edit --------------------------------------------------------


def test_rebase_keeps_both_sides_changes() -> None:
    a, b, c = (make_entry(f"0000a{i}", f"m{i}", 0.5) for i in range(3))
    ours = [a.replace(score=0.9, base_score=0.9), b, c, make_entry("0000b1")]
    theirs = [a, b.replace(content="edited")]  # c deleted by the person
    merged = {e.id: e for e in rebase([a, b, c], ours, theirs)}
    assert merged["0000a0"].score == 0.9
    assert merged["0000a1"].content == "edited"
    assert "0000a2" not in merged
    assert "0000b1" in merged


def test_rebase_lets_the_person_win_a_conflict() -> None:
    a = make_entry("0000a0", "original", 0.5)
    ours = [a.replace(content="engine wording")]
    theirs = [a.replace(content="person wording")]
    assert rebase([a], ours, theirs)[0].content == "person wording"
    # We deleted it (say, forgotten) while the person edited it: the edit is kept.
    assert rebase([a], [], theirs)[0].content == "person wording"


@given(
    st.lists(
        st.tuples(
            st.floats(0.0, 1.0),
            st.integers(0, 400 * 86_400),
            st.one_of(st.none(), st.integers(-30 * 86_400, 400 * 86_400)),
        ),
        max_size=20,
    ),
    st.integers(-3 * 86_400, 800 * 86_400),
)
@settings(max_examples=200, deadline=None)
def test_scores_at_of_a_file_are_each_memorys_score_at(
    rows: list[tuple[float, int, int | None]], later: int
) -> None:
    from everbot_memory.core.scoring import scores_at

    entries = []
    for n, (score, activated, anchored) in enumerate(rows):
        extra = (
            {}
            if anchored is None
            else {"base_score": score, "base_at": T0 + days(anchored / 86_400)}
        )
        entries.append(
            make_entry(f"e{n:05d}", score=score, at=T0 + days(activated / 86_400), **extra)
        )
    now = T0 + days(later / 86_400)
    assert scores_at(entries, now) == [current_score(e, now) for e in entries]


@given(
    st.floats(0.0, 1.0),
    st.floats(-1e9, 1e9, allow_nan=False),
    st.floats(-1e9, 1e9, allow_nan=False),
    st.floats(-1e9, 1e9, allow_nan=False),
)
def test_decayed_is_the_decay_days_formula(
    base_score: float, base_at: float, last_activated: float, now: float
) -> None:
    from everbot_memory.core.ranking import decay_days, decayed
    from everbot_memory.core.rules import DAILY_DECAY

    days = decay_days(now, last_activated) - decay_days(base_at, last_activated)
    expected = float(base_score * DAILY_DECAY ** max(0, days))
    assert decayed(base_score, base_at, last_activated, now) == expected


_PIECES = st.sampled_from(
    [" ", ".", "。", "The", "user", "likes", "TEA", "tea", "İ", "i̇", "ΟΔΟΣ", "οδος", "ß", "\t", "x"]
)
_CONTENTS = st.lists(_PIECES, max_size=6).map("".join)


@given(st.lists(_CONTENTS, max_size=12), st.lists(_CONTENTS, min_size=1, max_size=10))
@settings(max_examples=300, deadline=None)
def test_the_memories_saying_a_content_are_those_a_full_map_gives(
    contents: list[str], said: list[str]
) -> None:
    from everbot_memory.core.merge import _saying
    from everbot_memory.core.text import normalize_content

    entries = [
        make_entry(f"e{n:05d}", text if text.strip() else "x") for n, text in enumerate(contents)
    ]
    keys = [normalize_content(text) for text in said]
    every = {normalize_content(e.content): e.id for e in entries}
    assert _saying(entries, keys) == {k: every[k] for k in keys if k in every}


def test_a_statement_turned_around_is_not_the_same_memory() -> None:
    said = [Candidate(content="The user likes working late at night.")]
    turned = [Candidate(content="The user does not like working late at night.")]
    one = merge_at(T0, [], [*said, *turned])
    assert one.stats.new == 2 and one.placed[0] != one.placed[1]
    [known] = merge_at(T0, [], said).entries
    later = merge_at(T0 + days(1), [known], turned)
    assert later.stats.new == 1 and later.stats.updated == 0
    weighed = [
        Candidate(content="The user prefers tabs over spaces."),
        Candidate(content="The user prefers spaces over tabs."),
    ]
    assert merge_at(T0, [], weighed).stats.new == 2


def test_a_todo_is_not_folded_into_the_fact_it_repeats() -> None:
    fact = Candidate(content="The user renews the passport in March.", category="fact")
    todo = Candidate(
        content="The user renews the passport in March!",
        category="todo",
        expires_at=T0 + days(30),
    )
    result = merge_at(T0, [], [fact, todo])
    assert result.stats.new == 2
    assert {e.category for e in result.entries} == {"fact", "todo"}


def test_a_thing_left_out_is_no_statement_turned_around() -> None:
    [known] = merge_at(T0, [], [Candidate(content="The user drinks coffee black.")]).entries
    again = [Candidate(content="The user drinks coffee black, no sugar.")]
    assert merge_at(T0 + days(1), [known], again).stats.updated == 1
    both = [
        Candidate(content="The user likes both cats and dogs."),
        Candidate(content="The user likes not only cats but dogs."),
    ]
    assert merge_at(T0, [], both).stats.new == 1


def test_a_value_said_again_retires_the_one_that_replaced_it() -> None:
    berlin = make_entry("b00001", "The user lives in Berlin.", 0.19, category="fact")
    lisbon = make_entry("b00002", "The user lives in Lisbon.", 0.6, category="fact")
    back = Candidate(content="The user lives in Berlin.", contradicts=(lisbon.id,))
    result = merge_at(T0, [berlin, lisbon], [back])
    by_id = {e.id: e for e in result.entries}
    assert result.stats.updated == 1 and result.stats.contradicted == 1
    assert by_id[berlin.id].score > 0.19 and by_id[lisbon.id].score < 0.2


@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.05, 0.1, 0.2, 0.5, 0.6, 0.999, 1.0]),
            st.integers(0, 3),
            st.sampled_from(["a1", "b2", "c3", "d4"]),
        ),
        max_size=30,
    )
)
@settings(max_examples=300, deadline=None)
def test_sort_entries_is_the_file_order_sort(rows: list[tuple[float, int, str]]) -> None:
    from everbot_memory.core.scoring import file_order, sort_entries

    # Ties on score, on age, and entries alike in all three (their order kept as given).
    entries = [
        make_entry(f"{name}x{n % 3}", score=score, at=T0 + days(age))
        for n, (score, age, name) in enumerate(rows)
    ]
    expected = sorted(entries, key=file_order)
    assert list(map(id, sort_entries(entries))) == list(map(id, expected))


def test_a_memory_forgotten_then_said_again_in_one_merge_is_new_again() -> None:
    tea = make_entry("aaaaaa", "The user likes tea", 0.6)
    result = MemoryMerger().merge(
        [tea],
        [
            Candidate(content="The user likes tea", forget=True),
            Candidate(content="The user likes tea"),
        ],
        "s2",
        now=T0,
    )
    assert [e.content for e in result.entries] == ["The user likes tea"]
    assert result.entries[0].id != "aaaaaa" and result.stats.forgotten == 1
