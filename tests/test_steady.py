"""A merge scores again only the memories whose score decay or expiry has changed since the
merge that wrote the file: the rest are known to be current from the record kept beside it.
What it writes is what scoring every memory gives."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import T0, days, make_entry
from freezegun import freeze_time
from hypothesis import given, settings
from hypothesis import strategies as st

import everbot_memory.core.merge as merge_module
from everbot_memory.core.candidate import Candidate
from everbot_memory.core.entry import MemoryEntry, with_scores
from everbot_memory.core.merge import MergeStats, settle
from everbot_memory.core.rules import EXPIRED_SCORE
from everbot_memory.core.scoring import score_at, scores_at, steady_until
from everbot_memory.document import parse
from everbot_memory.facade.changes import Changes
from everbot_memory.storage.store import MemoryStore

HOUR = timedelta(hours=1)


@pytest.fixture
def scored(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The ids of the entries each merge scored."""
    calls: list[list[str]] = []
    real = merge_module.scores_at

    def spy(entries: Any, now: datetime) -> list[float]:
        entries = list(entries)
        calls.append([e.id for e in entries])
        return real(entries, now)

    monkeypatch.setattr(merge_module, "scores_at", spy)
    return calls


def _merge(path: Path, content: str, now: datetime) -> None:
    Changes(path).merge_candidates([Candidate(content=content, category="fact")], "s", now)


def _read(path: Path) -> dict[str, MemoryEntry]:
    return {e.id: e for e in parse(path.read_text(encoding="utf-8")).entries}


def _as_scored_anew(path: Path, now: datetime) -> None:
    """Every memory in the file holds the score decay gives it at ``now``."""
    for entry in _read(path).values():
        assert entry.score == score_at(entry, now), entry.id


def test_a_memory_whose_decay_day_comes_between_two_merges_is_decayed(
    memory_path: Path, scored: list[list[str]]
) -> None:
    # Activated 9 days and 23 hours before T0: its third day of decay begins an hour later.
    turning = make_entry("t1", "The user rides a bike to work.", 0.8, at=T0 - days(10) + HOUR)
    quiet = make_entry("q1", "The user likes green tea.", 0.7, at=T0 - days(2))
    MemoryStore(memory_path).save([turning, quiet])
    _merge(memory_path, "The user plays chess on Sundays.", T0)
    assert _read(memory_path)["t1"].score == pytest.approx(0.8 * 0.99**2)
    _as_scored_anew(memory_path, T0)

    scored.clear()
    _merge(memory_path, "The user reads before bed.", T0 + HOUR / 2)
    assert "t1" not in scored[-1] and "q1" not in scored[-1]  # known to be current
    assert _read(memory_path)["t1"].score == pytest.approx(0.8 * 0.99**2)
    _as_scored_anew(memory_path, T0 + HOUR / 2)

    scored.clear()
    _merge(memory_path, "The user has a cat named Miso.", T0 + 2 * HOUR)
    assert "t1" in scored[-1] and "q1" not in scored[-1]
    assert _read(memory_path)["t1"].score == pytest.approx(0.8 * 0.99**3)
    _as_scored_anew(memory_path, T0 + 2 * HOUR)

    # A week later every memory has moved on.
    _merge(memory_path, "The user has a dog too.", T0 + days(7))
    _as_scored_anew(memory_path, T0 + days(7))


def test_a_memory_that_expires_between_two_merges_is_archived(memory_path: Path) -> None:
    todo = make_entry(
        "d1", "Dentist at noon.", 0.8, category="todo", at=T0 - HOUR, expires_at=T0 + HOUR
    )
    MemoryStore(memory_path).save([todo])
    _merge(memory_path, "The user plays chess on Sundays.", T0)
    assert _read(memory_path)["d1"].score == 0.8
    _merge(memory_path, "The user reads before bed.", T0 + 2 * HOUR)
    assert _read(memory_path)["d1"].score == EXPIRED_SCORE


def test_a_score_a_person_edits_after_a_merge_is_honoured(memory_path: Path) -> None:
    entry = make_entry("p1", "The user likes green tea.", 0.9, at=T0 - days(20))
    MemoryStore(memory_path).save([entry])
    _merge(memory_path, "The user plays chess on Sundays.", T0)
    text = memory_path.read_text(encoding="utf-8")
    shown = f"{_read(memory_path)['p1'].score:.2f}"
    memory_path.write_text(text.replace(f"[p1] preference | {shown}", "[p1] preference | 0.35"))
    with freeze_time(T0 + HOUR):  # the moment the edit is read: its score's anchor
        _merge(memory_path, "The user reads before bed.", T0 + HOUR)
    assert _read(memory_path)["p1"].score == 0.35
    _merge(memory_path, "The user sleeps early.", T0 + 2 * HOUR)
    assert _read(memory_path)["p1"].score == 0.35
    # Decayed from then on, as any score set by hand.
    _merge(memory_path, "The user has a cat.", T0 + days(1) + HOUR)
    assert _read(memory_path)["p1"].score == pytest.approx(0.35 * 0.99)


def test_a_clock_gone_back_scores_every_memory(memory_path: Path, scored: list[list[str]]) -> None:
    MemoryStore(memory_path).save([make_entry("b1", "The user likes tea.", 0.7, at=T0 - days(9))])
    _merge(memory_path, "The user plays chess.", T0)
    scored.clear()
    _merge(memory_path, "The user reads.", T0 - HOUR)
    assert "b1" in scored[-1]


_moments = st.integers(min_value=0, max_value=40 * 86_400)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            _moments,  # last activated, seconds before the first merge
            st.floats(min_value=0.05, max_value=1.0),
            st.one_of(st.none(), st.integers(min_value=-86_400, max_value=10 * 86_400)),
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=0, max_value=12 * 86_400),
)
def test_settling_the_steady_ones_alone_is_settling_them_all(
    shapes: list[tuple[int, float, int | None]], later: int
) -> None:
    first = T0
    entries = [
        make_entry(
            f"e{n}",
            f"Memory number {n}.",
            score,
            at=first - timedelta(seconds=back),
            expires_at=None if expiry is None else first + timedelta(seconds=expiry),
        )
        for n, (back, score, expiry) in enumerate(shapes)
    ]
    settled = settle(entries, first, MergeStats(), set())
    stamp = first.timestamp()
    until = steady_until(
        [e.last_activated.timestamp() for e in settled],
        [None if e.expires_at is None else e.expires_at.timestamp() for e in settled],
        stamp,
    )
    now = first + timedelta(seconds=later)
    steady = {id(e) for e, u in zip(settled, until, strict=True) if u > now.timestamp()}
    stats_all, stats_few = MergeStats(), MergeStats()
    every = settle(settled, now, stats_all, {e.id for e in settled if e.is_active})
    few = settle(settled, now, stats_few, {e.id for e in settled if e.is_active}, steady)
    assert few == every
    assert stats_few == stats_all


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_moments, _moments, st.floats(min_value=0.0, max_value=1.0)), max_size=8),
    st.integers(min_value=-86_400, max_value=400 * 86_400),
)
def test_a_whole_file_is_scored_as_each_memory_alone(
    shapes: list[tuple[int, int, float]], later: int
) -> None:
    entries = [
        make_entry(
            f"e{n}",
            f"Memory number {n}.",
            base,
            at=T0 - timedelta(seconds=back),
            base_score=base,
            base_at=T0 - timedelta(seconds=back) + timedelta(seconds=anchor % (back + 1)),
        )
        for n, (back, anchor, base) in enumerate(shapes)
    ]
    now = T0 + timedelta(seconds=later)
    assert scores_at(entries, now) == [score_at(e, now) for e in entries]
    assert with_scores(entries, [0.5] * len(entries)) == [e.with_score(0.5) for e in entries]


def test_a_persons_change_merged_into_a_save_is_not_taken_as_scored(memory_path: Path) -> None:
    ours = make_entry("o1", "The user likes green tea.", 0.7, at=T0 - days(9))
    theirs = make_entry("p1", "The user likes black coffee.", 0.9, at=T0 - days(20))
    MemoryStore(memory_path).save([ours, theirs])
    _merge(memory_path, "The user plays chess on Sundays.", T0)
    store = MemoryStore(memory_path)
    loaded = store.load()
    # A person sets p1's score in an editor while the engine holds the file it read.
    text = memory_path.read_text(encoding="utf-8")
    shown = f"{_read(memory_path)['p1'].score:.2f}"
    memory_path.write_text(text.replace(f"[p1] preference | {shown}", "[p1] preference | 0.35"))
    added = make_entry("n1", "The user reads before bed.", 0.6, at=T0)
    store.save([*loaded, added], settled=T0)
    assert _read(memory_path)["p1"].score == 0.35  # theirs, merged in
    again = MemoryStore(memory_path)
    by_id = {e.id: e for e in again.load_document().entries}
    steady = again.steady(T0)
    # Only what the engine's own save brought is known to be scored: the memory it added,
    # not the person's version of the others.
    assert steady == {id(by_id["n1"])}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3 * 86_400), min_size=1, max_size=6))
def test_the_moments_kept_by_each_merge_are_those_of_every_memory_worked_out_anew(
    gaps: list[int],
) -> None:
    import tempfile

    from everbot_memory.storage import parsed
    from everbot_memory.storage.atomic import digest
    from everbot_memory.storage.paths import SideFiles

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "MEMORY.md"
        MemoryStore(path).save(
            [
                make_entry(f"m{n}", f"The user noted fact number {n}.", 0.9, at=T0 - n * HOUR * 7)
                for n in range(60)
            ]
        )
        now = T0
        for number, gap in enumerate(gaps):
            now += timedelta(seconds=gap)
            _merge(path, f"The user plays game number {number} on Sundays.", now)
            _as_scored_anew(path, now)
            data = path.read_bytes()
            found = parsed.read(SideFiles.of(path), digest(data) or "", data)
            assert found is not None and found[0].steady is not None
            when, entries, until = found[0].steady
            assert when == now.timestamp()
            last = [e.last_activated.timestamp() for e in entries]
            expires = [None if e.expires_at is None else e.expires_at.timestamp() for e in entries]
            assert list(until) == steady_until(last, expires, when)


def test_a_merge_that_only_removes_keeps_the_moments_of_the_rest(memory_path: Path) -> None:
    from everbot_memory.storage import parsed
    from everbot_memory.storage.atomic import digest
    from everbot_memory.storage.paths import SideFiles

    entries = [
        make_entry(f"m{n}", f"The user noted fact number {n}.", 0.9, at=T0 - n * HOUR * 5)
        for n in range(60)
    ]
    MemoryStore(memory_path).save(entries, settled=T0)
    for step, when in enumerate((T0 + HOUR, T0 + 2 * HOUR)):
        store = MemoryStore(memory_path)
        loaded = store.load()
        store.save(loaded[:-1], settled=when)  # the last one forgotten, nothing added
        data = memory_path.read_bytes()
        found = parsed.read(SideFiles.of(memory_path), digest(data) or "", data)
        assert found is not None and found[0].steady is not None
        at, kept, until = found[0].steady
        assert at == when.timestamp() and len(kept) == 59 - step
        last = [e.last_activated.timestamp() for e in kept]
        assert list(until) == steady_until(last, [None] * len(kept), at)
    record = SideFiles.of(memory_path).hook_file(parsed.FILE).read_bytes()
    assert len(parsed._parts(record)) == 3  # appended to, twice
