"""Memory hygiene: expiry of todos, "forget that ..." in conversation (English and Chinese)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from freezegun import freeze_time

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules.dates import resolve_date

WEDNESDAY = date(2026, 3, 4)


@pytest.mark.parametrize(
    "phrase, day",
    [
        ("tomorrow", date(2026, 3, 5)),
        ("the day after tomorrow", date(2026, 3, 6)),
        ("next Wednesday", date(2026, 3, 11)),
        ("next Monday", date(2026, 3, 9)),
        ("on Friday", date(2026, 3, 6)),
        ("in 3 days", date(2026, 3, 7)),
        ("明天", date(2026, 3, 5)),
        ("后天", date(2026, 3, 6)),
        ("下周三", date(2026, 3, 11)),
        ("周五", date(2026, 3, 6)),
        ("3月20日", date(2026, 3, 20)),
        ("1月2号", date(2027, 1, 2)),
    ],
)
def test_relative_dates_resolve_against_the_session_day(phrase: str, day: date) -> None:
    assert resolve_date(phrase, WEDNESDAY) == day


def session(*lines: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": line, "timestamp": "2026-03-04T10:00:00+00:00"}
        for line in lines
    ]


@pytest.mark.parametrize(
    "said, lapses",
    [
        ("I need to send the slides next Wednesday.", "2026-03-12"),
        ("下周三我要交周报。", "2026-03-12"),
        ("明天我得给客户发报价单。", "2026-03-06"),
    ],
)
def test_a_todo_expires_and_is_archived_not_deleted(tmp_path: Path, said: str, lapses: str) -> None:
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-04 10:00:00"):
        MemoryManager(path, RuleExtractor()).process_session_end_sync(session(said), "s1")
        [todo] = MemoryStore(path).load()
        assert todo.category == "todo" and todo.is_active
        assert todo.expires_at == datetime.fromisoformat(lapses).replace(tzinfo=timezone.utc)
        assert MemoryManager(path).get_prompt_memories() != ""
    expired_day = f"{lapses} 08:00:00"
    with freeze_time(expired_day):
        assert MemoryManager(path).get_prompt_memories() == ""  # never injected once passed
        result = MemoryManager(path).maintain()
    assert result.stats.archived == 1 and result.stats.forgotten == 0
    [after] = MemoryStore(path).load()
    assert not after.is_active and after.content == todo.content


@pytest.mark.parametrize(
    "known, said",
    [
        ("I live in Porto.", "Forget that I live in Porto."),
        ("我住在柏林。", "忘掉我住在柏林这件事"),
        ("我喜欢喝绿茶。", "别记我喜欢喝绿茶"),
    ],
)
def test_forget_that_in_conversation_forgets_the_memory(
    tmp_path: Path, known: str, said: str
) -> None:
    path = tmp_path / "MEMORY.md"
    manager = MemoryManager(path, RuleExtractor())
    with freeze_time("2026-03-04 10:00:00"):
        manager.process_session_end_sync(session(known, "I prefer tabs over spaces."), "s1")
        assert len(MemoryStore(path).load()) == 2
        stats = manager.process_session_end_sync(session(said), "s2")
    assert stats["forgotten"] == 1 and stats["new"] == 0
    assert [e.content for e in MemoryStore(path).load()] == ["The user prefers tabs over spaces."]


def test_forget_that_with_nothing_matching_changes_no_memory(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    manager = MemoryManager(path, RuleExtractor())
    with freeze_time("2026-03-04 10:00:00"):
        manager.process_session_end_sync(session("I prefer tabs over spaces."), "s1")
        stats = manager.process_session_end_sync(session("Forget that I own a boat."), "s2")
    assert stats["forgotten"] == 0 and len(MemoryStore(path).load()) == 1


@pytest.mark.parametrize(
    "first, then, new_content",
    [
        ("I live in Beijing.", "I moved from Beijing to Shanghai.", "The user lives in Shanghai."),
        ("我住在北京。", "我从北京搬到了上海。", "用户住在上海"),
        ("I live in Lyon.", "I live in Porto.", "The user lives in Porto."),
        ("I like Vue.", "I no longer use Vue.", "The user no longer uses Vue."),
        ("我喜欢用 Vue 写前端。", "我不再用 Vue 了，改用 React", "用户不再用 Vue，改用 React"),
        ("I work at Initech.", "I work at Globex.", "The user works at Globex."),
    ],
)
def test_a_contradicted_memory_leaves_the_active_section(
    tmp_path: Path, first: str, then: str, new_content: str
) -> None:
    path = tmp_path / "MEMORY.md"
    manager = MemoryManager(path, RuleExtractor())
    with freeze_time("2026-03-04 10:00:00"):
        manager.process_session_end_sync(session(first), "s1")
        [old] = MemoryStore(path).load()
        stats = manager.process_session_end_sync(session(then), "s2")
    assert stats["contradicted"] == 1 and stats["new"] == 1
    entries = {e.id: e for e in MemoryStore(path).load()}
    new = next(e for e in entries.values() if e.id != old.id)
    assert new.content.replace(" ", "") == new_content.replace(" ", "")
    assert new.replaces == (old.id,)  # kept in the hidden metadata
    assert entries[old.id].score == pytest.approx(min(old.score * 0.5, 0.19))
    assert [e.id for e in MemoryStore(path).load() if e.is_active] == [new.id]


def test_a_new_value_does_not_contradict_an_unrelated_memory(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    manager = MemoryManager(path, RuleExtractor())
    with freeze_time("2026-03-04 10:00:00"):
        manager.process_session_end_sync(session("I prefer tabs over spaces."), "s1")
        stats = manager.process_session_end_sync(session("I live in Porto."), "s2")
    assert stats["contradicted"] == 0
    assert all(e.is_active for e in MemoryStore(path).load())
