"""Single-valued facts read as slots: a new value said as the present retires the old one."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from freezegun import freeze_time

from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules.slots import new_values, replaced_by

KNOWN = [
    ("home", "The user lives in Exeter."),
    ("job", "The user works at Brightline Media."),
    ("editor", "The user writes code in Sublime Text."),
    ("phone", "The user has a Galaxy S21."),
    ("boss", "The user's manager is Tomasz."),
    ("zhome", "用户住在南京鼓楼区"),
    ("zjob", "用户在华为做嵌入式开发"),
    ("znotes", "用户用印象笔记整理资料"),
]


@pytest.mark.parametrize(
    "said, retired",
    [
        ("finally got the keys to our flat in Norwich", ["home"]),
        ("we're living in Cardiff now and the rent is half", ["home"]),
        ("after we relocated to Dundee the commute got easy", ["home"]),
        ("my first week at Halcyon Labs was a blur", ["job"]),
        ("started at Orbital Freight on Tuesday", ["job"]),
        ("been on Helix since February and I don't miss anything", ["editor"]),
        ("made the switch to PyCharm over the holidays", ["editor"]),
        ("I'm reporting to Ingrid now, she's great", ["boss"]),
        ("去年年底跳槽去了小红书", ["zjob"]),
        ("我们搬来厦门三个多月了", ["zhome"]),
        ("资料现在都用语雀整理了", ["znotes"]),
    ],
)
def test_a_new_value_said_as_the_present_retires_the_old(said: str, retired: list[str]) -> None:
    assert replaced_by(said, KNOWN)[1] == retired


@pytest.mark.parametrize(
    "said",
    [
        "should we move to Norwich at some point?",
        "thinking about switching to PyCharm",
        "my brother just moved to Cardiff",
        "I still use Sublime Text for quick notes",
        "我朋友跳槽去了小红书",
        "要不要搬去厦门呢",
        "I switched from PyCharm back to Sublime Text",
        "we compared Obsidian and Notion for the team wiki, both are fine",
    ],
)
def test_plans_questions_others_and_the_same_value_retire_nothing(said: str) -> None:
    assert replaced_by(said, KNOWN)[1] == []


def test_a_value_said_to_be_left_is_not_the_new_one() -> None:
    assert [v.value for v in new_values("sold my old Pixel, the iPhone is my daily now")] == [
        "iPhone"
    ]
    assert [v.value for v in new_values("Evernote 已经卸了，全换 Obsidian 了")] == ["Obsidian"]


def test_the_new_value_is_kept_as_a_memory_that_replaces_the_old() -> None:
    messages = [
        {
            "role": "user",
            "content": "any tips for a first garden? got the keys to our place in Norwich!",
        }
    ]
    known = "[home] The user lives in Exeter."
    with freeze_time(datetime(2026, 5, 4, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, known)
    assert [(c.content, c.contradicts) for c in found if "Norwich" in c.content] == [
        ("The user lives in Norwich.", ("home",))
    ]
