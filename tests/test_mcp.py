"""The MCP server end to end: the real mcp client talks to `everbot-memory mcp` over stdio."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import FIXTURES

import everbot_memory
from everbot_memory import MemoryManager, MemoryStore

mcp = pytest.importorskip("mcp")
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402


def payload(result: Any) -> Any:
    assert not result.is_error, result
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if isinstance(data, dict) else data
    return json.loads(result.content[0].text)


async def session_run(memory: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "everbot_memory", "mcp", "--file", str(memory)],
        env={**os.environ, "EVERBOT_MEMORY_FILE": ""},
    )
    seen: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        seen["tools"] = sorted(t.name for t in tools.tools)
        seen["remember"] = payload(
            await session.call_tool(
                "remember",
                {
                    "content": "用户喜欢简洁的代码风格",
                    "category": "preference",
                    "importance": "high",
                },
            )
        )
        seen["recall"] = payload(await session.call_tool("recall_memory", {"query": "代码风格"}))
        seen["used"] = payload(
            await session.call_tool("mark_used", {"ids": [seen["recall"][0]["id"]]})
        )
        seen["list"] = payload(await session.call_tool("list_memories", {"section": "all"}))
        seen["forget"] = payload(await session.call_tool("forget", {"id": seen["remember"]["id"]}))
        missing = await session.call_tool("forget", {"id": "ffffff"})
        seen["missing_is_error"] = missing.is_error
        seen["missing_text"] = missing.content[0].text if missing.content else ""
    return seen


TOOLS = [
    "forget",
    "get_memory",
    "list_memories",
    "mark_used",
    "recall_memory",
    "recall_sessions",
    "remember",
    "update_memory",
]


def test_mcp_tools_end_to_end(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    MemoryManager(memory).remember("The user deploys on Fridays.", "workflow")
    seen = anyio.run(session_run, memory)
    assert seen["tools"] == TOOLS
    assert seen["remember"]["new"] is True and seen["remember"]["score"] == 0.8
    assert seen["recall"][0]["content"] == "用户喜欢简洁的代码风格"
    assert seen["used"][0]["hits"] == 2  # created, then used once
    assert {m["content"] for m in seen["list"]} == {
        "用户喜欢简洁的代码风格",
        "The user deploys on Fridays.",
    }
    assert seen["forget"]["forgotten"] is True
    assert seen["missing_is_error"] and "ffffff" in seen["missing_text"]
    assert [e.content for e in MemoryStore(memory).load()] == ["The user deploys on Fridays."]


def server(memory: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "everbot_memory", "mcp", "--file", str(memory)],
        env={**os.environ, "EVERBOT_MEMORY_FILE": ""},
    )


def error_text(result: Any) -> str:
    assert result.is_error, result
    return str(result.content[0].text)


async def describe(memory: Path, errlog: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with (
        stdio_client(server(memory), errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        seen["version"] = session.server_info.version if session.server_info else None
        seen["tools"] = {t.name: t for t in (await session.list_tools()).tools}
        seen["too_many"] = await session.call_tool("recall_memory", {"query": "tea", "k": 500})
        seen["empty"] = await session.call_tool("remember", {"content": "   "})
        seen["unknown"] = await session.call_tool("get_memory", {"id": "ffffff"})
        seen["missing"] = await session.call_tool("recall_memory", {})
        seen["wrong"] = await session.call_tool("list_memories", {"section": "bogus", "limit": 0})
    return seen


def test_tools_describe_their_parameters_and_effects(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    MemoryManager(memory).remember("The user likes green tea.", "preference")
    errlog = tmp_path / "stderr.txt"
    with errlog.open("w") as log:
        seen = anyio.run(describe, memory, log)
    tools = seen["tools"]
    assert sorted(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.annotations is not None, tool.name
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), (tool.name, name)
    reads = {n for n, t in tools.items() if t.annotations.read_only_hint}
    assert reads == {"recall_memory", "recall_sessions", "get_memory", "list_memories"}
    destructive = {n for n, t in tools.items() if t.annotations.destructive_hint}
    assert destructive == {"forget", "update_memory"}
    assert tools["forget"].annotations.idempotent_hint is True
    assert tools["remember"].annotations.idempotent_hint is False
    # Bounded sizes, in the schema the client sees and when a call goes past them.
    assert tools["recall_memory"].input_schema["properties"]["k"]["maximum"] == 50
    assert tools["list_memories"].input_schema["properties"]["limit"]["maximum"] == 200
    assert "less than or equal to 50" in error_text(seen["too_many"]), error_text(seen["too_many"])
    assert "nothing remembered: the content is empty" in error_text(seen["empty"])
    assert "ffffff" in error_text(seen["unknown"])
    # Arguments that fail the schema: one line naming each, not pydantic's report.
    for key, names in (("missing", ["query: Field required"]), ("wrong", ["section:", "limit:"])):
        said = error_text(seen[key])
        assert "\n" not in said and "bad arguments" in said, said
        assert all(name in said for name in names) and "errors.pydantic.dev" not in said, said
    assert seen["version"] == everbot_memory.__version__
    # Failed calls are the client's to show; the server's stderr stays quiet.
    assert errlog.read_text() == ""


async def browse(memory: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with stdio_client(server(memory)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def call(tool: str, **arguments: Any) -> Any:
            return payload(await session.call_tool(tool, arguments))

        seen["all"] = await call("list_memories", section="all")
        seen["archived"] = await call("list_memories", section="archived")
        seen["facts"] = await call("list_memories", section="all", category="fact")
        seen["tea"] = await call("list_memories", section="all", text="TEA")
        seen["page"] = await call("list_memories", section="all", limit=1, offset=1)
        seen["one"] = await call("get_memory", id=f"[{seen['facts'][0]['id']}]")
    return seen


def test_list_filters_and_get_one(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    shutil.copy(FIXTURES / "memory" / "canonical.md", memory)
    seen = anyio.run(browse, memory)
    assert [m["id"] for m in seen["all"]] == ["a1b2c3", "d4e5f6", "g7h8i9", "x1y2z3"]
    assert [m["id"] for m in seen["archived"]] == ["x1y2z3"]
    assert [m["id"] for m in seen["facts"]] == ["d4e5f6", "x1y2z3"]
    assert [m["id"] for m in seen["page"]] == ["d4e5f6"]
    assert all("tea" in m["content"].lower() for m in seen["tea"])
    one = seen["one"]
    assert one["id"] == "d4e5f6" and one["section"] == "active"
    assert {"created_at", "last_activated", "activation_count"} <= set(one)


async def correct(memory: Path, entry_id: str) -> dict[str, Any]:
    async with stdio_client(server(memory)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        changed = payload(
            await session.call_tool(
                "update_memory",
                {"id": entry_id, "content": "The user deploys on Thursdays.", "score": 0.9},
            )
        )
        emptied = await session.call_tool("update_memory", {"id": entry_id, "content": " "})
    return {"changed": changed, "emptied": emptied}


def test_update_memory_corrects_in_place(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    entry, _ = MemoryManager(memory).remember("The user deploys on Fridays.", "workflow")
    seen = anyio.run(correct, memory, entry.id)
    assert seen["changed"]["content"] == "The user deploys on Thursdays."
    assert seen["changed"]["category"] == "workflow" and seen["changed"]["score"] == 0.9
    assert "empty" in error_text(seen["emptied"])
    assert [e.content for e in MemoryStore(memory).load()] == ["The user deploys on Thursdays."]


def test_the_readme_lists_every_tool() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### As an MCP server", 1)[1].split("\n## ", 1)[0]
    assert sorted(re.findall(r"^\| `(\w+)\(", section, re.M)) == TOOLS


def test_a_request_holding_a_lone_surrogate_escape_is_answered(tmp_path: Path) -> None:
    """JSON allows "\\ud800" alone; the package's reader refuses it and cannot tell which
    request it was, so the client waited forever. It is read with U+FFFD in its place, as
    bytes that are not UTF-8 are."""
    import select
    import subprocess

    memory = tmp_path / "MEMORY.md"
    command = [sys.executable, "-m", "everbot_memory", "mcp", "--file", str(memory)]
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "remember", '
        '"arguments": {"content": "The user likes \\ud800 green tea \\ud83c\\udf75."}}}',
    ]
    answers: dict[int, Any] = {}
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "EVERBOT_MEMORY_FILE": ""},
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        try:
            server.stdin.write("".join(f"{line}\n" for line in lines).encode())
            server.stdin.flush()
            while 2 not in answers:
                ready, _, _ = select.select([server.stdout], [], [], 60)
                assert ready, f"no answer in 60 s; answers so far: {answers}"
                message = json.loads(server.stdout.readline())
                answers[message.get("id")] = message
        finally:
            server.kill()
    assert not answers[2]["result"]["isError"], answers[2]
    [entry] = MemoryStore(memory).load()
    assert entry.content == "The user likes \ufffd green tea \U0001f375."


@pytest.mark.parametrize(
    ("line", "mended"),
    [
        (r'"\ud800"', r'"\ufffd"'),
        (r'"\udc00 \ud800"', r'"\ufffd \ufffd"'),
        (r'"\ud83d\ude00"', r'"\ud83d\ude00"'),  # a pair stays
        (r'"\ud800\ud83d\ude00"', r'"\ufffd\ud83d\ude00"'),
        (r'"\\ud800"', r'"\\ud800"'),  # an escaped backslash, then text
        (r'"\\\ud800"', r'"\\\ufffd"'),
        (r'"a\nb"', r'"a\nb"'),
    ],
)
def test_lone_surrogate_escapes_are_mended_and_nothing_else(line: str, mended: str) -> None:
    from everbot_memory.faces.mcp import _mended

    assert _mended(line) == mended
    json.loads(mended)
