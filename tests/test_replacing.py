"""The fitted model of changes said in passing: a sentence that makes a known memory no longer
so, in words no fixed rule reads, retires that memory and no other."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules import extractor as rules
from everbot_memory.extract.rules.replacing import (
    Replacing,
    load_replacing,
    pair_features,
    ruled_out,
)

STAMP = "2026-05-04T12:00:00+00:00"


def _retired(text: str, *known: str) -> dict[str, tuple[str, ...]]:
    """Each memory the conversation gave, with the known ids it retires."""
    messages = []
    for said in text.split(" || "):
        messages.append({"role": "user", "content": said, "timestamp": STAMP})
        messages.append({"role": "assistant", "content": "OK.", "timestamp": STAMP})
    summary = "\n".join(f"[k{i}] {content}" for i, content in enumerate(known, 1))
    return {c.content: c.contradicts for c in RuleExtractor().extract(messages, summary)}


def _all_retired(text: str, *known: str) -> set[str]:
    return {i for ids in _retired(text, *known).values() for i in ids}


@pytest.fixture
def without_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(rules, "load_replacing", lambda: None)
    yield


needs_encoder = pytest.mark.skipif(
    rules.embedder() is None, reason="the embeddings extra is not installed"
)


def test_the_shipped_weights_load() -> None:
    model = load_replacing()
    assert model is not None and 0.5 < model.threshold < 1
    assert {"close", "margin", "durable", "cue:end"} <= set(model.weights)


@needs_encoder
@pytest.mark.parametrize(
    ("text", "known"),
    [
        (
            "the removal van got lost twice but we're finally properly unpacked in Bristol. "
            "what's a good first dinner to cook in a new kitchen?",
            ("The user lives in Cardiff.", "The user likes hiking."),
        ),
        (
            "家里那台老雅阁上个月处理掉了 现在开的是理想L6",
            ("用户开本田雅阁。", "用户住在无锡。"),
        ),
        # The old value named as what is left behind: a switch, and what holds now.
        (
            "我们组今年全面转go了 我现在写的新服务基本都是go 老的java服务慢慢迁",
            ("用户主要用Java写后端。", "用户在成都工作。"),
        ),
        # An end said as "-free".
        (
            "week 6 smoke-free and my lungs feel better already, any tips for the cravings?",
            ("The user smokes about ten cigarettes a day.", "The user works in retail."),
        ),
    ],
)
def test_a_change_said_in_passing_retires_the_memory_it_is_about(
    text: str, known: tuple[str, str]
) -> None:
    assert _all_retired(text, *known) == {"k1"}


@needs_encoder
def test_without_the_model_the_rules_alone_miss_it(without_model: None) -> None:
    text = "the removal van got lost twice but we're finally properly unpacked in Bristol"
    assert _all_retired(text, "The user lives in Cardiff.") == set()


@needs_encoder
@pytest.mark.parametrize(
    ("text", "known"),
    [
        # A stay away, not a new home.
        (
            "landed in Denver for the offsite, staying 4 days, the hotel gym is tiny",
            "The user lives in Austin.",
        ),
        # The memory named as still so.
        (
            "still at Acme, just on the payments team now. how do I read a big Go codebase?",
            "The user works at Acme.",
        ),
        ("还是觉得微信读书顺手 划线笔记都在那", "用户用微信读书看书。"),
        # A switch of something else, the memory's value named as what holds now.
        (
            "we migrated the repo to GitHub Actions, now I mostly write Python for the CI scripts",
            "The user codes in Python.",
        ),
        ("my dog is gluten-free now, the vet said so", "The user has a dog."),
        # Someone else's news.
        ("my sister just moved to Denver, she loves it", "The user lives in Austin."),
        ("我老公换工作去了华为 以后要经常出差了", "用户在银行工作。"),
        # Not so yet.
        ("I might move to Denver next year, the rents look ok", "The user lives in Austin."),
        # Nothing said about the memory's thing.
        ("can you explain how python decorators work?", "The user lives in Austin."),
        # Still to come.
        ("I'm flying to Portland tomorrow.", "The user lives in Seattle."),
        ("I'll be in Portland next week.", "The user lives in Seattle."),
        ("I'm transferring to Stanford next semester.", "The user is a student at MIT."),
        # One more, nothing given up.
        ("I just got a kitten!", "The user has two cats."),
        ("我刚领养了一只小猫。", "用户养了一只猫。"),
        # The memory's thing, still so.
        ("I'm teaching at a new school now.", "The user works as a teacher."),
    ],
)
def test_what_says_no_change_retires_nothing(text: str, known: str) -> None:
    assert _all_retired(text, known, "The user likes hiking.") == set()


def test_a_sentence_replaces_at_most_one_memory() -> None:
    model = Replacing({"bias": -1.0, "close": 10.0}, 0.5)
    known = [("k1", "The user lives in Leeds."), ("k2", "The user works in Leeds.")]
    said = "we finally moved into the new flat in York"
    assert model.replaced(said, known, [0.8, 0.6], 0.9) == "k1"
    assert model.replaced(said, known, [0.05, 0.05], 0.9) is None


def test_the_rules_rule_out_what_they_read_as_unchanged() -> None:
    assert ruled_out("still at Acme but on a new team", "The user works at Acme.")
    assert ruled_out("landed in Lisbon for a conference", "The user lives in Porto.")
    assert not ruled_out("we moved to Lisbon last month", "The user lives in Porto.")
    # Someone else's news is theirs, unless what they changed is the user's own.
    assert ruled_out("they moved to Lisbon last month", "The user lives in Porto.")
    standup = "The user has a daily standup at 10am."
    assert not ruled_out("they moved our standup to 9:30 starting this week", standup)
    # ("其他" is "other", no one else.)
    assert not ruled_out("搬到天津一个月了 其他两天远程", "用户住在北京朝阳区。")
    assert ruled_out("他搬到天津一个月了", "用户住在北京朝阳区。")
    # A plan after the change, as its consequence, leaves it a change; a planned change is none.
    hours = "The user works Monday to Friday, 9 to 5."
    assert not ruled_out(
        "my job switched me to 4 tens so i finally have fridays off, i want to use it", hours
    )
    assert ruled_out(
        "I might move to Denver next year so I want to find a gym", "The user lives in Austin."
    )


def test_features_see_the_memorys_words_and_the_cues() -> None:
    features = pair_features(
        "sold the Civic, I drive an Ioniq now", "The user drives a Honda Civic.", 0.6, 0.2, 0.9
    )
    assert features["names_old"] == 1.0 and features["names_other"] == 1.0
    assert features["cue:end"] == 1.0 and features["cue:now"] == 1.0
    assert features["margin"] == pytest.approx(0.3) and features["closest"] == 1.0
