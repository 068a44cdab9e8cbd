"""An MCP server over stdio, so Claude Code, Claude Desktop and other MCP clients can use memory.

Tools: ``recall_memory``, ``mark_used``, ``remember``, ``forget`` and ``list_memories``, each
one call into
:class:`~everbot_memory.facade.memory.Memory`. Needs the ``mcp`` package
(``pip install 'everbot-memory[mcp]'``). Errors the engine reports are returned to the client
as tool errors with the same one-line message the CLI prints.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from ..core.entry import Category, Importance
from ..errors import EverbotMemoryError
from ..facade.memory import Memory

__all__ = ["build_server", "serve"]


def build_server(memory_path: str | os.PathLike[str]) -> Any:
    """The MCP server for one memory file (an ``mcp`` ``MCPServer``)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    memory = Memory(memory_path)
    server = MCPServer(
        "everbot-memory",
        instructions=(
            "Long-term memory about the user, kept in MEMORY.md. Use recall_memory to look up "
            "what earlier sessions learned; remember to keep a new fact; forget to delete one."
        ),
    )

    def call(function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except EverbotMemoryError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool()
    def recall_memory(query: str, k: int = 5) -> list[dict[str, Any]]:
        """Search every memory (archived ones too) for what answers the query; English,
        Chinese or Japanese. Only reads; an empty list means no memory is relevant. Call
        mark_used with the ids of the memories you actually used."""
        hits = call(memory.recall, query, max(1, min(k, 50)))
        return [
            {
                "id": h.entry.id,
                "content": h.entry.content,
                "category": h.entry.category,
                "score": round(h.score, 4),
                "relevance": round(h.relevance, 4),
            }
            for h in hits
        ]

    @server.tool()
    def mark_used(ids: list[str]) -> list[dict[str, Any]]:
        """Say these memories (ids from recall_memory) helped answer the user: they are
        reinforced, so they stay strong and come first in later sessions."""
        used = call(memory.mark_used, [i.strip("[] ") for i in ids])
        return [{"id": e.id, "score": round(e.score, 4), "hits": e.activation_count} for e in used]

    @server.tool()
    def remember(
        content: str,
        category: Category = "fact",
        importance: Importance = "medium",
    ) -> dict[str, Any]:
        """Keep a memory about the user (one sentence), or reinforce the one that says it."""
        entry, result = call(memory.remember, content, category, importance, "mcp")
        return {
            "id": entry.id,
            "content": entry.content,
            "score": round(entry.score, 4),
            "new": bool(result.stats.new),
        }

    @server.tool()
    def forget(id: str) -> dict[str, Any]:
        """Delete the memory with this id (ids come from recall_memory or list_memories)."""
        entry = call(memory.forget, id.strip("[] "))
        return {"id": entry.id, "content": entry.content, "forgotten": True}

    @server.tool()
    def list_memories(
        section: Literal["active", "archived", "all"] = "active", limit: int = 50
    ) -> list[dict[str, Any]]:
        """The memories in the file, strongest first."""
        chosen = call(memory.list_entries, section, None, 0.0, max(0, limit))
        return [
            {"id": e.id, "content": e.content, "category": e.category, "score": round(e.score, 4)}
            for e in chosen
        ]

    return server


def serve(memory_path: str | os.PathLike[str]) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(memory_path).run("stdio")
