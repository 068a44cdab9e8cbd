"""Transcript readers on fixture transcripts in every format, broken lines included."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES

from everbot_memory.errors import TranscriptError
from everbot_memory.extract.transcripts import parse_transcript, read_transcript

TRANSCRIPTS = FIXTURES / "transcripts"


def test_claude_code_keeps_only_what_the_people_said() -> None:
    transcript = read_transcript(TRANSCRIPTS / "claude_code_session.jsonl")
    assert transcript.format == "claude-code"
    assert transcript.session_id == "4f0c8a2e-1111-4222-8333-444455556666"
    assert [(m.role, m.text) for m in transcript.messages] == [
        ("context", "Setting up the ETL project"),
        ("user", "I prefer pytest over unittest. Can you set up the test folder?"),
        ("assistant", "Sure, I'll create tests/ with a conftest.py."),
        ("user", "我住在柏林。Every morning I check the ETL dashboard."),
        ("assistant", "Noted: Berlin, and the morning dashboard check."),
    ]
    text = " ".join(m.text for m in transcript.messages)
    for left_out in ("tabs", "Atlantis", "Caveat", "/clear", "mkdir", "wants pytest"):
        assert left_out not in text  # tool output, sub-agent, meta, command, tool input, thinking
    assert transcript.skipped == 2  # the line that is not JSON, and the JSON list
    assert transcript.messages[1].timestamp is not None
    assert transcript.messages[1].timestamp.isoformat() == "2026-03-01T09:00:00+00:00"


def test_message_list_with_string_and_block_content() -> None:
    transcript = read_transcript(TRANSCRIPTS / "messages.json")
    assert transcript.format == "messages"
    assert [(m.role, m.text) for m in transcript.messages] == [
        ("user", "My name is Lena and I work at Nordwind Logistics."),
        ("assistant", "Hello Lena."),
        ("user", "我喜欢简洁的代码风格。"),
    ]
    assert transcript.skipped == 3  # a string, an item without role, a number as content


def test_wrapped_message_list_names_its_session() -> None:
    transcript = read_transcript(TRANSCRIPTS / "messages_wrapped.json")
    assert transcript.session_id == "chat-2026-03-01"
    assert transcript.as_dicts()[0] == {
        "role": "user",
        "content": "We decided to use DuckDB instead of pandas.",
    }


def test_plain_text_with_english_and_chinese_speakers() -> None:
    transcript = read_transcript(TRANSCRIPTS / "chat.txt")
    assert transcript.format == "text"
    assert [(m.role, m.text) for m in transcript.messages] == [
        ("user", "I hate long functions."),
        ("assistant", "I'll keep them short."),
        ("user", "下周三我要准备产品评审的演示材料。\n还有第二行。"),
        ("assistant", "好的，我来列提纲。"),
    ]
    assert transcript.skipped == 1  # the line before the first speaker


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("claude_code_session.jsonl", "claude-code"),
        ("messages.json", "messages"),
        ("messages_wrapped.json", "messages"),
        ("chat.txt", "text"),
    ],
)
def test_named_format_reads_like_auto(name: str, fmt: str) -> None:
    auto = read_transcript(TRANSCRIPTS / name)
    named = read_transcript(TRANSCRIPTS / name, fmt)  # type: ignore[arg-type]
    assert auto.format == fmt and auto.messages == named.messages


def test_crlf_and_bom_are_read() -> None:
    text = "\ufeffUser: I prefer tea.\r\nAssistant: Noted.\r\n"
    assert [m.text for m in parse_transcript(text).messages] == ["I prefer tea.", "Noted."]


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        ("", "auto", "no conversation"),
        ("just some words\nwith no speakers\n", "auto", "no conversation"),
        ('{"type": "summary", "summary": "only a summary"}\n', "auto", "no conversation"),
        ("[1, 2, 3]", "messages", "no conversation"),
        ("{not json", "messages", "not valid JSON"),
        ('{"messages": 5}', "messages", "expected a JSON list"),
        ("User: hi", "yaml", "unknown format"),
    ],
)
def test_nothing_readable_is_a_clear_error(text: str, fmt: str, message: str) -> None:
    with pytest.raises(TranscriptError, match=message):
        parse_transcript(text, fmt)  # type: ignore[arg-type]


@pytest.mark.parametrize("setup", ["missing", "directory", "binary"])
def test_unreadable_files_are_clear_errors(tmp_path: Path, setup: str) -> None:
    path = tmp_path / "t.jsonl"
    if setup == "directory":
        path.mkdir()
    elif setup == "binary":
        path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TranscriptError):
        read_transcript(path)


def test_content_id_is_stable_and_depends_on_the_words() -> None:
    a = parse_transcript("User: I prefer tea.")
    b = parse_transcript("User: I prefer tea.\n")
    c = parse_transcript("User: I prefer coffee.")
    assert a.content_id() == b.content_id() != c.content_id()
