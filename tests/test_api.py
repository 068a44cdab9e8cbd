"""The Python API as an agent uses it: the README's examples run as written, the async twins,
update and history of a memory, and a changed fact remembered by hand."""

from __future__ import annotations

import asyncio
import inspect
import re
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from everbot_memory import Memory
from everbot_memory.core.scoring import score_at
from everbot_memory.errors import EntryNotFoundError, EverbotMemoryError

README = Path(__file__).resolve().parent.parent / "README.md"
AGENT_EXAMPLES = "### In an agent, sync or async"


def _api_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index("## Python API") : text.index("## Use with Claude Code")]


def agent_examples() -> str:
    """The README's examples for an agent, every ``python`` block of that part, in order."""
    part = _api_section().split(AGENT_EXAMPLES, 1)[1]
    return "\n\n".join(re.findall(r"```python\n(.*?)```", part, re.S))


@pytest.fixture
def readme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The examples' names, run in an empty folder with no API key (the offline rules)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    namespace: dict[str, Any] = {"__name__": "readme_examples"}
    exec(compile(agent_examples(), "README.md", "exec"), namespace)
    return namespace


def said(*lines: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": line} for line in lines]


# -- the README's examples, one per trigger ---------------------------------------------------


def test_the_examples_cover_every_trigger(readme: dict[str, Any]) -> None:
    for name in (
        "system_prompt",
        "on_session_close",
        "ChatService",
        "on_new_command",
        "before_compression",
        "abefore_compression",
        "on_idle_timeout",
    ):
        assert name in readme, name


def test_session_close_then_the_next_session_starts_knowing(
    readme: dict[str, Any], tmp_path: Path
) -> None:
    assert readme["system_prompt"]("You help.").strip() == "You help."  # nothing known yet
    stats = readme["on_session_close"]("s1", said("I prefer pytest over unittest."))
    assert stats["new"] == 1
    prompt = readme["system_prompt"]("You help.")
    assert prompt.startswith("You help.\n\n") and "The user prefers pytest over unittest." in prompt
    assert (tmp_path / "MEMORY.md").exists()


def test_the_async_chat_service(readme: dict[str, Any]) -> None:
    service = readme["ChatService"]()

    async def two_sessions() -> tuple[dict[str, int], str, list[str]]:
        await service.start("a", "You help.")
        service.history["a"] += said("I live in Porto.", "I prefer tabs over spaces.")
        stats = await service.close("a")
        prompt = await service.start("b", "You help.")
        return stats, prompt, await service.relevant("where does the user live? Porto")

    stats, prompt, found = asyncio.run(two_sessions())
    assert stats["new"] == 2
    assert "The user lives in Porto." in prompt
    assert found[0] == "The user lives in Porto."


def test_telegram_new_closes_the_conversation_and_starts_with_memories(
    readme: dict[str, Any],
) -> None:
    history = said("My name is Ada.", "I work at Initech.")
    prompt = asyncio.run(readme["on_new_command"](42, 1, history))
    assert history == []
    assert "The user's name is Ada." in prompt and "The user works at Initech." in prompt
    # /new with nothing said: nothing to close, the prompt is the same.
    assert asyncio.run(readme["on_new_command"](42, 2, [])) == prompt


@pytest.mark.parametrize("compress", ["before_compression", "abefore_compression"])
def test_compression_then_idle_timeout_reads_each_message_once(
    readme: dict[str, Any], compress: str
) -> None:
    messages = said("I prefer pytest over unittest.")
    result = readme[compress]("long", messages)
    if inspect.iscoroutine(result):
        asyncio.run(result)
    messages += said("I live in Porto.")
    stats = asyncio.run(readme["on_idle_timeout"]("long", messages))
    assert (stats["messages"], stats["new"], stats["updated"]) == (1, 1, 0)
    again = asyncio.run(readme["on_idle_timeout"]("long", messages))
    assert again["messages"] == 0  # closed again with nothing new: nothing changes
    contents = {e.content: e.activation_count for e in readme["memory"].entries()}
    assert contents == {"The user prefers pytest over unittest.": 1, "The user lives in Porto.": 1}


# -- async twins --------------------------------------------------------------------------------


def _async_twins() -> set[str]:
    return {
        name
        for name, value in vars(Memory).items()
        if name.startswith("a") and inspect.iscoroutinefunction(value)
    }


def test_every_async_twin_is_listed_in_the_readme() -> None:
    listed = set(re.findall(r"`(a[a-z_]+)`", _api_section().split(AGENT_EXAMPLES, 1)[1]))
    assert _async_twins() == listed
    for name in _async_twins() - {"aprocess_session_end"}:
        assert callable(getattr(Memory, name[1:])), name  # each has its synchronous twin


def test_async_twins_do_what_the_sync_calls_do(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "MEMORY.md", "rules")

    async def use() -> None:
        entry, result = await memory.aremember("The user drinks green tea.", "preference", "high")
        assert result.stats.new == 1
        assert await memory.aget(entry.id) == memory.get(entry.id)
        [hit] = await memory.arecall("green tea")
        assert hit.entry.id == entry.id
        [used] = await memory.amark_used([entry.id])
        assert used.activation_count == 2
        assert await memory.aget_prompt_memories() == memory.get_prompt_memories()
        assert await memory.aprompt_block() == memory.prompt_block()
        changed = await memory.aupdate(entry.id, category="fact")
        assert changed.category == "fact"
        assert (await memory.ahistory(entry.id)).hits == 2
        assert await memory.alist_entries() == await memory.aentries() == memory.entries()
        await memory.amaintain()
        stats = await memory.aprocess_session_end(said("I live in Porto."), "s1")
        assert stats["new"] == 1
        assert [e.id for e in await memory.aforget_many([entry.id])] == [entry.id]
        with pytest.raises(EntryNotFoundError):
            await memory.aforget(entry.id)

    asyncio.run(use())
    assert [e.content for e in memory.entries()] == ["The user lives in Porto."]
    assert Memory.aprocess_session_end is Memory.process_session_end


def test_async_calls_do_not_block_the_event_loop(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "MEMORY.md")
    memory.remember("The user drinks green tea.")
    ticks: list[int] = []

    async def ticker() -> None:
        for i in range(3):
            ticks.append(i)
            await asyncio.sleep(0)

    async def both() -> None:
        with memory.store.lock():  # a writer holds the lock: remember waits in its thread
            task = asyncio.create_task(memory.aremember("The user lives in Porto."))
            await ticker()
            assert not task.done()
        await task

    asyncio.run(both())
    assert ticks == [0, 1, 2] and len(memory.entries()) == 2


# -- update and history -------------------------------------------------------------------------


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    return Memory(tmp_path / "MEMORY.md")


def test_update_changes_content_and_category_and_keeps_the_rest(memory: Memory) -> None:
    entry, _ = memory.remember("The user lives in Lyon.", "fact", "high")
    updated = memory.update(entry.id, content="The user lives in Lyon 3e.", category="decision")
    assert (updated.id, updated.content, updated.category) == (
        entry.id,
        "The user lives in Lyon 3e.",
        "decision",
    )
    assert (updated.score, updated.activation_count, updated.created_at) == (
        entry.score,
        entry.activation_count,
        entry.created_at,
    )
    assert memory.get(entry.id) == updated
    assert memory.update(entry.id) == updated  # nothing asked: nothing changes


def test_a_score_set_by_update_is_the_anchor_decay_starts_from(memory: Memory) -> None:
    with freeze_time("2026-01-01 09:00:00"):
        entry, _ = memory.remember("The user drinks green tea.", "preference", "low")
    with freeze_time("2026-03-01 09:00:00") as frozen:
        updated = memory.update(entry.id, score=0.9)
        assert updated.score == 0.9 and updated.anchor == (0.9, updated.base_at)
        assert updated.last_activated == entry.last_activated  # setting a score is not a use
        frozen.tick(timedelta(days=10))
        # Ten days of decay from 0.9, not from the old score, not from the last activation.
        now = frozen().replace(tzinfo=timezone.utc)
        assert score_at(memory.get(entry.id), now) == pytest.approx(0.9 * 0.99**10)
        history = memory.history(entry.id)
        assert history.anchor_score == 0.9 and history.score_now == pytest.approx(0.9 * 0.99**10)


def test_update_redacts_secrets_and_refuses_bad_values(memory: Memory) -> None:
    entry, _ = memory.remember("The user deploys with a token.")
    before = memory.path.read_bytes()
    bad: list[tuple[dict[str, Any], str]] = [
        ({"content": "   "}, "must not be empty"),
        ({"content": "sk-ant-api03-" + "a" * 90}, "only a secret"),
        ({"category": "hobby"}, "is not one of"),
        ({"score": 1.5}, "from 0 to 1"),
        ({"score": "high"}, "not a number"),
    ]
    for change, message in bad:
        with pytest.raises(EverbotMemoryError, match=message):
            memory.update(entry.id, **change)
    with pytest.raises(EntryNotFoundError):
        memory.update("nope00", content="x")
    assert memory.path.read_bytes() == before
    key = "sk-ant-api03-" + "b" * 90
    updated = memory.update(entry.id, content=f"The user deploys staging on Fridays with {key}")
    assert key not in updated.content and "[redacted:" in updated.content
    assert any("redacted" in w for w in memory.warnings)
    assert key not in memory.path.read_text()


def test_history_says_what_the_file_knows(memory: Memory) -> None:
    with freeze_time("2026-01-01 09:00:00"):
        lyon, _ = memory.remember("The user lives in Lyon.", "fact", "high")
    with freeze_time("2026-01-05 09:00:00"):
        memory.mark_used([lyon.id])
        paris, _ = memory.remember("lives in Paris")
        history = memory.history(lyon.id)
    assert str(history.created_at) == "2026-01-01 09:00:00+00:00"
    assert str(history.last_activated) == "2026-01-05 09:00:00+00:00"
    assert history.hits == 2 and history.source_session == "manual"
    assert history.replaced_by == (paris.id,)
    assert history.entry.score < 0.2  # archived when Paris came
    assert history.before_last_save is not None and history.before_last_save.score > 0.2
    assert memory.history(paris.id).replaces == (lyon.id,)
    memory.update(paris.id, content="The user lives in Paris 11e.")
    before = memory.history(paris.id).before_last_save
    assert before is not None and before.content == "lives in Paris"
    with pytest.raises(EntryNotFoundError):
        memory.history("nope00")


# -- remember and changed facts -----------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new",
    [
        ("The user lives in Lyon.", "lives in Paris"),
        ("The user lives in Lyon.", "The user lives in Paris"),
        ("lives in Lyon", "I live in Paris."),
        ("The user works at Nordwind Logistics.", "works at Acme"),
        ("用户住在成都", "用户住在上海"),
    ],
)
def test_remembering_a_new_home_or_employer_archives_the_old_one(
    memory: Memory, old: str, new: str
) -> None:
    before, _ = memory.remember(old)
    entry, result = memory.remember(new)
    assert result.stats.contradicted == 1
    assert entry.replaces == (before.id,) and entry.is_active
    assert not memory.get(before.id).is_active


def test_remembering_the_same_home_again_reinforces_it(memory: Memory) -> None:
    before, _ = memory.remember("The user lives in Lyon.")
    entry, result = memory.remember("The user lives in Lyon")
    assert (result.stats.contradicted, result.stats.updated) == (0, 1)
    assert entry.id == before.id and entry.activation_count == 2
