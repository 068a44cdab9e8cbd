"""The LLM backends beyond the anthropic one, the settings that choose them, and the flow they
share: the openai SDK against a local fake server, a fake ``claude`` program on PATH (and the
real one, when installed, against a fake Messages API), the config files, and the job queue
after an unusable answer."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from fake_anthropic import Reply, fake_anthropic, message, tool_use
from fake_openai import FakeOpenAI, answer, completion, error, fake_openai
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.errors import ConfigError, ExtractionError
from everbot_memory.extract.child import CHILD_ENV
from everbot_memory.extract.claude import AnthropicExtractor
from everbot_memory.extract.claude_cli import ClaudeCliExtractor
from everbot_memory.extract.contract import answer_schema
from everbot_memory.extract.openai_chat import OpenAIExtractor
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.facade import jobs as jobs_module
from everbot_memory.facade.choice import choose_extractor, explain_choice
from everbot_memory.facade.config import Settings, load_settings
from everbot_memory.faces.cli import app
from everbot_memory.storage.ledger import SessionLedger

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

SHORT = [
    {"role": "user", "content": "I prefer pytest over unittest."},
    {"role": "assistant", "content": "Noted."},
]
PYTEST = {"content": "The user prefers pytest.", "category": "preference", "importance": "high"}
TRANSCRIPT = FIXTURES / "conversations" / "demo.txt"


@pytest.fixture(autouse=True)
def clean_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config file, no setting or key from the environment running the tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in list(os.environ):
        if name.startswith(("EVERBOT_MEMORY_", "ANTHROPIC_", "OPENAI_")):
            monkeypatch.delenv(name)


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    manager = Memory(path)
    manager.remember("The user drinks green tea.", "preference", "high")
    return path


def tea_id(path: Path) -> str:
    return next(e.id for e in Memory(path).entries() if "green tea" in e.content)


# -- openai, through the real SDK against a local server --------------------------------------


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with fake_openai() as fake:
        yield fake


def chat(server: FakeOpenAI, **options: Any) -> OpenAIExtractor:
    settings = {"max_retries": 2, "timeout": 10.0, **options}
    client = openai.OpenAI(api_key="test-key", base_url=server.url, **settings)
    return OpenAIExtractor(client, model="test-model")


def test_openai_good_answer_is_merged(server: FakeOpenAI, memory: Path) -> None:
    tea = tea_id(memory)
    server.replies = [answer([PYTEST], confirmed_ids=(tea,))]
    stats = Memory(memory, chat(server)).process_session_end_sync(SHORT, "s1")
    assert (stats["new"], stats["updated"]) == (1, 1)
    request = server.requests[0]
    assert request["model"] == "test-model"
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"] == answer_schema()
    system, user = request["messages"]
    assert system["role"] == "system" and "long-term memory" in system["content"]
    assert f"[{tea}] The user drinks green tea." in user["content"]
    assert "I prefer pytest over unittest." in user["content"]


def test_openai_falls_back_to_json_mode_when_the_schema_is_rejected(
    server: FakeOpenAI, memory: Path
) -> None:
    server.replies = [error(400, "response_format json_schema is not supported"), answer([PYTEST])]
    extractor = chat(server)
    stats = Memory(memory, extractor).process_session_end_sync(SHORT, "s1")
    assert stats["new"] == 1 and server.calls == 2
    second = server.requests[1]
    assert second["response_format"] == {"type": "json_object"}
    assert '"memories"' in second["messages"][0]["content"]  # the schema, in the prompt
    assert any("JSON mode" in w for w in Memory(memory).warnings + extractor.warnings)


BAD_ANSWERS = [
    ("not-json", [completion("Sure! The user likes pytest.")] * 2, "is not JSON", 2),
    (
        "wrong-schema",
        [completion('{"memories": [{"content": "x", "category": "hobby"}]}')] * 2,
        "does not match the memory schema",
        2,
    ),
    (
        "unknown-ids",
        [completion('{"memories": [], "confirmed_ids": ["zzzzzz"]}')] * 2,
        "unknown memory ids: 'zzzzzz'",
        2,
    ),
    ("refusal", [completion(None, refusal="I can't help with that.")], "model refused", 1),
    ("cut-short", [completion('{"memories": [', finish_reason="length")], "cut short", 1),
    ("429", [error(429, "slow down")] * 3, r"rate limited by the server \(429\)", 3),
    ("500", [error(500, "boom")] * 3, r"the server failed \(500\) after 2 retries", 3),
    ("401", [error(401, "bad key")], "API key was rejected", 1),
    ("404-model", [error(404, "no such model")], "model 'test-model' was not found", 1),
]


@pytest.mark.parametrize(
    "replies, expected, calls",
    [case[1:] for case in BAD_ANSWERS],
    ids=[case[0] for case in BAD_ANSWERS],
)
def test_openai_bad_answers_leave_the_file_alone(
    server: FakeOpenAI, memory: Path, replies: list[Any], expected: str, calls: int
) -> None:
    before = memory.read_bytes()
    server.replies = list(replies)
    with pytest.raises(ExtractionError, match=expected) as caught:
        Memory(memory, chat(server)).process_session_end_sync(SHORT, "s1")
    assert "\n" not in str(caught.value)
    assert server.calls == calls
    assert memory.read_bytes() == before
    assert not SessionLedger(memory).seen("s1")


def test_openai_answer_whose_body_is_not_json_is_one_line(server: FakeOpenAI, memory: Path) -> None:
    # A 200 whose body is cut off or is not JSON (a proxy): the SDK's JSON error, said plainly.
    before = memory.read_bytes()
    server.replies = [Reply(200, raw=b'{"id": "x", not json')]
    with pytest.raises(ExtractionError, match="the server's answer is not JSON") as caught:
        Memory(memory, chat(server)).process_session_end_sync(SHORT, "s1")
    assert "\n" not in str(caught.value)
    assert memory.read_bytes() == before


def test_openai_check_tells_a_web_page_and_a_failure_from_an_answer(server: FakeOpenAI) -> None:
    server.replies = [Reply(200, raw=b"<html>a gateway</html>", kind="text/html")]
    with pytest.raises(ExtractionError, match="answered, but not as the OpenAI-compatible API"):
        chat(server).check()
    server.replies = [error(500, "boom")]
    with pytest.raises(ExtractionError, match=r"failed \(500\): ") as caught:
        chat(server).check()
    assert "retries" not in str(caught.value) and server.calls == 2  # the check makes none
    server.replies = [answer([])]
    assert "answered" in chat(server).check()


def test_openai_timeout_is_one_line(server: FakeOpenAI, memory: Path) -> None:
    before = memory.read_bytes()
    server.replies = [Reply(200, answer([]).body, delay=5) for _ in range(2)]
    with pytest.raises(ExtractionError, match=r"did not answer in time \(0.3 s\) after 1 retries"):
        Memory(memory, chat(server, timeout=0.3, max_retries=1)).process_session_end_sync(
            SHORT, "s1"
        )
    assert memory.read_bytes() == before


def test_openai_async_path_uses_the_async_client(server: FakeOpenAI, memory: Path) -> None:
    server.replies = [completion("not json"), answer([PYTEST])]
    extractor = OpenAIExtractor(
        async_client=openai.AsyncOpenAI(api_key="k", base_url=server.url, max_retries=0),
        model="test-model",
    )
    stats = asyncio.run(Memory(memory, extractor).aprocess_session_end(SHORT, "s1"))
    assert stats["new"] == 1 and extractor.calls == 2  # the repair, on the async path too
    assert extractor._client is None  # the blocking client was never made


def test_anthropic_async_path_uses_the_async_client(memory: Path) -> None:
    with fake_anthropic() as fake:
        fake.replies = [message(json.dumps({"memories": [PYTEST]}))]
        client = anthropic.AsyncAnthropic(api_key="k", base_url=fake.url, max_retries=0)
        extractor = AnthropicExtractor(async_client=client, model="claude-test")
        stats = asyncio.run(Memory(memory, extractor).aprocess_session_end(SHORT, "s1"))
    assert stats["new"] == 1 and fake.calls == 1 and extractor._client is None


def test_anthropic_body_not_json_and_a_web_page_are_one_line(memory: Path) -> None:
    before = memory.read_bytes()
    with fake_anthropic() as fake:
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        extractor = AnthropicExtractor(client, model="claude-test")
        fake.replies = [Reply(200, raw=b'{"id": "x", not json')]
        with pytest.raises(ExtractionError, match="the server's answer is not JSON") as caught:
            Memory(memory, extractor).process_session_end_sync(SHORT, "s1")
        assert "\n" not in str(caught.value)
        fake.replies = [Reply(200, raw=b"<html>a gateway</html>", kind="text/html")]
        with pytest.raises(ExtractionError, match="answered, but not as the Messages API does"):
            extractor.check()
    assert memory.read_bytes() == before


def test_anthropic_base_url_needs_no_key(memory: Path) -> None:
    """A compatible server (Ollama, llama.cpp) takes any key: a base URL alone is enough."""
    with fake_anthropic() as fake:
        fake.replies = [message(json.dumps({"memories": [PYTEST]}))]
        memory_ = Memory(memory, "anthropic", base_url=fake.url)
        assert memory_.process_session_end_sync(SHORT, "s1")["new"] == 1
    sent = fake.headers[0]
    assert "local" in sent.get("x-api-key", "") + sent.get("authorization", "")


# -- the command, against the fakes -----------------------------------------------------------


def test_close_session_with_openai_and_a_base_url(server: FakeOpenAI, tmp_path: Path) -> None:
    server.replies = [answer([PYTEST])]
    path = tmp_path / "MEMORY.md"
    args = ["close-session", str(TRANSCRIPT), "-f", str(path), "--extractor", "openai"]
    result = CliRunner().invoke(app, [*args, "--base-url", server.url, "--model", "qwen3"])
    assert result.exit_code == 0, result.output
    assert "(openai extractor)" in result.output
    assert server.requests[0]["model"] == "qwen3"
    assert "The user prefers pytest." in path.read_text(encoding="utf-8")


def test_close_session_with_a_bad_answer_says_why_in_one_line(
    server: FakeOpenAI, memory: Path
) -> None:
    before = memory.read_bytes()
    server.replies = [completion("no JSON here")] * 2
    args = ["close-session", str(TRANSCRIPT), "-f", str(memory), "--extractor", "openai"]
    result = CliRunner().invoke(app, [*args, "--base-url", server.url])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert result.output.startswith("everbot-memory: the model's answer is not JSON")
    assert memory.read_bytes() == before


def test_close_session_timeout_flag_bounds_a_silent_server(
    server: FakeOpenAI, memory: Path
) -> None:
    before = memory.read_bytes()
    server.replies = [Reply(200, answer([]).body, delay=5) for _ in range(3)]
    args = ["close-session", str(TRANSCRIPT), "-f", str(memory), "--extractor", "openai"]
    result = CliRunner().invoke(app, [*args, "--base-url", server.url, "--timeout", "0.3"])
    assert result.exit_code == 1
    assert "did not answer in time (0.3 s)" in result.output
    assert memory.read_bytes() == before


# -- claude-cli, with a fake program on PATH ---------------------------------------------------


def fake_claude(folder: Path, body: str) -> Path:
    """A ``claude`` program (Python) first on PATH: it records its arguments, its standard
    input and the guard variable, answers ``--help`` with the schema flag, then runs ``body``."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "claude"
    program.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            f"""\
            import json, os, sys, time
            if "--help" in sys.argv:
                print("  --json-schema <schema>   JSON Schema for structured output")
                sys.exit(0)
            if "--version" in sys.argv:
                print("9.9.9 (Claude Code)")
                sys.exit(0)
            calls = os.path.join({str(folder)!r}, "calls.jsonl")
            with open(calls, "a") as log:
                log.write(json.dumps({{"argv": sys.argv[1:], "stdin": sys.stdin.read(),
                                       "guard": os.environ.get({CHILD_ENV!r})}}) + "\\n")
            n = sum(1 for _ in open(calls))
            """
        )
        + textwrap.dedent(body),
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def calls_of(folder: Path) -> list[dict[str, Any]]:
    path = folder / "calls.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def result_json(structured: Any = None, text: str = "", **extra: Any) -> str:
    data = {"type": "result", "subtype": "success", "is_error": False, "result": text, **extra}
    if structured is not None:
        data["structured_output"] = structured
    return json.dumps(data)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder


GOOD_RESULT = result_json({"memories": [PYTEST], "confirmed_ids": [], "forget_ids": []})


def test_claude_cli_good_path(bin_dir: Path, memory: Path) -> None:
    fake_claude(bin_dir, f"print({GOOD_RESULT!r})\n")
    stats = Memory(memory, "claude-cli").process_session_end_sync(SHORT, "s1")
    assert stats["new"] == 1
    [call] = calls_of(bin_dir)
    argv = call["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"]
    assert argv[argv.index("--model") + 1] == "haiku"
    assert argv[argv.index("--tools") + 1] == ""
    assert json.loads(argv[argv.index("--settings") + 1]) == {"disableAllHooks": True}
    assert json.loads(argv[argv.index("--json-schema") + 1]) == answer_schema()
    assert "--no-session-persistence" in argv
    assert "long-term memory" in argv[argv.index("--system-prompt") + 1]
    assert "I prefer pytest over unittest." in call["stdin"]
    assert call["guard"] == "1"  # the child's hooks return at once


def test_claude_cli_async_path(bin_dir: Path, memory: Path) -> None:
    fake_claude(bin_dir, f"print({GOOD_RESULT!r})\n")
    extractor = ClaudeCliExtractor(timeout=30)
    stats = asyncio.run(Memory(memory, extractor).aprocess_session_end(SHORT, "s1"))
    assert stats["new"] == 1 and calls_of(bin_dir)[0]["guard"] == "1"


def test_claude_cli_repairs_a_malformed_answer_once(bin_dir: Path, memory: Path) -> None:
    bad = result_json(text="Here you go: the user likes pytest")
    fake_claude(bin_dir, f"print({bad!r} if n == 1 else {GOOD_RESULT!r})\n")
    stats = Memory(memory, "claude-cli").process_session_end_sync(SHORT, "s1")
    assert stats["new"] == 1
    second = calls_of(bin_dir)[1]["stdin"]
    assert "<your_previous_answer>\nHere you go" in second
    assert "could not be used: the model's answer is not JSON" in second


CLI_FAILURES = [
    (
        "exit-1",
        "print('Invalid API key', file=sys.stderr); sys.exit(1)\n",
        "status 1: Invalid API key",
    ),
    (
        "is-error",
        "print(json.dumps({'type': 'result', 'is_error': True, 'result': 'Credit balance is too "
        "low'}))\n",
        "claude reported an error: Credit balance is too low",
    ),
    ("not-json", "print('{\"memories\": [')\n", "claude exited with status 0"),
    ("sleeps", "time.sleep(30)\n", r"claude did not answer within 1 s \(stopped\)"),
    (
        "wrong-schema-twice",
        f"print({result_json({'memories': 'none'})!r})\n",
        "does not match the memory schema",
    ),
]


@pytest.mark.parametrize(
    "body, expected", [c[1:] for c in CLI_FAILURES], ids=[c[0] for c in CLI_FAILURES]
)
def test_claude_cli_failures_leave_the_file_alone(
    bin_dir: Path, memory: Path, body: str, expected: str
) -> None:
    before = memory.read_bytes()
    fake_claude(bin_dir, body)
    with pytest.raises(ExtractionError, match=expected) as caught:
        Memory(memory, ClaudeCliExtractor(timeout=1)).process_session_end_sync(SHORT, "s1")
    assert "\n" not in str(caught.value)
    assert memory.read_bytes() == before
    assert not SessionLedger(memory).seen("s1")


def test_claude_cli_missing_program(
    tmp_path: Path, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    before = memory.read_bytes()
    with pytest.raises(ExtractionError, match="needs the 'claude' program"):
        Memory(memory, "claude-cli").process_session_end_sync(SHORT, "s1")
    with pytest.raises(ExtractionError, match="needs the 'claude' program"):
        ClaudeCliExtractor().extract(SHORT)
    assert memory.read_bytes() == before


def test_close_session_with_claude_cli(bin_dir: Path, tmp_path: Path) -> None:
    fake_claude(bin_dir, f"print({GOOD_RESULT!r})\n")
    path = tmp_path / "MEMORY.md"
    args = ["close-session", str(TRANSCRIPT), "-f", str(path), "--extractor", "claude-cli"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "(claude-cli extractor)" in result.output
    assert "The user prefers pytest." in path.read_text(encoding="utf-8")


# -- the real claude program against a fake Messages API ---------------------------------------

REAL_CLAUDE = shutil.which("claude") or shutil.which(
    "claude", path=os.environ.get("EVERBOT_TEST_CLAUDE_PATH", "")
)


def _structured_reply(body: dict[str, Any]) -> Any:
    """The fake API's answers to Claude Code: the StructuredOutput tool call for the
    extraction, a plain answer for anything else it asks (a session title)."""
    if any(tool.get("name") == "StructuredOutput" for tool in body.get("tools", [])):
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return message("done")
        memory = {**PYTEST, "expires_on": None, "contradicts": [], "group": None}
        full = {
            "memories": [memory],
            "session_note": None,
            "confirmed_ids": [],
            "forget_ids": [],
        }
        return tool_use("StructuredOutput", full)
    return message('{"title": "Test session"}')


@pytest.mark.skipif(
    REAL_CLAUDE is None,
    reason="the claude program (npm install -g @anthropic-ai/claude-code) is not installed",
)
def test_the_real_claude_program_against_a_fake_api(
    tmp_path: Path, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert REAL_CLAUDE is not None
    monkeypatch.setenv("PATH", f"{Path(REAL_CLAUDE).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # nothing of the user's ~/.claude
    with fake_anthropic() as fake:
        fake.respond = _structured_reply
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        stats = Memory(memory, ClaudeCliExtractor(timeout=120)).process_session_end_sync(
            SHORT, "s1"
        )
        extraction = [r for r in fake.requests if r.get("tools")]
    assert stats["new"] == 1
    assert "I prefer pytest over unittest." in json.dumps(extraction[0]["messages"])
    assert [t["name"] for t in extraction[0]["tools"]] == ["StructuredOutput"]  # no other tool


@pytest.mark.skipif(
    REAL_CLAUDE is None,
    reason="the claude program (npm install -g @anthropic-ai/claude-code) is not installed",
)
def test_the_real_claude_child_fires_no_hook_even_with_hooks_installed(
    tmp_path: Path, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The extraction's own claude run must not start this project's hooks (a session end
    would queue another extraction, and so on): hooks are off for the child, and the guard
    variable stops our hook even where they would run."""
    assert REAL_CLAUDE is not None
    home = tmp_path / "home"
    marker = tmp_path / "fired"
    ours = f"{sys.executable} -m everbot_memory hook claude-code --file {memory}"
    plain = f"sh -c 'echo fired >> {marker}'"
    hooks = {
        event: [
            {"hooks": [{"type": "command", "command": ours}, {"type": "command", "command": plain}]}
        ]
        for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
    }
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    monkeypatch.setenv("PATH", f"{Path(REAL_CLAUDE).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(home))
    with fake_anthropic() as fake:
        fake.respond = _structured_reply
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        stats = Memory(memory, ClaudeCliExtractor(timeout=120)).process_session_end_sync(
            SHORT, "s1"
        )
    assert stats["new"] == 1
    assert not marker.exists()  # no hook ran in the child
    assert Memory(memory).jobs.pending() == []  # and ours queued nothing


# -- the job queue after an unusable answer -----------------------------------------------------


def test_a_job_with_bad_answers_is_retried_then_set_aside_and_doctor_lists_it(
    server: FakeOpenAI, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs_module, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    monkeypatch.setenv("EVERBOT_MEMORY_EXTRACTOR", "openai")
    monkeypatch.setenv("EVERBOT_MEMORY_BASE_URL", server.url)
    before = memory.read_bytes()
    transcript = memory.parent / "t.txt"
    transcript.write_text("User: I prefer pytest over unittest.\n", encoding="utf-8")
    owner = Memory(memory)
    owner.jobs.queue("s1", str(transcript), "SessionEnd")
    server.replies = [completion("not JSON at all")] * 8
    for _ in range(4):
        report = owner.jobs.process()
        assert report is not None and report.failed == 1
    assert memory.read_bytes() == before
    [job] = owner.jobs.failed()
    assert job.attempts == 4
    assert job.error.startswith("the model's answer is not JSON")
    assert "again after one repair request" in job.error
    result = CliRunner().invoke(app, ["doctor", "-f", str(memory)])
    assert result.exit_code == 1
    assert "extractor: openai (extractor = 'openai' from EVERBOT_MEMORY_EXTRACTOR)" in result.output
    assert f"failed job: session s1 (SessionEnd), 4 tries: {job.error}" in result.output


# -- settings: files, environment, flags ------------------------------------------------------


def test_settings_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "xdg" / "everbot-memory" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('extractor = "openai"\nmodel = "user-model"\ntimeout = 30\n')
    project = tmp_path / "everbot-memory.toml"
    path = tmp_path / "MEMORY.md"
    assert load_settings(path).model == "user-model"
    project.write_text('model = "project-model"\nbase_url = "http://localhost:1/v1"\n')
    settings = load_settings(path)
    assert (settings.extractor, settings.model, settings.timeout) == ("openai", "project-model", 30)
    assert settings.source("model") == str(project) and settings.source("extractor") == str(user)
    monkeypatch.setenv("EVERBOT_MEMORY_MODEL", "env-model")
    monkeypatch.setenv("EVERBOT_MEMORY_EXTRACTOR", "rules")
    settings = load_settings(path)
    assert (settings.extractor, settings.model) == ("rules", "env-model")
    settings = load_settings(path, extractor="claude-cli", model="flag-model")
    assert (settings.extractor, settings.model) == ("claude-cli", "flag-model")
    assert settings.source("model") == "--model"
    assert settings.base_url == "http://localhost:1/v1"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("extractor = ", "is not valid TOML"),
        ('extractor = "gpt"', "unknown extractor 'gpt'"),
        ('modle = "x"', "unknown setting 'modle'"),
        ("timeout = -1", "timeout -1 is not a number of seconds"),
        ("model = 3", "model must be a non-empty string"),
    ],
)
def test_a_bad_config_file_is_one_line(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "everbot-memory.toml").write_text(text)
    with pytest.raises(ConfigError, match=expected) as caught:
        load_settings(tmp_path / "MEMORY.md")
    assert str(tmp_path / "everbot-memory.toml") in str(caught.value)


@pytest.mark.parametrize(
    "extractor, key, sdk, program, expected",
    [
        ("auto", False, True, True, "rules"),
        ("auto", True, True, True, "anthropic"),
        ("auto", True, False, True, "rules"),  # with a warning
        ("auto", False, False, False, "rules"),
        ("anthropic", False, True, False, "anthropic"),
        ("claude", True, True, False, "anthropic"),
        ("anthropic", True, False, True, "error: needs the 'claude' extra"),
        ("openai", False, True, False, "openai"),
        ("openai", False, False, False, "error: needs the 'openai' extra"),
        ("claude-cli", False, False, True, "claude-cli"),
        ("claude-cli", True, True, False, "error: needs the 'claude' program"),
        ("rules", True, True, True, "rules"),
    ],
)
def test_which_backend_runs(
    extractor: str,
    key: bool,
    sdk: bool,
    program: bool,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each combination of key, SDK, program and setting gives the documented backend; auto
    never picks claude-cli or openai."""
    if key:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    if not sdk:
        monkeypatch.setitem(sys.modules, "anthropic", None)
        monkeypatch.setitem(sys.modules, "openai", None)
    folder = tmp_path / "bin"
    if program:
        fake_claude(folder, "")
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin")
    (tmp_path / "everbot-memory.toml").write_text(f'extractor = "{extractor}"\n')
    settings = load_settings(tmp_path / "MEMORY.md")
    if expected.startswith("error: "):
        with pytest.raises(ExtractionError, match=expected.removeprefix("error: ")):
            choose_extractor(settings)
        return
    choice = choose_extractor(settings)
    assert choice.name == expected == explain_choice(settings)[0]
    kinds = {
        "rules": RuleExtractor,
        "anthropic": AnthropicExtractor,
        "openai": OpenAIExtractor,
        "claude-cli": ClaudeCliExtractor,
    }
    assert isinstance(choice.extractor, kinds[expected])
    assert (choice.warning is not None) == (extractor == "auto" and key and not sdk)


def test_choice_carries_model_base_url_and_timeout() -> None:
    settings = Settings(extractor="openai", model="m", base_url="http://x/v1", timeout=7.0)
    extractor = choose_extractor(settings).extractor
    assert isinstance(extractor, OpenAIExtractor)
    assert (extractor.model, extractor.base_url, extractor.timeout) == ("m", "http://x/v1", 7.0)


def test_doctor_says_which_backend_and_checks_it_only_when_asked(
    server: FakeOpenAI, memory: Path
) -> None:
    (memory.parent / "everbot-memory.toml").write_text(
        f'extractor = "openai"\nmodel = "qwen3"\nbase_url = "{server.url}"\n'
    )
    result = CliRunner().invoke(app, ["doctor", "-f", str(memory)])
    assert result.exit_code == 0, result.output
    where = memory.parent / "everbot-memory.toml"
    assert f"extractor: openai (extractor = 'openai' from {where}); model qwen3" in result.output
    assert server.calls == 0  # offline by default
    server.replies = [completion("pong")]
    result = CliRunner().invoke(app, ["doctor", "-f", str(memory), "--check-backend"])
    assert result.exit_code == 0, result.output
    assert f"extractor: ok: model qwen3 answered at {server.url}" in result.output
    assert server.calls == 1 and server.requests[0]["max_tokens"] == 1
    server.replies = [error(404, "no such model")]
    result = CliRunner().invoke(app, ["doctor", "-f", str(memory), "--check-backend"])
    assert result.exit_code == 1
    assert "extractor: problem: model 'qwen3' was not found (404)" in result.output


def test_doctor_checks_claude_cli_without_spending_usage(bin_dir: Path, memory: Path) -> None:
    fake_claude(bin_dir, "")
    result = CliRunner().invoke(
        app,
        ["doctor", "-f", str(memory), "--check-backend"],
        env={"EVERBOT_MEMORY_EXTRACTOR": "claude-cli"},
    )
    assert result.exit_code == 0, result.output
    assert "extractor: ok: " in result.output and "9.9.9 (Claude Code)" in result.output
    assert calls_of(bin_dir) == []  # only --version ran


def test_the_installed_command_runs_claude_cli(bin_dir: Path, tmp_path: Path) -> None:
    """The console script, as a hook's worker runs it, with the fake program on its PATH."""
    fake_claude(bin_dir, f"print({GOOD_RESULT!r})\n")
    path = tmp_path / "MEMORY.md"
    command = [sys.executable, "-m", "everbot_memory", "close-session", str(TRANSCRIPT)]
    done = subprocess.run(
        [*command, "-f", str(path), "--extractor", "claude-cli"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    assert "(claude-cli extractor)" in done.stdout
