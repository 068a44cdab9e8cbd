"""Extractors: the offline rules, and the Claude extractor through the real SDK and a fake API."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES
from fake_anthropic import FakeAnthropic, answer, error, fake_anthropic, message

from everbot_memory import MemoryManager
from everbot_memory.core.text import estimate_tokens
from everbot_memory.errors import ConfigError, ExtractionError
from everbot_memory.extract.claude import ClaudeExtractor
from everbot_memory.extract.contract import COMPRESS_ABOVE_TOKENS
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules.changes import contradicted
from everbot_memory.extract.rules.wording import sentence
from everbot_memory.facade.choice import choose_extractor
from everbot_memory.storage.ledger import SessionLedger

anthropic = pytest.importorskip("anthropic")

SHORT = [
    {"role": "user", "content": "I prefer pytest over unittest."},
    {"role": "assistant", "content": "Noted."},
]


def rules(*user_lines: str) -> list[tuple[str, str, str]]:
    messages = [{"role": "user", "content": line} for line in user_lines]
    return [(c.content, c.category, c.importance) for c in RuleExtractor().extract(messages)]


# -- offline rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "said, content, category",
    [
        ("I prefer tabs over spaces.", "The user prefers tabs over spaces.", "preference"),
        ("I hate long meetings", "The user hates long meetings.", "preference"),
        ("My name is Ada Lovelace.", "The user's name is Ada Lovelace.", "fact"),
        ("I work at Initech.", "The user works at Initech.", "fact"),
        ("I live in Porto.", "The user lives in Porto.", "fact"),
        (
            "We decided to use Redis instead of Memcached.",
            "The team decided to use Redis instead of Memcached.",
            "decision",
        ),
        (
            "Every morning I read the incident report.",
            "Every morning the user reads the incident report.",
            "workflow",
        ),
        (
            "I need to renew the TLS certificate next Friday.",
            "The user needs to renew the TLS certificate next Friday.",
            "todo",
        ),
        (
            "Remember that the VPN drops at midnight.",
            "The VPN drops at midnight.",
            "fact",
        ),
        ("我喜欢用 vim。", "用户喜欢用 vim", "preference"),
        ("我叫李雷。", "用户叫李雷", "fact"),
        ("我在腾讯工作。", "用户在腾讯工作", "fact"),
        ("我住在成都。", "用户住在成都", "fact"),
        ("我们决定使用 Go 而不是 Java。", "团队决定使用 Go而不是Java", "decision"),
        ("我每天早上跑步。", "用户每天早上跑步", "workflow"),
        ("下周三我要交周报。", "用户下周三要交周报", "todo"),
        ("记住：测试环境周五只读。", "测试环境周五只读", "fact"),
    ],
)
def test_rules_read_explicit_statements(said: str, content: str, category: str) -> None:
    [(got, got_category, _)] = rules(said)
    assert got_category == category
    # A todo whose day was said relatively carries the day itself: "(2026-04-17)".
    dated = re.search(r"\s?[(（]\d{4}-\d\d-\d\d[)）]\.?$", got)
    if dated:
        assert category == "todo"
        got = got[: dated.start()] + ("." if got.endswith(".") else "")
    assert got.replace(" ", "") == content.replace(" ", "")


@pytest.mark.parametrize(
    "said",
    [
        "What's the capital of France?",
        "If I moved to Rust, would it be faster?",
        "I like that idea.",
        "I love it!",
        "I'd like a summary, please.",
        "I need to go now.",
        "我喜欢这个方案！",
        "你觉得我应该学 Kotlin 吗？",
        "如果我换成 Rust 会更快吗？",
        "Thanks, that fixed it.",
    ],
)
def test_rules_leave_questions_reactions_and_requests_alone(said: str) -> None:
    assert rules(said) == []


def test_rules_read_only_the_users_lines() -> None:
    messages = [
        {"role": "assistant", "content": "I prefer tabs. My name is Claude."},
        {"role": "system", "content": "I live in the cloud."},
        {"role": "user", "content": "Thanks!"},
    ]
    assert RuleExtractor().extract(messages) == []


def test_rules_on_the_labeled_set_keep_precision_high() -> None:
    """The evaluation script's figure, held as a floor so a rule change cannot lower it unseen."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "eval_extraction.py"
    spec = importlib.util.spec_from_file_location("eval_extraction", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_extraction"] = module
    spec.loader.exec_module(module)
    scores = module.evaluate(FIXTURES / "extraction" / "labeled.json")
    cases = (FIXTURES / "extraction" / "labeled.json").read_text(encoding="utf-8")
    assert cases.count('"id"') >= 40 and cases.count('"lang": "zh"') >= 20
    assert scores["all"].precision >= 0.9
    assert scores["all"].recall >= 0.75


def test_a_clause_cut_before_its_separator_ends_with_one_stop() -> None:
    assert sentence("the user no longer works at Nordwind Logistics;") == (
        "The user no longer works at Nordwind Logistics."
    )
    assert sentence("the user lives in Lyon,") == "The user lives in Lyon."
    assert sentence("the user asked why?") == "The user asked why?"


@pytest.mark.parametrize(
    "new, old, replaced",
    [
        ("lives in Paris", "The user lives in Lyon.", True),
        ("The user lives in Paris.", "lives in Lyon", True),
        ("I live in Paris", "The user lives in Lyon.", True),
        ("lives in Paris", "The user lives in Paris.", False),
        ("works at Acme", "The user works at Nordwind Logistics.", True),
        ("The user works for Acme as a tester.", "I work at Acme", False),
        ("用户住在上海", "用户住在成都。", True),
        ("用户住在成都", "用户住在成都。", False),
        ("Live in the moment.", "The user lives in Lyon.", False),
    ],
)
def test_a_single_valued_fact_replaces_its_other_values(new: str, old: str, replaced: bool) -> None:
    from everbot_memory.core.candidate import Candidate

    ids = contradicted(Candidate(content=new), None, [("old111", old)])
    assert ids == (("old111",) if replaced else ())


def test_a_changed_fact_finds_the_memory_despite_trailing_punctuation() -> None:
    from everbot_memory.core.candidate import Candidate

    known = [("old111", "The user works at Nordwind Logistics.")]
    candidate = Candidate(content="The user no longer works at Nordwind Logistics.")
    assert contradicted(candidate, "Nordwind Logistics;", known) == ("old111",)


def test_token_estimate_counts_cjk_characters_one_each() -> None:
    assert estimate_tokens("用户喜欢简洁的代码风格") == 11
    assert estimate_tokens("a" * 400) == 100


# -- Claude, through the real SDK against a local server ---------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with fake_anthropic() as server:
        yield server


def claude(fake: FakeAnthropic, **kwargs: object) -> ClaudeExtractor:
    options = {"max_retries": 2, "timeout": 10.0, **kwargs}
    client = anthropic.Anthropic(api_key="test-key", base_url=fake.url, **options)
    return ClaudeExtractor(client, model="claude-test")


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    manager = MemoryManager(path)
    manager.remember("The user drinks green tea.", "preference", "high")
    for i in range(60):
        manager.remember(f"Known memory number {i}.", "fact")
    return path


def test_good_answer_gives_memories_and_confirmations(fake: FakeAnthropic, memory: Path) -> None:
    known = {e.content: e.id for e in MemoryManager(memory).entries()}
    tea = known["The user drinks green tea."]
    fake.replies = [
        answer(
            [
                {
                    "content": "The user prefers pytest.",
                    "category": "preference",
                    "importance": "high",
                },
                {"content": "用户住在柏林", "category": "fact", "importance": "medium"},
            ],
            confirmed_ids=[tea],
        )
    ]
    extractor = claude(fake)
    stats = MemoryManager(memory, extractor).process_session_end_sync(SHORT, "s1")
    assert (stats["new"], stats["updated"]) == (2, 1)
    entries = {e.content: e for e in MemoryManager(memory).entries()}
    assert entries["The user prefers pytest."].score == 0.8
    assert entries["用户住在柏林"].score == 0.6
    assert entries["The user drinks green tea."].activation_count == 2
    # The request itself: one call, the system prompt cached, at most 50 known memories.
    assert fake.calls == 1
    request = fake.requests[0]
    assert request["model"] == "claude-test"
    assert request["system"][0]["cache_control"] == {"type": "ephemeral"}
    user_text = request["messages"][0]["content"]
    known_lines = user_text.split("<existing_memories>\n")[1].split("\n</existing_memories>")[0]
    assert len(known_lines.split("\n")) == 50
    assert "I prefer pytest over unittest." in user_text
    assert request["output_config"]["format"]["type"] == "json_schema"
    sent = fake.headers[0]
    assert "test-key" in sent.get("x-api-key", "") + sent.get("authorization", "")


GOOD = answer(
    [{"content": "The user prefers pytest.", "category": "preference", "importance": "high"}]
)


NOT_JSON = message("Sure! Here are the memories: the user likes pytest.")


@pytest.mark.parametrize(
    "replies, expected, calls",
    [
        ([NOT_JSON, NOT_JSON], "is not JSON .*again after one repair request", 2),
        (
            [message('{"memories": [{"content": "x", "category": "hobby", "importance": "high"}]}')]
            * 2,
            r"memory schema \(memories.0.category.*again after one repair request",
            2,
        ),
        ([message('{"memories": "none"}')] * 2, "memory schema", 2),
        (
            [message('{"memories": [], "confirmed_ids": ["zzzzzz"]}')] * 2,
            "unknown memory ids: 'zzzzzz', again after one repair request",
            2,
        ),
        (
            [message('{"memories": [{"content": "The user prefers py', stop_reason="max_tokens")],
            "cut short at max_tokens",
            1,
        ),
        ([message("", stop_reason="max_tokens")], "cut short at max_tokens", 1),
        ([message("I can't help with that.", stop_reason="refusal")], "model refused", 1),
    ],
    ids=[
        "malformed-text",
        "schema-violation",
        "wrong-type",
        "unknown-ids",
        "cut-at-max-tokens",
        "empty-cut",
        "refusal",
    ],
)
def test_an_unusable_answer_changes_nothing_and_the_session_stays_open(
    fake: FakeAnthropic, memory: Path, replies: list[object], expected: str, calls: int
) -> None:
    before = memory.read_bytes()
    fake.replies = list(replies)  # type: ignore[arg-type]
    with pytest.raises(ExtractionError, match=f"{expected}.*closing the session again retries"):
        MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert fake.calls == calls  # one repair request for what a second try can mend
    assert memory.read_bytes() == before
    assert not SessionLedger(memory).seen("s1")
    # The API answers properly now: closing the session again reads it all.
    fake.replies = [GOOD]
    stats = MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert (stats["new"], stats["messages"]) == (1, 2)
    assert SessionLedger(memory).seen("s1")


def test_a_malformed_answer_is_repaired_by_one_more_request(
    fake: FakeAnthropic, memory: Path
) -> None:
    fake.replies = [NOT_JSON, GOOD]
    stats = MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert stats["new"] == 1 and fake.calls == 2
    repair = fake.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert repair[1]["content"] == NOT_JSON.body["content"][0]["text"]
    assert "could not be used: the model's answer is not JSON" in repair[2]["content"]


@pytest.mark.parametrize(
    "replies, expected, calls",
    [
        ([error(401, "authentication_error")], "API key was rejected", 1),
        ([error(429, "rate_limit_error")] * 3, "rate limited", 3),
        ([error(500, "api_error")] * 3, r"API failed \(500\)", 3),
        ([error(529, "overloaded_error")] * 3, r"API failed \(529\)", 3),
        ([error(404, "not_found_error")], "was not found", 1),
    ],
    ids=["401", "429-persistent", "500-persistent", "529-overloaded", "404-model"],
)
def test_api_errors_are_clear_and_leave_the_file_alone(
    fake: FakeAnthropic, memory: Path, replies: list[object], expected: str, calls: int
) -> None:
    before = memory.read_bytes()
    fake.replies = list(replies)  # type: ignore[arg-type]
    with pytest.raises(ExtractionError, match=expected):
        MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert fake.calls == calls  # the SDK retried what is worth retrying
    assert memory.read_bytes() == before


def test_429_then_success_is_retried_by_the_sdk(fake: FakeAnthropic, memory: Path) -> None:
    fake.replies = [
        error(429, "rate_limit_error"),
        answer(
            [{"content": "The user likes jazz.", "category": "preference", "importance": "low"}]
        ),
    ]
    stats = MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert stats["new"] == 1 and fake.calls == 2


def test_a_silent_server_is_given_up_on_after_the_timeout_setting(
    fake: FakeAnthropic, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EVERBOT_MEMORY_TIMEOUT bounds each try; the SDK tries three times, then it is an error."""
    before = memory.read_bytes()
    fake.replies = [answer([]) for _ in range(3)]
    for reply in fake.replies:
        reply.delay = 30  # never answers in time
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("EVERBOT_MEMORY_TIMEOUT", "0.3")
    started = time.monotonic()
    with pytest.raises(ExtractionError, match="did not answer in time"):
        MemoryManager(memory, "claude").process_session_end_sync(SHORT, "s1")
    assert time.monotonic() - started < 10  # 3 tries of 0.3 s and the SDK's short pauses
    assert fake.calls == 3
    assert memory.read_bytes() == before
    assert not SessionLedger(memory).seen("s1")


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf"])
def test_a_bad_timeout_setting_is_a_clear_error(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("EVERBOT_MEMORY_TIMEOUT", value)
    with pytest.raises(ConfigError, match=r"EVERBOT_MEMORY_TIMEOUT: timeout .* not a number"):
        choose_extractor("anthropic")


# -- the choice of extractor when the 'claude' extra is not installed ------------------------


@pytest.fixture
def no_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The anthropic SDK not installed: ``import anthropic`` raises ImportError."""
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")


def test_auto_with_a_key_but_no_sdk_uses_the_rules_and_says_so(
    no_sdk: None, tmp_path: Path
) -> None:
    choice = choose_extractor("auto")
    assert isinstance(choice.extractor, RuleExtractor) and choice.name == "rules"
    assert choice.warning is not None and "'claude' extra is not installed" in choice.warning
    manager = MemoryManager(tmp_path / "MEMORY.md", "auto")
    stats = manager.process_session_end_sync(SHORT, "s1")
    assert stats["new"] == 1
    assert manager.warnings[0] == choice.warning


def test_claude_by_name_without_the_sdk_is_a_one_line_error(no_sdk: None, tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match=r"needs the 'claude' extra: pip install"):
        choose_extractor("claude")
    with pytest.raises(ExtractionError, match="needs the 'claude' extra"):
        ClaudeExtractor().extract(SHORT)  # made directly, it says the same
    path = tmp_path / "MEMORY.md"
    with pytest.raises(ExtractionError, match="needs the 'claude' extra"):
        MemoryManager(path, "claude").process_session_end_sync(SHORT, "s1")
    assert not path.exists() and not SessionLedger(path).seen("s1")


# The command without the SDK: importing anthropic fails, as on a default install.
_WITHOUT_SDK = (
    "import runpy, sys; sys.modules['anthropic'] = None; sys.argv[0] = 'everbot-memory'; "
    "runpy.run_module('everbot_memory', run_name='__main__')"
)


@pytest.mark.parametrize("extractor", ["auto", "claude"])
def test_close_session_without_the_sdk_says_so_in_one_line(extractor: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVERBOT_"))}
    memory = tmp_path / "MEMORY.md"
    transcript = FIXTURES / "conversations" / "demo.txt"
    args = ["close-session", str(transcript), "--file", str(memory), "--extractor", extractor]
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_SDK, *args],
        capture_output=True,
        text=True,
        env={**env, "ANTHROPIC_API_KEY": "test-key"},
        timeout=60,
    )
    assert "Traceback" not in result.stderr
    if extractor == "auto":
        assert result.returncode == 0, result.stderr
        assert result.stderr.splitlines()[0] == (
            "everbot-memory: warning: ANTHROPIC_API_KEY is set but the 'claude' extra is not "
            "installed: pip install -e '.[claude]'; using the offline rules"
        )
        assert "(rules extractor)" in result.stdout
        assert MemoryManager(memory).entries()
    else:
        assert result.returncode == 1
        assert result.stderr.count("\n") == 1 and "needs the 'claude' extra" in result.stderr
        assert not memory.exists()


def test_a_long_conversation_is_summarized_first(fake: FakeAnthropic, tmp_path: Path) -> None:
    long_talk = [
        {"role": "user", "content": f"Line {i}: " + "we talked about the data pipeline " * 8}
        for i in range(300)
    ]
    assert estimate_tokens(" ".join(m["content"] for m in long_talk)) > COMPRESS_ABOVE_TOKENS
    fake.replies = [
        message("The user said they prefer DuckDB for analytics."),
        answer(
            [
                {
                    "content": "The user prefers DuckDB.",
                    "category": "preference",
                    "importance": "medium",
                }
            ]
        ),
    ]
    extractor = claude(fake)
    stats = MemoryManager(tmp_path / "MEMORY.md", extractor).process_session_end_sync(
        long_talk, "s"
    )
    assert stats["new"] == 1 and fake.calls == 2 and extractor.calls == 2
    assert "output_config" not in fake.requests[0]  # the summary call is plain text
    assert "prefer DuckDB for analytics" in fake.requests[1]["messages"][0]["content"]


def test_without_a_key_claude_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ExtractionError, match="ANTHROPIC_API_KEY is not set"):
        ClaudeExtractor().extract(SHORT)


def test_model_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVERBOT_MEMORY_MODEL", "claude-from-env")
    assert choose_extractor("anthropic").extractor.model == "claude-from-env"  # type: ignore[attr-defined]
    assert choose_extractor("anthropic", "explicit").extractor.model == "explicit"  # type: ignore[attr-defined]


def test_claude_can_forget_and_set_an_expiry(fake: FakeAnthropic, memory: Path) -> None:
    known = {e.content: e.id for e in MemoryManager(memory).entries()}
    tea = known["The user drinks green tea."]
    fake.replies = [
        message(
            '{"memories": [{"content": "The user must file taxes.", "category": "todo", '
            '"importance": "high", "expires_on": "2026-04-15"}], '
            f'"confirmed_ids": [], "forget_ids": ["{tea}"]}}'
        )
    ]
    stats = MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert stats["forgotten"] == 1 and stats["new"] == 1
    entries = {e.content: e for e in MemoryManager(memory).entries()}
    assert "The user drinks green tea." not in entries
    assert (
        entries["The user must file taxes."].expires_at.isoformat() == "2026-04-16T00:00:00+00:00"
    )
    assert 'date="' in fake.requests[0]["messages"][0]["content"]


def test_claude_contradictions_archive_the_old_memory(fake: FakeAnthropic, memory: Path) -> None:
    tea = {e.content: e.id for e in MemoryManager(memory).entries()}["The user drinks green tea."]
    fake.replies = [
        answer(
            [
                {
                    "content": "The user switched from tea to coffee.",
                    "category": "preference",
                    "importance": "high",
                    "contradicts": [tea],
                }
            ]
        )
    ]
    stats = MemoryManager(memory, claude(fake)).process_session_end_sync(SHORT, "s1")
    assert stats["contradicted"] == 1
    entries = {e.id: e for e in MemoryManager(memory).entries()}
    assert not entries[tea].is_active
    new = next(e for e in entries.values() if e.content == "The user switched from tea to coffee.")
    assert new.replaces == (tea,)
