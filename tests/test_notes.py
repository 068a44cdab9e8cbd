"""Session notes: one dated Markdown file a day beside MEMORY.md, appended under the writers'
lock, hand-editable, searched by recall with the days a question names."""

from __future__ import annotations

import json
import os
import stat
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from fake_anthropic import fake_anthropic, message
from freezegun import freeze_time
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.core.session_note import SessionNote, add_note, parse_day, render_note
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.faces.cli import app
from everbot_memory.recall.days import past_span
from everbot_memory.storage.notes import NotesFolder

anthropic = pytest.importorskip("anthropic")

MONDAY = date(2026, 4, 13)


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("what did we do yesterday?", date(2026, 4, 12), date(2026, 4, 12)),
        ("what did we do last Tuesday?", date(2026, 4, 7), date(2026, 4, 7)),
        ("last Sunday", date(2026, 4, 12), date(2026, 4, 12)),
        ("上周日", date(2026, 4, 12), date(2026, 4, 12)),
        ("上周一", date(2026, 4, 6), date(2026, 4, 6)),
        ("what happened on Friday", date(2026, 4, 10), date(2026, 4, 10)),
        ("3 days ago", date(2026, 4, 10), date(2026, 4, 10)),
        ("what did we decide last week", date(2026, 4, 6), date(2026, 4, 12)),
        ("on March 3", date(2026, 3, 3), date(2026, 3, 3)),
        ("the 4th of April", date(2026, 4, 4), date(2026, 4, 4)),
        ("2026-03-30 deploy", date(2026, 3, 30), date(2026, 3, 30)),
        ("上周二我们做了什么", date(2026, 4, 7), date(2026, 4, 7)),
        ("昨天聊了什么", date(2026, 4, 12), date(2026, 4, 12)),
        ("前天", date(2026, 4, 11), date(2026, 4, 11)),
        ("三天前", date(2026, 4, 10), date(2026, 4, 10)),
        ("上周", date(2026, 4, 6), date(2026, 4, 12)),
        ("3月5日的会", date(2026, 3, 5), date(2026, 3, 5)),
        ("12月24日", date(2025, 12, 24), date(2025, 12, 24)),  # a later day: last year's
        ("大前天我们做了什么", date(2026, 4, 10), date(2026, 4, 10)),
        ("上上周二", date(2026, 3, 31), date(2026, 3, 31)),
        ("上上周", date(2026, 3, 30), date(2026, 4, 5)),
        ("这周一", date(2026, 4, 13), date(2026, 4, 13)),  # today, a Monday
        ("周日", date(2026, 4, 12), date(2026, 4, 12)),
        # A past day said beside a day to come.
        ("what did we decide yesterday about tomorrow's release", *[date(2026, 4, 12)] * 2),
        ("昨天我们说明天要做什么", date(2026, 4, 12), date(2026, 4, 12)),
        ("上周讨论的下周计划", date(2026, 4, 6), date(2026, 4, 12)),
        ("昨天之后天气怎么样", date(2026, 4, 12), date(2026, 4, 12)),
    ],
)
def test_the_days_a_question_names(question: str, first: date, last: date) -> None:
    found = past_span(question, MONDAY)
    assert found is not None and found[0] == (first, last)


@pytest.mark.parametrize(
    "question",
    [
        "what did we decide about the database",
        "may I ask",
        "",
        # Days still to come name no past day: every day's notes are searched.
        "what did we plan for next Tuesday",
        "下周二要做什么",
        "这周日的安排",
        "tomorrow's release",
        "what is due on Friday next week",
        "plans for Friday after tomorrow",
        "next Tuesday or Wednesday",
        "下周五和周三",
    ],
)
def test_a_question_without_a_day_names_none(question: str) -> None:
    assert past_span(question, MONDAY) is None


def test_a_note_renders_parses_and_appends_without_touching_what_was_there() -> None:
    at = datetime(2026, 4, 7, 18, 5, tzinfo=timezone.utc)
    note = SessionNote("s-1", at, "the deploy script", ("Use Postgres",), ("write tests",))
    text = add_note(None, note)
    assert text.startswith("# Sessions of 2026-04-07\n\n## 18:05 UTC · session s-1\n")
    edited = text + "\nMy own remark, kept.\n"
    again = add_note(edited, SessionNote("s-2", at, "more"))
    assert again.startswith(edited.rstrip("\n"))
    first, second = parse_day(
        again.replace(
            "Worked on: the deploy script", "Worked on: the deploy script\nTopics: deploy.sh, CI"
        )
    )
    assert (first.session, first.time, first.worked_on) == ("s-1", "18:05", "the deploy script")
    assert first.topics == ["deploy.sh", "CI"]
    assert first.decisions == ["Use Postgres"] and first.open_threads == ["write tests"]
    assert "My own remark, kept." in first.text
    assert second.session == "s-2" and second.open_threads == []
    assert render_note(note) in text


def test_parse_day_is_tolerant() -> None:
    text = "\ufeffloose text\r\n## anything\r\n```\n## not a heading\n```\nOpen threads: one\n"
    sections = parse_day(text)
    assert [s.heading for s in sections] == ["", "anything"]
    assert sections[1].open_threads == ["one"] and "## not a heading" in sections[1].text


def _close(memory: Path, session: str, said: list[str], day: str) -> None:
    with freeze_time(f"{day} 18:00:00"):
        Memory(memory, RuleExtractor()).process_session_end_sync(
            [{"role": "user", "content": text} for text in said], session
        )


def test_closing_a_session_writes_its_note(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    said = [
        "Can you help me fix the flaky payment tests in CI?",
        "We decided to use Postgres for the analytics service.",
        "I need to send the migration plan to Jonas tomorrow.",
    ]
    _close(memory, "s1", said, "2026-04-07")
    path = tmp_path / "memory" / "2026-04-07.md"
    text = path.read_text(encoding="utf-8")
    assert "session s1" in text
    assert "Worked on: Can you help me fix the flaky payment tests in CI?" in text
    assert "Topics: CI, Postgres" in text
    assert "Postgres" in text.split("Decided:", 1)[1]
    assert "Jonas" in text.split("Open threads:", 1)[1]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    # Nothing new: no second note.
    _close(memory, "s1", said, "2026-04-07")
    assert path.read_text(encoding="utf-8").count("session s1") == 1


def test_a_secret_never_reaches_a_note(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    secret = "sk-ant-api03-" + "A1b2C3d4" * 10
    _close(memory, "s1", [f"Please rotate the key {secret} for the staging box."], "2026-04-07")
    text = (tmp_path / "memory" / "2026-04-07.md").read_text(encoding="utf-8")
    assert secret not in text and "[redacted:" in text


def test_an_existing_days_file_keeps_its_mode(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    folder = tmp_path / "memory"
    folder.mkdir()
    day = folder / "2026-04-07.md"
    day.write_text("# Sessions of 2026-04-07\n\nMy notes.\n", encoding="utf-8")
    os.chmod(day, 0o640)
    _close(memory, "s1", ["Can you help me plan the Berlin trip?"], "2026-04-07")
    assert stat.S_IMODE(day.stat().st_mode) == 0o640
    assert day.read_text(encoding="utf-8").startswith("# Sessions of 2026-04-07\n\nMy notes.\n")


def test_recall_finds_notes_by_day_and_by_words(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    _close(memory, "tue", ["Can you help me fix the flaky payment tests?"], "2026-04-07")
    _close(memory, "wed", ["Let's write the onboarding guide for new hires."], "2026-04-08")
    with freeze_time("2026-04-13 09:00:00"):
        tuesday = Memory(memory).recall_notes("what did we do last Tuesday?")
        words = Memory(memory).recall_notes("onboarding guide")
        nothing = Memory(memory).recall_notes("what did we do yesterday?")
        nonsense = Memory(memory).recall_notes("quantum banana")
        cli = CliRunner().invoke(app, ["recall", "上周二我们做了什么", "--file", str(memory)])
        only = CliRunner().invoke(
            app, ["recall", "last Wednesday", "--sessions", "--json", "--file", str(memory)]
        )
    assert [(n.day, n.session) for n in tuesday] == [(date(2026, 4, 7), "tue")]
    assert [n.session for n in words] == ["wed"] and words[0].relevance > 0.5
    assert nothing == [] and nonsense == []
    assert "2026-04-07 18:00 session tue" in cli.output and "payment tests" in cli.output
    [hit] = json.loads(only.output)
    assert hit["day"] == "2026-04-08" and hit["session"] == "wed" and hit["line"] == 3


def test_the_session_start_names_the_last_sessions_open_threads(tmp_path: Path) -> None:
    from everbot_memory.facade import hooks
    from everbot_memory.facade.locations import Place

    memory = tmp_path / "MEMORY.md"
    _close(memory, "s1", ["I need to call the landlord about the rent tomorrow."], "2026-04-07")
    when = datetime(2026, 4, 7, 20, tzinfo=timezone.utc).timestamp()
    block = hooks.session_start([Place("file", memory)], "next", when)
    threads = block.split("<open_threads>", 1)[1]
    assert "Left open in the last session (2026-04-07)" in threads and "landlord" in threads
    assert len(json.dumps(block, ensure_ascii=False)) <= hooks.MAX_CONTEXT_CHARS


def test_the_llm_backend_writes_the_note_in_its_one_call(tmp_path: Path) -> None:
    from everbot_memory.extract.claude import AnthropicExtractor

    memory = tmp_path / "MEMORY.md"
    answer = {
        "memories": [],
        "session_note": {
            "worked_on": "the invoice export",
            "decisions": ["CSV, not Excel"],
            "open_threads": ["ask finance about VAT"],
        },
    }
    with fake_anthropic() as fake:
        fake.replies = [message(json.dumps(answer))]
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        extractor = AnthropicExtractor(client=client, model="claude-test")
        with freeze_time("2026-04-07 18:00:00"):
            Memory(memory, extractor).process_session_end_sync(
                [{"role": "user", "content": "Let's do the invoice export as CSV."}], "s1"
            )
    assert fake.calls == 1
    [section] = parse_day((tmp_path / "memory" / "2026-04-07.md").read_text(encoding="utf-8"))
    assert section.worked_on == "the invoice export"
    assert section.decisions == ["CSV, not Excel"]
    assert section.open_threads == ["ask finance about VAT"]


def test_a_note_that_cannot_be_written_is_a_warning_and_the_memories_are_saved(
    tmp_path: Path,
) -> None:
    memory = tmp_path / "MEMORY.md"
    (tmp_path / "memory").write_text("a file where the folder would be", encoding="utf-8")
    manager = Memory(memory, RuleExtractor())
    with freeze_time("2026-04-07 18:00:00"):
        stats = manager.process_session_end_sync(
            [{"role": "user", "content": "I prefer pytest over unittest."}], "s1"
        )
    assert stats["new"] == 1 and len(Memory(memory).entries()) == 1
    assert any("session note was not written" in w for w in manager.warnings)


def test_notes_folder_lists_only_days(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    for name in ("2026-04-07.md", "2026-02-30.md", "notes.md", "2026-04-08.txt"):
        (folder / name).write_text("x", encoding="utf-8")
    assert [d for d, _ in NotesFolder(tmp_path / "MEMORY.md").days()] == [date(2026, 4, 7)]


def test_a_new_recall_process_finds_the_notes_of_the_day_asked(tmp_path: Path) -> None:
    """The plain ``recall QUERY`` of a new process skips the command-line app: it must find
    the session notes as the app does."""
    import subprocess
    import sys
    from datetime import timedelta

    memory = tmp_path / "MEMORY.md"
    Memory(memory).remember("The user prefers pytest over unittest.")
    today = date.today()
    last_tuesday = today - timedelta(days=(today.weekday() - 1) % 7 or 7)
    at = datetime.combine(last_tuesday, datetime.min.time(), timezone.utc).replace(hour=18)
    NotesFolder(memory).append(SessionNote("tue", at, "the flaky payment tests"))
    done = subprocess.run(
        [sys.executable, "-m", "everbot_memory", "recall", "what did we do last Tuesday?"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "from session notes:\n"
        f"{last_tuesday.isoformat()} 18:00 session tue  1.00  Worked on: the flaky payment tests\n"
    )


def test_a_compacted_then_ended_session_keeps_its_open_threads(tmp_path: Path) -> None:
    from everbot_memory.facade import hooks
    from everbot_memory.facade.locations import Place

    memory = tmp_path / "MEMORY.md"
    first = ["Let's move CI to GitHub Actions.", "I need to ask Dana for the credentials tomorrow."]
    _close(memory, "cc7", first, "2026-04-07")  # PreCompact
    _close(memory, "cc7", [*first, "The matrix should cover Python 3.12 and 3.13."], "2026-04-07")
    sections = parse_day((tmp_path / "memory" / "2026-04-07.md").read_text(encoding="utf-8"))
    assert [s.session for s in sections] == ["cc7", "cc7"] and not sections[1].open_threads
    block = hooks.session_start([Place("file", memory)], "next", 1_775_600_000.0)
    assert "Dana" in block.split("<open_threads>", 1)[1]
    with freeze_time("2026-04-07 20:00:00"):
        shown = Memory(memory).prompt_block()
    assert "<open_threads>" in shown and "Dana" in shown.split("<open_threads>", 1)[1]


def test_a_secret_typed_into_a_note_is_never_shown(tmp_path: Path) -> None:
    from everbot_memory.facade import hooks
    from everbot_memory.facade.locations import Place

    memory = tmp_path / "MEMORY.md"
    _close(memory, "s1", ["I need to rotate the staging keys tomorrow."], "2026-04-07")
    day = tmp_path / "memory" / "2026-04-07.md"
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    day.write_text(
        day.read_text(encoding="utf-8") + f"- rotate the key {token} soon\n", encoding="utf-8"
    )
    block = hooks.session_start([Place("file", memory)], "next", 1_775_600_000.0)
    with freeze_time("2026-04-08 09:00:00"):
        hits = Memory(memory).recall_notes("rotate the key")
    assert token not in block and "[redacted:" in block
    assert hits and all(token not in h.text and token not in "".join(h.open_threads) for h in hits)


@pytest.mark.parametrize(
    ("question", "session"),
    [
        ("2026年4月7日做了什么", "tue"),  # a full Chinese date
        ("上周二我们决定了什么", "tue"),  # asked in Chinese of a session held in English
        ("what did we decide about the budget last Wednesday", "wed"),  # no such words
    ],
)
def test_a_day_asked_for_finds_its_sessions_whatever_their_words(
    tmp_path: Path, question: str, session: str
) -> None:
    memory = tmp_path / "MEMORY.md"
    _close(memory, "tue", ["Can you help me fix the flaky payment tests?"], "2026-04-07")
    _close(memory, "wed", ["Let's write the onboarding guide for new hires."], "2026-04-08")
    with freeze_time("2026-04-13 09:00:00"):
        hits = Memory(memory).recall_notes(question)
    assert [h.session for h in hits] == [session]


def test_worked_on_is_the_request_not_the_introduction() -> None:
    from everbot_memory.extract.notes import rules_note

    at = datetime(2026, 4, 7, 18, tzinfo=timezone.utc)
    said = [
        "Hi, I'm Marco Rossi, a backend developer at Acme Robotics.",
        "The login test is flaky since Monday, can you fix it?",
    ]
    note = rules_note([{"role": "user", "content": t} for t in said], [], "s1", at)
    assert note.worked_on == "The login test is flaky since Monday, can you fix it?"
    chinese = rules_note(
        [{"role": "user", "content": "我叫王小明，是一名前端工程师。帮我看看登录页面的报错。"}],
        [],
        "s2",
        at,
    )
    assert chinese.worked_on == "帮我看看登录页面的报错。"


def test_a_redacted_secret_is_no_topic() -> None:
    from everbot_memory.extract.notes import topics

    said = "My password is hunter2hunter2 and the Stripe key is sk_live_" + "a" * 24 + "."
    found = topics([{"role": "user", "content": said}])
    assert not any("redact" in t.casefold() or "password" in t.casefold() for t in found)


def test_a_days_file_that_is_not_utf8_keeps_its_bytes(tmp_path: Path) -> None:
    """A note a person saved in Latin-1: the next session's section is added after its bytes,
    which stay as they were (read as UTF-8 with replacements and written back, they were
    lost)."""
    memory = tmp_path / "MEMORY.md"
    folder = tmp_path / "memory"
    folder.mkdir()
    day = folder / "2026-04-07.md"
    mine = "# Sessions of 2026-04-07\n\nMy note: café with Renée, budget £500.\n".encode("latin-1")
    day.write_bytes(mine)
    _close(memory, "s1", ["Can you help me plan the Berlin trip?"], "2026-04-07")
    data = day.read_bytes()
    assert data.startswith(mine.rstrip(b"\n"))
    assert "session s1" in data[len(mine) :].decode("utf-8")


def test_a_fence_left_open_in_a_note_does_not_swallow_the_next_session(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    folder = tmp_path / "memory"
    folder.mkdir()
    day = folder / "2026-04-07.md"
    day.write_text("# Sessions of 2026-04-07\n\n```\nsome pasted log\n", encoding="utf-8")
    said = ["I need to send the migration plan to Jonas tomorrow."]
    _close(memory, "s1", said, "2026-04-07")
    text = day.read_text(encoding="utf-8")
    assert text.startswith("# Sessions of 2026-04-07\n\n```\nsome pasted log\n```\n")
    [_, section] = parse_day(text)
    assert section.session == "s1" and any("Jonas" in t for t in section.open_threads)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_named_like_a_days_file_is_passed_over(tmp_path: Path) -> None:
    """Read, it would block whoever reads it: a session start's hook among them."""
    memory = tmp_path / "MEMORY.md"
    _close(memory, "s1", ["I need to send the migration plan to Jonas tomorrow."], "2026-04-07")
    os.mkfifo(tmp_path / "memory" / "2026-04-08.md")
    assert [d for d, _ in NotesFolder(memory).days()] == [date(2026, 4, 7)]
    assert NotesFolder(memory).read(date(2026, 4, 8)) is None
    manager = Memory(memory, RuleExtractor())
    with freeze_time("2026-04-08 18:00:00"):
        manager.process_session_end_sync(
            [{"role": "user", "content": "We decided to use Postgres for analytics."}], "s2"
        )
    assert any("not a regular file" in w for w in manager.warnings)
    assert any("Postgres" in e.content for e in Memory(memory).entries())
    assert stat.S_ISFIFO(os.stat(tmp_path / "memory" / "2026-04-08.md").st_mode)
