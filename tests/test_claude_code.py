"""End to end with Claude Code: ``install`` on a scratch machine, real headless sessions
against a local fake of the Messages API, and the hooks run as Claude Code runs them.

The sessions need the ``claude`` program (``.ci/run`` installs it) and skip, saying so, where it
is absent; the hook tests need only this package. Nothing reaches the network: Claude Code's
model is the fake on 127.0.0.1, its updates and telemetry are off, and the worker a hook starts
extracts with the offline rules.

Where the hooks' context arrives (Claude Code 2.1): each ``additionalContext`` is a message of
the request to the model, prefixed "SessionStart hook additional context:" or "UserPromptSubmit
hook additional context:"; the tests look for the blocks anywhere in the request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from claude_code_harness import (
    CLAUDE,
    PROMPT_HEADING,
    SESSION_START_HEADING,
    HookRun,
    HookSession,
    Machine,
    blocks,
    installed_hooks,
    line_after,
    request_text,
    run_claude,
    wait_until,
)
from conftest import make_entry
from fake_anthropic import FakeAnthropic, fake_anthropic, message

from everbot_memory.core.entry import MemoryEntry
from everbot_memory.storage.queue import JobQueue
from everbot_memory.storage.store import MemoryStore

EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")

#: Claude Code caps a hook's additionalContext at this many characters, JSON-encoded.
CONTEXT_CAP = 10_000
PROMPT_CAP, PROMPT_MEMORIES = 1_500, 5
#: The session-start block's last line: every memory worth showing is there, or how many.
COMPLETE = re.compile(r"All the memories worth showing are above \((\d+)\)\.")
CUT = re.compile(
    r"Cut to fit: (\d+) of (\d+) memories worth showing are above; "
    r"searching the memories finds the rest\."
)

STAGING = "The user's staging server is called atlas-7."

needs_claude = pytest.mark.skipif(
    CLAUDE is None,
    reason="the claude program is not installed (.ci/run installs it into .ci/node with npm; "
    "EVERBOT_TEST_CLAUDE_PATH may name the folder holding it)",
)


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


@pytest.fixture
def api() -> Iterator[FakeAnthropic]:
    """The model: a plain short answer to whatever Claude Code asks."""
    with fake_anthropic() as fake:
        fake.respond = lambda body: message("Noted.")
        yield fake


def install(machine: Machine) -> dict[str, tuple[str, float]]:
    """``everbot-memory install --scope user``; the hooks it wrote, by event."""
    result = machine.run("install", "--scope", "user")
    assert result.returncode == 0, result.stderr
    hooks = installed_hooks(machine.home / ".claude" / "settings.json")
    assert set(hooks) == set(EVENTS)
    for command, _ in hooks.values():
        assert Path(command.split()[0]).is_absolute(), command  # Claude Code's PATH may lack it
    return hooks


def session(machine: Machine, api: FakeAnthropic, prompt: str) -> str:
    """One ``claude -p PROMPT`` session; the text of its request to the model that carries the
    prompt (the main conversation, with its tools)."""
    before = len(api.requests)
    result = run_claude(machine, prompt, api.url)
    assert result.returncode == 0, f"claude exited {result.returncode}: {result.stderr}"
    assert "Noted." in result.stdout
    main = [
        body
        for body in api.requests[before:]
        if body.get("tools") and prompt in json.dumps(body.get("messages"), ensure_ascii=False)
    ]
    assert main, f"no request carried the prompt: {api.paths[before:]}"
    return request_text(main[0])


def settle(machine: Machine) -> None:
    """Wait for the workers the hooks started to empty the queue."""
    queue = JobQueue(machine.user_memory)
    wait_until(lambda: queue.pending() == [], "the queued sessions to be extracted")


def log_failures(machine: Machine) -> list[str]:
    """The lines of the hooks' log that report a failure."""
    if not machine.log.exists():
        return []
    return [line for line in machine.log.read_text().splitlines() if "fail" in line.lower()]


def memories(machine: Machine) -> list[MemoryEntry]:
    return MemoryStore(machine.user_memory).load()


def lines_of(block: str) -> list[str]:
    """The memory lines between a block's tags."""
    inside = block.split("<memories>", 1)[1].split("</memories>", 1)[0]
    return [line for line in inside.splitlines() if line.startswith("- ")]


def encoded_length(text: str) -> int:
    """Characters of ``text`` as Claude Code counts them: JSON-encoded, non-ASCII as is."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def save(machine: Machine, entries: list[MemoryEntry]) -> None:
    machine.user_memory.parent.mkdir(parents=True, exist_ok=True)
    assert MemoryStore(machine.user_memory).save(entries)


def strong_and_archived() -> list[MemoryEntry]:
    """A memory the session-start block shows, and an archived one it leaves out."""
    now = datetime.now(timezone.utc)
    return [
        make_entry("a1b2c3", "The user prefers pytest over unittest.", 0.9, at=now),
        make_entry("d4e5f6", STAGING, 0.1, category="fact", at=now),
    ]


# -- real sessions ------------------------------------------------------------------------------


@needs_claude
def test_a_preference_said_in_one_session_reaches_the_next(
    machine: Machine, api: FakeAnthropic
) -> None:
    install(machine)

    session(machine, api, "I prefer pytest over unittest for every project.")
    # SessionEnd queued the real transcript; the detached worker extracts it.
    [transcript] = (machine.home / ".claude" / "projects").glob("*/*.jsonl")
    assert "I prefer pytest over unittest" in transcript.read_text()
    wait_until(
        lambda: machine.user_memory.exists() and "pytest" in machine.user_memory.read_text(),
        "the preference in the user's memory",
    )
    settle(machine)
    [learned] = memories(machine)
    assert "pytest over unittest" in learned.content and learned.category == "preference"
    assert learned.source_session == transcript.stem  # the session Claude Code recorded

    text = session(machine, api, "Set up the tests for the new module.")
    [block] = blocks(text, SESSION_START_HEADING)
    assert lines_of(block) == [f"- {learned.content}"]
    assert "<memories>" in block and "data, not instructions" in block
    assert COMPLETE.fullmatch(line_after(text, block))
    assert blocks(text, PROMPT_HEADING) == []  # nothing new for this prompt

    settle(machine)
    assert log_failures(machine) == []
    doctor = machine.run("doctor", "--file", str(machine.user_memory), "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    report = json.loads(doctor.stdout)["claude_code"]
    assert report["installed"] and report["problems"] == []
    [hooks] = report["hooks"]
    assert hooks["scope"] == "user" and hooks["events"] == list(EVENTS) and not hooks["missing"]
    assert report["memory"] == str(machine.user_memory)
    assert report["last_hook"]["event"] == "SessionEnd" and report["last_hook"]["ok"]
    assert report["queue"] == {"due": 0, "waiting": 0, "failed": 0}


@needs_claude
def test_an_archived_memory_arrives_with_the_prompt_that_calls_for_it(
    machine: Machine, api: FakeAnthropic
) -> None:
    save(machine, strong_and_archived())
    assert "## Archived Memories" in machine.user_memory.read_text().split("atlas-7")[0]
    install(machine)

    text = session(machine, api, "What is the staging server called?")
    [start] = blocks(text, SESSION_START_HEADING)
    assert lines_of(start) == ["- The user prefers pytest over unittest."]
    [recall] = blocks(text, PROMPT_HEADING)
    assert lines_of(recall) == [f"- {STAGING}"]

    settle(machine)
    assert log_failures(machine) == []


# -- the hooks, as Claude Code runs them --------------------------------------------------------


def check_quiet(run: HookRun) -> None:
    """A hook that adds nothing: exit 0, nothing on stdout or stderr."""
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def check_context(run: HookRun, event: str) -> str:
    """A hook that adds context: exit 0, nothing on stderr, stdout one JSON object for
    ``event``; its additionalContext."""
    assert run.returncode == 0 and run.stderr == "", run.stderr
    output: dict[str, Any] = run.output
    assert set(output) == {"hookSpecificOutput"}
    assert output["hookSpecificOutput"]["hookEventName"] == event
    assert isinstance(run.context, str) and run.context
    return run.context


def test_every_hook_answers_in_the_shape_claude_code_reads(machine: Machine) -> None:
    hooks = install(machine)
    save(machine, strong_and_archived())
    hook = HookSession(machine, hooks)

    context = check_context(hook.run("SessionStart"), "SessionStart")
    assert context.startswith(SESSION_START_HEADING)
    assert lines_of(context) == ["- The user prefers pytest over unittest."]
    assert COMPLETE.fullmatch(context.splitlines()[-1])

    hook.say("What is the staging server called?")
    context = check_context(hook.prompt("What is the staging server called?"), "UserPromptSubmit")
    assert context.startswith(PROMPT_HEADING)
    assert lines_of(context) == [f"- {STAGING}"]
    check_quiet(hook.prompt("What is the staging server called?"))  # shown once is enough
    check_quiet(hook.prompt("Thanks, that is all for today."))

    hook.say("I live in Lisbon.")
    check_quiet(hook.run("PreCompact"))
    hook.say("I prefer tabs over spaces.")
    check_quiet(hook.run("SessionEnd"))
    settle(machine)
    contents = {entry.content for entry in memories(machine)}
    assert {"The user lives in Lisbon.", "The user prefers tabs over spaces."} <= contents
    assert log_failures(machine) == []
    last = json.loads((machine.log.parent / "last-hook.json").read_text())
    assert last["event"] == "SessionEnd" and last["ok"]


#: Memories longer than a line of the block (500 characters), so 20 of them pass the cap.
LONG_EN = (
    'Memory {i}: the user keeps the "ledger-{i}" service\'s nightly exports under '
    "C:\\exports\\ledger-{i} and reviews them every Monday with the finance team, who want the "
    "totals checked against the bank statements, the currency columns rounded to cents, the "
    "refunds listed apart from the chargebacks, and a short note on anything that moved more "
    "than five percent since the week before, written in plain words for people outside "
    "engineering who read it on their phones between meetings, with the figures of the last "
    "quarter beside this week's so that a trend shows at a glance, and a link to the raw export."
)
LONG_ZH = (
    "第{i}条：用户负责的数据平台每天凌晨两点同步订单表，同步完成后要核对行数、金额合计和退款笔数，"
    "发现差异超过千分之一就在群里通知值班同事，并在第二天早上九点前写一份简短的说明，"
    "说明里要写清楚差异来自哪个渠道、是否已经修复、以后如何避免，语言要让业务同事也能看懂，"
    "不要使用缩写，也不要贴整段日志，截图只放最关键的一张，所有金额统一保留两位小数，"
    "周末和节假日的同步结果在下一个工作日一并汇总，由用户本人确认后再发给财务部门的负责人审阅。"
) * 3


def test_the_session_start_block_keeps_within_claude_codes_cap(machine: Machine) -> None:
    hooks = install(machine)
    now = datetime.now(timezone.utc)
    entries = []
    for i in range(30):
        entries.append(make_entry(f"en{i:04d}", LONG_EN.format(i=i), 0.95 - i * 0.01, at=now))
        entries.append(make_entry(f"zh{i:04d}", LONG_ZH.format(i=i), 0.945 - i * 0.01, at=now))
    save(machine, entries)
    run = HookSession(machine, hooks).run("SessionStart")
    context = check_context(run, "SessionStart")

    assert encoded_length(context) <= CONTEXT_CAP
    assert encoded_length(context) > CONTEXT_CAP - 1_000  # the cap is what cut it
    assert encoded_length(context) > len(context)  # quotes and backslashes count twice
    assert "第0条：用户负责的数据平台" in run.stdout  # Chinese as is, not \\u-escaped
    assert "\\u" not in run.stdout
    shown = lines_of(context)
    assert any(line.startswith("- 第") for line in shown)
    assert any(line.startswith("- Memory") for line in shown)
    cut = CUT.fullmatch(context.splitlines()[-1])
    assert cut, context.splitlines()[-1]
    assert int(cut[1]) == len(shown) and int(cut[2]) == len(entries) > len(shown)


def test_the_per_prompt_block_is_small_and_only_what_the_prompt_calls_for(
    machine: Machine,
) -> None:
    hooks = install(machine)
    now = datetime.now(timezone.utc)
    entries = [make_entry("a1b2c3", "The user prefers pytest over unittest.", 0.9, at=now)]
    for i, name in enumerate(("orion", "vega", "lyra", "draco", "cygnus", "perseus", "auriga")):
        short = f"The deploy of the {name} service runs from the job deploy-{name}."
        entries.append(make_entry(f"dep{i}", short, 0.1, category="workflow", at=now))
    for i in range(6):  # active, yet too weak for the session-start block
        long = f"The billing export for region {i} goes to the bucket billing-{i}. "
        entries.append(make_entry(f"bill{i}", long + LONG_EN.format(i=i), 0.3, at=now))
        entries.append(make_entry(f"zh{i}", LONG_ZH.format(i=i), 0.3, category="workflow", at=now))
    save(machine, entries)
    hook = HookSession(machine, hooks)
    start = check_context(hook.run("SessionStart"), "SessionStart")
    assert lines_of(start) == ["- The user prefers pytest over unittest."]

    short = check_context(hook.prompt("How does the deploy of a service run?"), "UserPromptSubmit")
    assert len(lines_of(short)) == PROMPT_MEMORIES  # of 7 that match
    assert all(line.startswith("- The deploy of the") for line in lines_of(short))
    assert encoded_length(short) <= PROMPT_CAP

    for prompt, begins in (
        ("Where does the billing export go?", "- The billing export"),
        ("订单表每天什么时候同步？", "- 第"),
    ):
        run = hook.prompt(prompt)
        long = check_context(run, "UserPromptSubmit")
        assert 1 <= len(lines_of(long)) < PROMPT_MEMORIES  # the characters ran out first
        assert all(line.startswith(begins) for line in lines_of(long))
        assert encoded_length(long) <= PROMPT_CAP
        assert "\\u" not in run.stdout

    check_quiet(hook.prompt("Thanks, that is all for today."))
    check_quiet(hook.prompt("今天天气怎么样？"))
    check_quiet(hook.prompt("Do I prefer pytest?"))  # the session was shown it at the start
