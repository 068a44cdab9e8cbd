"""Whole kinds of wording the offline extractor reads: statements said unsure, with a
question mark; changes of a single-valued fact said in passing; what is not the user's."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from freezegun import freeze_time

from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules.dates import resolve_date


def _close(lines: list[str], known: str = "") -> list[tuple[str, str, tuple[str, ...]]]:
    messages = [{"role": "user", "content": line} for line in lines]
    with freeze_time(datetime(2026, 4, 8, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, known)
    return [(c.category, c.content, c.contradicts) for c in found]


@pytest.mark.parametrize(
    "said, kept",
    [
        ("the nurse asked, but I think I'm allergic to latex?", "allergic to latex"),
        ("pretty sure I'm allergic to shellfish?", "allergic to shellfish"),
        ("我好像对花粉过敏？", "对花粉过敏"),
    ],
)
def test_a_statement_said_unsure_with_a_question_mark_is_kept(said: str, kept: str) -> None:
    assert any(kept in content for _, content, _ in _close([said]))


@pytest.mark.parametrize(
    "said",
    ["I think I should quit my job?", "我好像是不是胖了？", "我应该换工作吗？"],
)
def test_a_question_said_with_a_hedge_is_still_a_question(said: str) -> None:
    assert _close([said]) == []


@pytest.mark.parametrize(
    "said, day",
    [
        ("儿子下个月 5 号开学", date(2026, 5, 5)),
        ("9 月 3 号交房", date(2026, 9, 3)),
        ("报销这个月 20 号之前要交", date(2026, 4, 20)),
        ("本月28号还信用卡", date(2026, 4, 28)),
    ],
)
def test_chinese_days_typed_with_spaces_or_of_this_month(said: str, day: date) -> None:
    assert resolve_date(said, date(2026, 4, 8)) == day


@pytest.mark.parametrize(
    "said",
    [
        "ANTHROPIC_API_KEY=[redacted:anthropic-key] sits in my .env and I load it with dotenv",
        "the router login is admin / pass [redacted:password] and I keep it in my notes app",
    ],
)
def test_a_sentence_around_a_pasted_secret_is_not_kept(said: str) -> None:
    assert not any("[redacted:" in content for _, content, _ in _close([said]))


@pytest.mark.parametrize(
    "said", ["ok fine, I'll order one on friday", "I need to send it over tomorrow", "那我周四去弄"]
)
def test_a_todo_whose_only_object_points_back_names_nothing(said: str) -> None:
    assert _close([said]) == []


@pytest.mark.parametrize(
    "said",
    ["I need to book that flight to Oslo by friday", "call the plumber tomorrow", "周四去银行办卡"],
)
def test_a_todo_that_names_its_thing_is_kept(said: str) -> None:
    assert [category for category, _, _ in _close([said])] == ["todo"]


@pytest.mark.parametrize(
    "said, kept",
    [
        ("pls remember my daughter is lactose intolerant", "daughter is lactose intolerant"),
        ("please remember for next time: the build needs Java 17", "build needs Java 17"),
    ],
)
def test_asked_to_remember_without_that(said: str, kept: str) -> None:
    assert any(kept in content for _, content, _ in _close([said]))


@pytest.mark.parametrize("said", ["remember to water the plants", "remember when we met in Oslo?"])
def test_remember_to_or_when_is_no_fact_to_keep(said: str) -> None:
    assert not any(category == "fact" for category, _, _ in _close([said]))


def test_a_day_typed_with_spaces_is_written_out_in_the_memory() -> None:
    found = _close(["我表妹婚礼是 18 号"])
    assert [(category, content) for category, content, _ in found] == [
        ("todo", "用户表妹婚礼是 18 号（2026-04-18）")
    ]


def test_a_story_told_with_finally_and_a_weekday_is_not_a_todo() -> None:
    from everbot_memory.extract.rules.extractor import _selected_category

    category, _ = _selected_category(
        "we finally re-tiled the bathroom on saturday, so happy", "todo", date(2026, 4, 8)
    )
    assert category == "experience"
    category, _ = _selected_category(
        "I finally booked the dentist for friday", "todo", date(2026, 4, 8)
    )
    assert category == "todo"


@pytest.mark.parametrize(
    "said, content",
    [
        (
            "we're going with Kafka over RabbitMQ for the event bus",
            "The team decided to use Kafka for the event bus instead of RabbitMQ.",
        ),
        (
            "we settled on Vitest for the frontend",
            "The team decided to use Vitest for the frontend.",
        ),
    ],
)
def test_a_choice_said_as_the_one_made_is_a_decision(said: str, content: str) -> None:
    assert ("decision", content) in [(category, text) for category, text, _ in _close([said])]


@pytest.mark.parametrize("said", ["I'm going with the blue one", "we're going with him to the zoo"])
def test_going_with_something_unnamed_or_someone_is_no_decision(said: str) -> None:
    assert not any(category == "decision" for category, _, _ in _close([said]))


def test_what_the_user_asks_to_forget_is_not_kept_again_from_the_same_message() -> None:
    found = _close(
        ["sam and I broke up in May. please delete whatever you had about him"],
        "[k1] The user's boyfriend is Sam.",
    )
    # Only the request itself, naming the known memory; not "The user and Sam broke up".
    assert [content for _, content, _ in found] == ["The user's boyfriend is Sam."]


def test_the_rest_of_a_message_with_a_forget_request_is_kept() -> None:
    found = _close(
        ["you can drop the marathon stuff. I tore my ACL skiing last week"],
        "[k1] The user is training for the Berlin Marathon.",
    )
    assert any("ACL" in content for _, content, _ in found)
