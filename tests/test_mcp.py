"""The MCP server end to end: the real mcp client talks to `everbot-memory mcp` over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

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


def test_mcp_tools_end_to_end(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    MemoryManager(memory).remember("The user deploys on Fridays.", "workflow")
    seen = anyio.run(session_run, memory)
    assert seen["tools"] == ["forget", "list_memories", "mark_used", "recall_memory", "remember"]
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
