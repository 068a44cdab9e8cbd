"""The offline extractor on wordings written apart from the labeled corpora: spoken date
shapes, what a todo is (a day to come, not today's news), the kind of a memory from its
grammar, changed values said naturally, and the user's voice with a compound subject."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from freezegun import freeze_time

from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules.dates import resolve_date

TODAY = date(2026, 4, 8)  # a Wednesday


def _close(lines: list[str], known: str = "") -> list[tuple[str, str, tuple[str, ...]]]:
    messages = [{"role": "user", "content": line} for line in lines]
    with freeze_time(datetime(2026, 4, 8, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, known)
    return [(c.category, c.content, c.contradicts) for c in found]


@pytest.mark.parametrize(
    "said, day",
    [
        ("dentist appt thurs 3:30", date(2026, 4, 9)),
        ("the plumber comes tues morning", date(2026, 4, 14)),
        ("mom's bday dinner is sat night", date(2026, 4, 11)),
        ("parents land on sun at 6", date(2026, 4, 12)),
        ("the review is on Thursday the 23rd", date(2026, 4, 23)),
        ("my visa runs out mid-May", date(2026, 5, 15)),
        ("leave starts May 4 and I'm out until mid-July", date(2026, 5, 4)),
    ],
)
def test_shortened_weekdays_a_weekday_with_its_date_and_mid_month(said: str, day: date) -> None:
    assert resolve_date(said, TODAY) == day


@pytest.mark.parametrize(
    "said",
    [
        "been on Helix for about six weeks now",
        "I've been running for two weeks",
        "after months of back and forth we gave up",
        "I sat down with the landlord",
        "the sun was out all day",
        "开学第一周天天加班",
    ],
)
def test_how_long_and_words_that_look_like_days_name_no_day(said: str) -> None:
    assert resolve_date(said, TODAY) is None


@pytest.mark.parametrize(
    "said",
    [
        "omg PASSED my driving test today, third try",
        "Today I'm just resting on the couch",
        "Sunday nights I batch cook for the whole week",
        "mondays are always back to back meetings for me",
        "I do deep work mon to wed mornings",
        "国庆想出去玩，我最讨厌人挤人",
    ],
)
def test_news_of_today_habits_and_tastes_are_not_todos(said: str) -> None:
    assert not any(category == "todo" for category, *_ in _close([said]))


@pytest.mark.parametrize(
    "said",
    [
        "I have to call the bank today before they close",
        "今晚九点跟美国那边开季度会，我要讲十分钟",
        "明晚八点有个面试，面试官据说很喜欢问系统设计",
    ],
)
def test_a_todo_of_today_needs_something_to_do_or_a_time_and_someone_elses_taste_is_no_taste(
    said: str,
) -> None:
    assert any(category == "todo" for category, *_ in _close([said]))
