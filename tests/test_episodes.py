"""End to end, as the design documents' layers ask: five sessions over three weeks (the clock
frozen at each), then the files on disk, the block the next session starts with, and recall
answering questions about days ("what did we do last Tuesday?", "上周二我们做了什么"), in English
and in Chinese. The offline rules extract; nothing here needs a network."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.core.session_note import parse_day
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.facade import hooks
from everbot_memory.facade.locations import Place
from everbot_memory.faces.cli import app


@dataclass
class Story:
    """Five sessions (day, what the user said), and the questions asked afterwards."""

    sessions: list[tuple[str, list[str]]]
    questions: list[tuple[str, str, str]]  # question, day it must find, words its note holds
    name: str
    lang: str


EN = Story(
    sessions=[
        (
            "2026-03-02",  # Monday
            [
                "Hi! My name is Lena and I live in Porto.",
                "Can you help me set up the billing service repository?",
                "I prefer pytest over unittest.",
            ],
        ),
        (
            "2026-03-04",  # Wednesday
            [
                "Let's pick the database for the billing service.",
                "We decided to use Postgres instead of MongoDB for billing.",
            ],
        ),
        (
            "2026-03-10",  # Tuesday
            [
                "Please review the invoice export code with me.",
                "I need to send the export spec to Jonas tomorrow.",
            ],
        ),
        (
            "2026-03-17",  # Tuesday
            [
                "Help me plan the load test for the checkout API.",
                "We decided to run the load tests every Thursday night.",
                "I need to book the staging cluster next Monday.",
            ],
        ),
        (
            "2026-03-20",  # Friday
            [
                "Can you draft the release notes for version 2.4?",
                "I need to publish the release notes next Tuesday.",
            ],
        ),
    ],
    questions=[
        ("what did we do last Tuesday?", "2026-03-17", "load test"),
        ("what did we work on on Friday?", "2026-03-20", "release notes"),
        ("what did we decide on March 4?", "2026-03-04", "Postgres"),
        ("the invoice export", "2026-03-10", "invoice export"),
    ],
    name="Lena",
    lang="en",
)

ZH = Story(
    sessions=[
        (
            "2026-03-02",
            [
                "你好，我叫王芳，我住在杭州。",
                "帮我搭一下记账服务的代码仓库吧。",
                "我喜欢用 pytest 写测试。",
            ],
        ),
        ("2026-03-04", ["我们来选记账服务的数据库。", "我们决定用 Postgres，不用 MongoDB。"]),
        ("2026-03-10", ["帮我看一下发票导出的代码。", "我明天要把导出文档发给老李。"]),
        (
            "2026-03-17",
            [
                "帮我规划一下结账接口的压测。",
                "我们决定每周四晚上跑压测。",
                "下周一我要预订测试集群。",
            ],
        ),
        ("2026-03-20", ["帮我起草 2.4 版本的发布说明。", "下周二我要发布这份说明。"]),
    ],
    questions=[
        ("上周二我们做了什么", "2026-03-17", "压测"),
        ("上周五做了什么", "2026-03-20", "发布说明"),
        ("3月4日我们决定了什么", "2026-03-04", "Postgres"),
        ("发票导出", "2026-03-10", "发票导出"),
    ],
    name="王芳",
    lang="zh",
)


def _live(story: Story, memory: Path) -> None:
    for number, (day, said) in enumerate(story.sessions, 1):
        with freeze_time(f"{day} 17:30:00"):
            stats = Memory(memory, RuleExtractor()).process_session_end_sync(
                [{"role": "user", "content": text} for text in said], f"{story.lang}-{number}"
            )
        assert stats["messages"] == len(said)


@pytest.mark.parametrize("story", [EN, ZH], ids=["en", "zh"])
def test_three_weeks_of_sessions(story: Story, tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    _live(story, memory)

    # The files: one note file a day, each with its session, and the memory file.
    notes = tmp_path / "memory"
    assert sorted(p.name for p in notes.iterdir()) == [f"{d}.md" for d, _ in story.sessions]
    for number, (day, _) in enumerate(story.sessions, 1):
        [section] = parse_day((notes / f"{day}.md").read_text(encoding="utf-8"))
        assert section.session == f"{story.lang}-{number}" and section.time == "17:30"
        assert section.worked_on  # the user's first request
    text = memory.read_text(encoding="utf-8")
    profile = text.split("## Profile", 1)[1].split("## Active Memories", 1)[0]
    assert f"- Name: {story.name} <!-- derived [" in profile
    assert "| work\n" in text  # the rules filed the work memories under "work"

    with freeze_time("2026-03-23 09:00:00"):  # a Monday
        # The block the next session starts with: the profile first, the memories, and
        # what the last session left open.
        block = hooks.session_start([Place("file", memory)], "next", None, story.lang)
        assert block.index("<profile>") < block.index("<memories>") < block.index("<open_")
        assert story.name in block.split("</profile>", 1)[0]
        threads = block.split("<open_threads>", 1)[1]
        assert "2026-03-20" in threads and ("release notes" in threads or "发布" in threads)

        # Recall, for questions about days.
        for question, day, words in story.questions:
            hits = Memory(memory).recall_notes(question)
            assert hits, question
            assert hits[0].day.isoformat() == day, (question, hits[0])
            assert words in hits[0].text, (question, hits[0].text)
        printed = CliRunner().invoke(app, ["recall", story.questions[0][0], "--file", str(memory)])
        assert f"{story.questions[0][1]} 17:30 session {story.lang}-4" in printed.output

        # Consolidation leaves every memory findable; nothing is deleted by it.
        before = {e.id: e.content for e in Memory(memory).entries()}
        Memory(memory).consolidate()
        after = {e.id: e.content for e in Memory(memory).entries()}
    assert set(before) <= set(after)
