"""Transcript readers on fixture transcripts in every format, broken lines included."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import FIXTURES

from everbot_memory.errors import TranscriptError
from everbot_memory.extract.conversation import conversation_text
from everbot_memory.extract.transcripts import FORMATS, parse_transcript, read_transcript

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
        ("chat_with_notes.txt", "text"),
        ("group_chat.txt", "named"),
        ("whatsapp_android.txt", "named"),
        ("whatsapp_ios.txt", "named"),
        ("telegram_export.json", "named"),
        ("slack_channel.json", "named"),
        ("turns.json", "named"),
        ("locomo_sample.json", "named"),
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
    # Ids recorded before speakers were read stay the same.
    assert read_transcript(TRANSCRIPTS / "chat.txt").content_id() == "sha-ac1c30a1baeb1ca7"


# -- conversations between named people ----------------------------------------------------


def _said(transcript) -> list[tuple[str, str | None, str]]:  # type: ignore[no-untyped-def]
    return [(m.role, m.speaker, m.text) for m in transcript.messages]


def test_named_lines_are_read_as_the_person_given() -> None:
    transcript = read_transcript(TRANSCRIPTS / "group_chat.txt", user="  mARIA ")
    assert transcript.format == "named" and "named" in FORMATS
    assert transcript.speakers == ["Jonas", "Maria", "Priya"]
    assert (transcript.user, transcript.user_reason, transcript.user_guessed) == (
        "Maria",
        "given",
        False,
    )
    assert _said(transcript)[1:4] == [
        ("user", "Maria", "My name is Maria, for the new people here. I live in Lyon."),
        ("other", "Jonas", "I live in Berlin, so I will take the train."),
        ("other", "Priya", "Count me in!"),
    ]
    # A line without a name continues the turn before it.
    assert _said(transcript)[5] == (
        "user",
        "Maria",
        "Yes. I prefer small hotels.\nThe old one closed, sadly.",
    )
    assert transcript.skipped == 1  # the line before the first speaker


def test_without_a_name_the_speaker_with_the_most_turns_is_the_user() -> None:
    transcript = read_transcript(TRANSCRIPTS / "group_chat.txt")
    assert (transcript.user, transcript.user_reason, transcript.user_guessed) == (
        "Jonas",
        "most turns",
        True,
    )
    assert {m.speaker for m in transcript.messages if m.role == "user"} == {"Jonas"}


@pytest.mark.parametrize(
    "text, user, reason",
    [
        ("Jonas: Hi.\nMe: I live in Lyon.\nJonas: Nice.\nJonas: Bye.", "Me", "named like the user"),
        ("Jonas: Hi.\n我：我住在里昂。\nJonas: Nice.\nJonas: Bye.", "我", "named like the user"),
        ("Ana: Hi.\nBo: Hey.\nAna: Bye.\nBo: Bye.", "Ana", "most turns, first to speak"),
        ("Ana: Hi.", "Ana", "the only speaker"),
    ],
)
def test_the_default_speaker(text: str, user: str, reason: str) -> None:
    transcript = parse_transcript(text, "named")
    assert (transcript.user, transcript.user_reason) == (user, reason)
    assert transcript.user_guessed == (reason != "the only speaker")


def test_an_unknown_name_lists_the_speakers_in_one_line() -> None:
    with pytest.raises(TranscriptError) as caught:
        read_transcript(TRANSCRIPTS / "group_chat.txt", user="Mara")
    assert str(caught.value) == (
        "no speaker 'Mara' in the transcript; speakers: Jonas, Maria, Priya; use --user NAME"
    )


def test_a_stray_name_line_keeps_a_user_assistant_transcript_as_it_is() -> None:
    transcript = read_transcript(TRANSCRIPTS / "chat_with_notes.txt")
    assert transcript.format == "text" and transcript.user is None
    assert _said(transcript) == [
        ("user", None, "I prefer green tea.\nNote: not the bagged kind."),
        ("assistant", None, "Noted, loose-leaf green tea.\nNote: I will remember that."),
        ("user", None, "Thanks."),
    ]
    assert parse_transcript("User: Hi.\nNote: buy milk\n").format == "text"


def test_a_short_named_text_needs_its_format_or_a_user() -> None:
    text = "Maria: I live in Lyon.\nJonas: I live in Berlin.\n"
    with pytest.raises(TranscriptError, match=r"no conversation found.*named"):
        parse_transcript(text)
    assert parse_transcript(text, "named").user == "Maria"
    assert parse_transcript(text, user="jonas").user == "Jonas"


@pytest.mark.parametrize(
    "name, fmt", [("chat.txt", "auto"), ("claude_code_session.jsonl", "auto"), ("chat.txt", "text")]
)
def test_user_is_refused_where_the_user_is_already_marked(name: str, fmt: str) -> None:
    with pytest.raises(TranscriptError, match="already marked"):
        read_transcript(TRANSCRIPTS / name, fmt, user="Maria")  # type: ignore[arg-type]


def test_whatsapp_android_export() -> None:
    transcript = read_transcript(TRANSCRIPTS / "whatsapp_android.txt")
    assert _said(transcript) == [
        ("user", "Maria", "I live in Lyon.\nSee you at the station: platform 4."),
        ("other", "Jonas", "I live in Berlin."),  # the photo before it is left out
        ("user", "Maria", "Great!"),
    ]
    stamps = [m.timestamp for m in transcript.messages]
    assert stamps[0] == datetime(2024, 3, 12, 21, 15, tzinfo=timezone.utc)  # day/month
    assert stamps[1] == datetime(2024, 3, 13, 8, 2, tzinfo=timezone.utc)
    assert transcript.skipped == 0  # WhatsApp's own lines are nobody's words, not errors


def test_whatsapp_ios_export_with_month_first_and_pm() -> None:
    transcript = read_transcript(TRANSCRIPTS / "whatsapp_ios.txt", user="Jonas")
    assert _said(transcript) == [
        ("other", "Maria", "I live in Lyon."),
        ("user", "Jonas", "I live in Berlin."),
        ("other", "Maria", "Good morning."),
    ]
    assert [m.timestamp for m in transcript.messages] == [
        datetime(2024, 3, 12, 21, 15, 3, tzinfo=timezone.utc),
        datetime(2024, 3, 12, 21, 16, 40, tzinfo=timezone.utc),
        datetime(2024, 3, 13, 7, 5, tzinfo=timezone.utc),  # 3/13: the month comes first
    ]


def test_telegram_export_reads_parts_and_picks_the_other_side_of_a_personal_chat() -> None:
    transcript = read_transcript(TRANSCRIPTS / "telegram_export.json")
    assert transcript.session_id == "chat-4242"
    assert (transcript.user, transcript.user_reason) == ("Maria", "the chat is with Jonas")
    assert _said(transcript) == [
        ("other", "Jonas", "How is the new flat?"),
        ("other", "Jonas", "Did you see this?"),
        ("user", "Maria", "I live in Lyon now."),
    ]  # the service line and the photo without a caption are left out
    assert transcript.messages[2].timestamp == datetime(
        2024, 3, 12, 21, 17, 45, tzinfo=timezone.utc
    )


def test_slack_export_and_a_generic_list_of_turns() -> None:
    slack = read_transcript(TRANSCRIPTS / "slack_channel.json")
    assert _said(slack) == [
        ("user", "Maria Costa", "I prefer short meetings."),
        ("other", "jonas", "Same here."),
    ]  # the join notice is left out; the profile's name is used
    assert slack.messages[0].timestamp == datetime(2024, 3, 12, 21, 15, 3, 200, tzinfo=timezone.utc)
    turns = read_transcript(TRANSCRIPTS / "turns.json", user="Jonas")
    assert turns.session_id == "reunion-chat" and turns.skipped == 1
    assert [m.role for m in turns.messages] == ["other", "user", "other"]


def test_one_named_turn_a_line() -> None:
    text = '{"speaker": "Maria", "text": "I live in Lyon."}\n{"speaker": "Jonas", "text": "Ok."}\n'
    transcript = parse_transcript(text, user="Jonas")
    assert _said(transcript) == [("other", "Maria", "I live in Lyon."), ("user", "Jonas", "Ok.")]


def test_locomo_sample_reads_sessions_in_order_with_their_dates() -> None:
    transcript = read_transcript(TRANSCRIPTS / "locomo_sample.json", user="Melanie")
    assert transcript.format == "named" and transcript.session_id == "conv-demo"
    assert transcript.speakers == ["Caroline", "Melanie"]
    assert _said(transcript) == [
        ("other", "Caroline", "Hey Mel! I live in Lyon now."),
        ("user", "Melanie", "Lovely! How is it?"),
        ("other", "Caroline", "Great, thanks."),
        ("user", "Melanie", "I live in Berlin these days."),
        ("other", "Caroline", "I prefer quiet cafes.\n[shares a photo: a photo of a small cafe]"),
    ]
    assert transcript.skipped == 1  # the turn without text
    assert transcript.messages[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert transcript.messages[3].timestamp == datetime(2023, 5, 20, 19, 30, tzinfo=timezone.utc)


def test_several_locomo_samples_are_picked_by_the_user_named() -> None:
    sample = json.loads((TRANSCRIPTS / "locomo_sample.json").read_text(encoding="utf-8"))
    other = json.loads(json.dumps(sample).replace("Caroline", "Jon").replace("conv-demo", "c2"))
    text = json.dumps([sample, other])
    with pytest.raises(TranscriptError, match=r"holds 2 LoCoMo conversations \(conv-demo \("):
        parse_transcript(text)
    with pytest.raises(TranscriptError, match="'Melanie' speaks in 2 of them"):
        parse_transcript(text, user="Melanie")
    with pytest.raises(TranscriptError, match=r"no speaker 'Bob'.*Caroline, Jon, Melanie"):
        parse_transcript(text, user="Bob")
    picked = parse_transcript(text, user="jon")
    assert picked.session_id == "c2" and picked.user == "Jon"


def test_named_messages_carry_their_speaker_to_extractors() -> None:
    transcript = read_transcript(TRANSCRIPTS / "turns.json")
    assert transcript.as_dicts()[:2] == [
        {
            "role": "user",
            "content": "I live in Lyon.",
            "timestamp": "2024-03-12T21:15:00+00:00",
            "speaker": "Maria",
        },
        {"role": "other", "content": "I live in Berlin.", "speaker": "Jonas"},
    ]
    assert conversation_text(transcript.as_dicts()) == (
        "Maria (the user): I live in Lyon.\n\nJonas: I live in Berlin.\n\n"
        "Maria (the user): See you in June."
    )


def test_the_person_read_as_changes_the_content_id() -> None:
    path = TRANSCRIPTS / "group_chat.txt"
    ids = {read_transcript(path, user=name).content_id() for name in ("Maria", "Jonas", "Priya")}
    assert len(ids) == 3


def test_irc_log_reads_nicks_and_actions_and_skips_the_clients_lines() -> None:
    transcript = read_transcript(TRANSCRIPTS / "irc.log", user="maria")
    assert _said(transcript) == [
        ("user", "maria", "I live in Lyon."),
        ("other", "jonas", "I live in Berlin."),  # "@", an operator's mark, is no part of it
        ("user", "maria", "<div> is what the page starts with, by the way"),
        ("other", "jonas", "jonas waves"),
    ]
    assert transcript.skipped == 2  # the log's header and a join


def test_discord_text_export_reads_each_message_under_its_header() -> None:
    transcript = read_transcript(TRANSCRIPTS / "discord_export.txt", user="maria")
    assert _said(transcript) == [
        ("user", "maria", "I live in Lyon.\nSee you at the station."),  # the tag "#0420" goes
        ("other", "jonas", "I live in Berlin."),  # not the export's list of attachments
    ]


def test_meeting_captions_join_a_speakers_cues_and_drop_markup() -> None:
    transcript = read_transcript(TRANSCRIPTS / "meeting.vtt", user="Jonas Weber")
    assert _said(transcript) == [
        ("other", "Maria Lopez", "I live in Lyon, near the old town."),
        ("user", "Jonas Weber", "I live in Berlin."),
    ]
    assert transcript.skipped == 1  # "[laughter]" is nobody's words


def test_csv_chat_export_finds_its_columns_by_the_header() -> None:
    transcript = read_transcript(TRANSCRIPTS / "discord_export.csv", user="maria")
    assert _said(transcript) == [
        ("user", "maria", "I live in Lyon, near the old town."),
        ("other", "jonas", "I live in Berlin."),
    ]
    assert transcript.messages[1].timestamp == datetime(2024, 3, 12, 21, 16, tzinfo=timezone.utc)


def test_a_chat_with_an_assistant_that_quotes_html_is_not_read_as_irc() -> None:
    text = (
        "User: what do <div> and <span> do?\nAssistant: they group content.\n"
        "<div> is a block.\n<span> is inline.\n"
    )
    transcript = parse_transcript(text)
    assert [m.role for m in transcript.messages] == ["user", "assistant"]


@pytest.mark.parametrize(
    "text",
    [
        '{"messages": [',
        '[{"role": "user", "content": "I live in Oslo."}',
        '{"messages": [{"role": "user", "content": "hi"},\n {"role": "x" "content": "yo"}]}',
    ],
)
def test_a_broken_json_transcript_says_where_the_json_breaks(text: str) -> None:
    with pytest.raises(TranscriptError, match=r"not valid JSON \(line \d+, column \d+"):
        parse_transcript(text)


def test_json_lines_with_one_broken_line_are_still_read_line_by_line() -> None:
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "I live in Oslo."}}),
        '{"type": "assistant", "message": {',
    ]
    transcript = parse_transcript("\n".join(lines))
    assert [m.text for m in transcript.messages if m.role == "user"] == ["I live in Oslo."]
