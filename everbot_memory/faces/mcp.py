"""An MCP server over stdio, so Claude Code, Claude Desktop and other MCP clients can use memory.

Tools: ``recall_memory``, ``get_memory``, ``list_memories`` (read only), ``remember``,
``mark_used``, ``update_memory`` and ``forget``, each one call into
:class:`~everbot_memory.facade.memory.Memory`. Needs the ``mcp`` package (the ``mcp`` extra),
imported here at once so that ``everbot-memory mcp`` can say it is missing. Errors the engine
reports are returned to the client as tool errors with the same one-line message the CLI
prints. The server logs only warnings: stderr is the client's log, not a console.
"""

from __future__ import annotations

import os
import re
from importlib.metadata import version
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import ToolAnnotations, jsonrpc_message_adapter
from pydantic import Field, ValidationError

from ..core.entry import Category, Importance, MemoryEntry
from ..errors import EverbotMemoryError
from ..facade.memory import Memory

__all__ = ["MAX_K", "MAX_LIMIT", "build_server", "serve"]

#: The most memories one search returns, and one listing.
MAX_K = 50
MAX_LIMIT = 200

_Id = Annotated[str, Field(description="A memory's id, as recall_memory or list_memories give it.")]

# Hints for clients: what a tool changes. Every tool works on the one local file.
_READS = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_ADDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
_REPLACES = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)


_Group = Annotated[
    str | None,
    Field(
        description="Only memories of this group (work, life, ...; several comma-separated; "
        "none: memories without one). Default: every group."
    ),
]


def _brief(entry: MemoryEntry) -> dict[str, Any]:
    """What a listing shows of a memory."""
    return {
        "id": entry.id,
        "content": entry.content,
        "category": entry.category,
        "group": entry.group,
        "score": round(entry.score, 4),
        "section": "active" if entry.is_active else "archived",
    }


def _full(entry: MemoryEntry) -> dict[str, Any]:
    """Every field of a memory, scores rounded."""
    data = {k: round(v, 4) if isinstance(v, float) else v for k, v in entry.to_json().items()}
    data["section"] = "active" if entry.is_active else "archived"
    return data


# A JSON string escape: a backslash and one character, or \\u and four hex digits.
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _mended(line: str) -> str:
    """``line`` (JSON text) with every lone UTF-16 surrogate escape made ``\\ufffd``, as
    bytes that are not UTF-8 are made U+FFFD when read; a pair stays as it is."""
    out: list[str] = []
    start = 0
    pending: re.Match[str] | None = None  # a high surrogate waiting for its low half
    for match in _ESCAPE.finditer(line):
        unit = int(match.group(1), 16) if match.group(1) else None
        high = unit is not None and 0xD800 <= unit < 0xDC00
        low = unit is not None and 0xDC00 <= unit < 0xE000
        paired = pending is not None and low and pending.end() == match.start()
        if pending is not None and not paired:
            out += [line[start : pending.start()], "\\ufffd"]
            start = pending.end()
        pending = None
        if high:
            pending = match
        elif low and not paired:
            out += [line[start : match.start()], "\\ufffd"]
            start = match.end()
    if pending is not None:
        out += [line[start : pending.start()], "\\ufffd"]
        start = pending.end()
    return "".join(out) + line[start:]


def _read_again(item: Any) -> Any:
    """A message the package could not read because of a lone surrogate escape, read again
    mended (the package's JSON reader refuses one, and the request went unanswered)."""
    if not isinstance(item, ValidationError):
        return item
    for error in item.errors():
        line = error.get("input")
        if error["type"] == "json_invalid" and isinstance(line, str) and _SURROGATE.search(line):
            try:
                return SessionMessage(jsonrpc_message_adapter.validate_json(_mended(line)))
            except ValidationError:
                return item
    return item


class _Mending:
    """The stream of the client's messages, each passed through :func:`_read_again`."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)  # the sender's context, for the package

    async def receive(self) -> Any:
        return _read_again(await self._stream.receive())

    async def aclose(self) -> None:
        await self._stream.aclose()

    def __aiter__(self) -> _Mending:
        return self

    async def __anext__(self) -> Any:
        return _read_again(await self._stream.__anext__())

    async def __aenter__(self) -> _Mending:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._stream.__aexit__(*exc)


class _Server(MCPServer):
    """The package's server, with arguments that fail validation said in one line (the
    package gives pydantic's report: several lines and a link)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            said = "; ".join(
                f"{'.'.join(map(str, error['loc'])) or 'arguments'}: {error['msg']}"
                for error in cause.errors()
            )
            raise ToolError(f"Error executing tool {name}: bad arguments: {said}") from cause

    async def run_stdio_async(self) -> None:
        """As the package runs stdio, with a request that holds a lone surrogate escape read
        (the client would wait for its answer forever)."""
        lowlevel = self._lowlevel_server
        async with stdio_server() as (read_stream, write_stream):
            options = lowlevel.create_initialization_options()
            await lowlevel.run(_Mending(read_stream), write_stream, options)


def build_server(memory_path: str | os.PathLike[str]) -> MCPServer:
    """The MCP server for one memory file."""
    memory = Memory(memory_path)
    server: MCPServer = _Server(
        "everbot-memory",
        version=version("everbot-memory"),
        instructions=(
            "Long-term memory about the user, kept in MEMORY.md. Use recall_memory to look up "
            "what earlier sessions learned and mark_used for the memories that helped; "
            "remember to keep a new fact; update_memory to correct one; forget to delete one."
        ),
        # The package's default is INFO on stderr (a line per failed call); a client shows
        # stderr as the server's log, so only what needs attention goes there.
        log_level="WARNING",
    )

    def call(function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except EverbotMemoryError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(title="Search memories", annotations=_READS)
    def recall_memory(
        query: Annotated[str, Field(description="What to look for, in any language.")],
        k: Annotated[
            int, Field(ge=1, le=MAX_K, description=f"How many memories at most, 1 to {MAX_K}.")
        ] = 5,
        group: _Group = None,
    ) -> list[dict[str, Any]]:
        """Search every memory (archived ones too) for what answers the query; English,
        Chinese or Japanese. Only reads; an empty list means no memory is relevant. Call
        mark_used with the ids of the memories you actually used."""
        hits = call(memory.recall, query, k, False, group)
        return [{**_brief(h.entry), "relevance": round(h.relevance, 4)} for h in hits]

    @server.tool(title="Search session notes", annotations=_READS)
    def recall_sessions(
        query: Annotated[
            str,
            Field(
                description="What was done, in any language; a date in it ('last Tuesday', "
                "'上周二', '2026-03-03') keeps only that day's sessions."
            ),
        ],
        k: Annotated[
            int, Field(ge=1, le=MAX_K, description=f"How many notes at most, 1 to {MAX_K}.")
        ] = 5,
    ) -> list[dict[str, Any]]:
        """Search the notes kept of past sessions (what was worked on, decided, left open),
        each with its day and session. Only reads; an empty list means none matches."""
        return [note.to_json() for note in call(memory.recall_notes, query, k)]

    @server.tool(title="Read one memory", annotations=_READS)
    def get_memory(id: _Id) -> dict[str, Any]:
        """One memory with every field: content, category, score, dates, hits, section."""
        return _full(call(memory.get, id.strip("[] ")))

    @server.tool(title="List memories", annotations=_READS)
    def list_memories(
        section: Annotated[
            Literal["active", "archived", "all"],
            Field(description="active (what the prompt draws from), archived, or all."),
        ] = "active",
        category: Annotated[
            Category | None,
            Field(description="Only memories of this category (default: every category)."),
        ] = None,
        text: Annotated[
            str | None,
            Field(description="Only memories whose content holds this text (case ignored)."),
        ] = None,
        limit: Annotated[
            int,
            Field(ge=1, le=MAX_LIMIT, description=f"How many at most, 1 to {MAX_LIMIT}."),
        ] = 50,
        offset: Annotated[int, Field(ge=0, description="Skip this many first (paging).")] = 0,
        group: _Group = None,
    ) -> list[dict[str, Any]]:
        """The memories in the file, strongest first, filtered by section, category, group
        and text."""
        if not text:
            chosen = call(memory.list_entries, section, category, 0.0, limit, offset, group)
        else:
            holding = {e.id for e in call(memory.find, text)}
            listed = call(memory.list_entries, section, category, 0.0, None, 0, group)
            chosen = [e for e in listed if e.id in holding][offset : offset + limit]
        return [_brief(e) for e in chosen]

    @server.tool(title="Remember", annotations=_ADDS)
    def remember(
        content: Annotated[
            str, Field(description="One sentence about the user, e.g. 'The user prefers tea'.")
        ],
        category: Annotated[Category, Field(description="The kind of memory.")] = "fact",
        importance: Annotated[
            Importance, Field(description="Sets the starting score: high 0.8, medium 0.6, low 0.4.")
        ] = "medium",
        group: Annotated[
            str | None,
            Field(description="The area it belongs to, e.g. work or life (default: guessed)."),
        ] = None,
    ) -> dict[str, Any]:
        """Keep a memory about the user (one sentence), or reinforce the one that says it."""
        if not content.strip():
            raise ToolError("nothing remembered: the content is empty; give one sentence")
        entry, result = call(memory.remember, content, category, importance, "mcp", group)
        return {**_brief(entry), "new": bool(result.stats.new)}

    @server.tool(title="Mark memories used", annotations=_ADDS)
    def mark_used(
        ids: Annotated[
            list[str], Field(description="The ids of the memories that helped (from recall).")
        ],
    ) -> list[dict[str, Any]]:
        """Say these memories (ids from recall_memory) helped answer the user: they are
        reinforced, so they stay strong and come first in later sessions."""
        used = call(memory.mark_used, [i.strip("[] ") for i in ids])
        return [{"id": e.id, "score": round(e.score, 4), "hits": e.activation_count} for e in used]

    @server.tool(title="Correct a memory", annotations=_REPLACES)
    def update_memory(
        id: _Id,
        content: Annotated[
            str | None, Field(description="The corrected sentence (default: unchanged).")
        ] = None,
        category: Annotated[
            Category | None, Field(description="The new category (default: unchanged).")
        ] = None,
        score: Annotated[
            float | None,
            Field(ge=0.0, le=1.0, description="The new score, 0 to 1 (default: unchanged)."),
        ] = None,
        group: Annotated[
            str | None,
            Field(description="The new group, e.g. work or life; 'none' removes it."),
        ] = None,
    ) -> dict[str, Any]:
        """Correct a memory in place: its content, category, score or group; the rest is
        kept."""
        if content is not None and not content.strip():
            raise ToolError("nothing updated: the new content is empty; use forget to delete")
        return _full(call(memory.update, id.strip("[] "), content, category, score, group))

    @server.tool(title="Forget a memory", annotations=_REPLACES)
    def forget(id: _Id) -> dict[str, Any]:
        """Delete the memory with this id (ids come from recall_memory or list_memories)."""
        entry = call(memory.forget, id.strip("[] "))
        return {"id": entry.id, "content": entry.content, "forgotten": True}

    return server


def serve(memory_path: str | os.PathLike[str]) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(memory_path).run("stdio")
