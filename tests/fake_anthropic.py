"""A local stand-in for the Anthropic Messages API, on 127.0.0.1, for tests.

It answers each POST /v1/messages with the next scripted reply and records every request, so
tests run the real SDK (retries, errors, parsing) without a network. A request that asks for a
streamed answer (``"stream": true``, as Claude Code always does) gets the same reply as
server-sent events: ``message_start``, then per content block ``content_block_start``, one
``content_block_delta`` and ``content_block_stop``, then ``message_delta`` and ``message_stop``.
Errors are plain JSON either way, as the real API sends them before any event.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: an HTTP status, a JSON body, and an optional delay."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    delay: float = 0.0
    #: Bytes sent instead of the JSON body (a proxy's page, a body cut off), of this type.
    raw: bytes | None = None
    kind: str = "application/json"


def message(text: str, stop_reason: str = "end_turn") -> Reply:
    """A successful Messages API answer whose only content is ``text``."""
    return Reply(
        200,
        {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        },
    )


def answer(memories: list[dict[str, Any]], confirmed_ids: list[str] = ()) -> Reply:  # type: ignore[assignment]
    """A structured extraction answer."""
    return message(json.dumps({"memories": memories, "confirmed_ids": list(confirmed_ids)}))


def tool_use(name: str, arguments: dict[str, Any]) -> Reply:
    """A successful answer that calls the tool ``name`` (how Claude Code gets structured output)."""
    reply = message("")
    reply.body["content"] = [
        {"type": "tool_use", "id": "toolu_test", "name": name, "input": arguments}
    ]
    reply.body["stop_reason"] = "tool_use"
    return reply


def error(status: int, kind: str, text: str = "error") -> Reply:
    """An API error answer."""
    return Reply(status, {"type": "error", "error": {"type": kind, "message": text}})


def sse_events(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events (name, data) that stream the message ``body``."""
    usage = body.get("usage", {})
    start = {
        **body,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(body.get("content", [])):
        if block.get("type") == "tool_use":
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {**block, "text": ""}
            delta = {"type": "text_delta", "text": block.get("text", "")}
        start_block = {"type": "content_block_start", "index": index, "content_block": opening}
        events.append(("content_block_start", start_block))
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    ending = {"stop_reason": body.get("stop_reason"), "stop_sequence": body.get("stop_sequence")}
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": ending,
                "usage": {"output_tokens": usage.get("output_tokens", 0)},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _streams(request: dict[str, Any], reply: Reply) -> bool:
    """Whether ``reply`` goes out as events: a request that asks to stream, and a message."""
    return (
        request.get("stream") is True
        and reply.status == 200
        and reply.body.get("type") == "message"
    )


class FakeAnthropic:
    """The server: ``url`` to point a client at, ``requests`` received, ``replies`` to give."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        #: The path of each request, in the order of ``requests``.
        self.paths: list[str] = []
        #: Answers a request by its body instead of the next scripted reply (None: scripted).
        self.respond: Callable[[dict[str, Any]], Reply | None] | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.paths.append(self.path)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = fake.respond(body) if fake.respond else None
                if reply is None:
                    reply = fake.replies.pop(0) if fake.replies else error(500, "api_error", "none")
                if reply.delay:
                    time.sleep(reply.delay)
                if _streams(body, reply):
                    events = sse_events(reply.body)
                    text = "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in events)
                    data, kind = text.encode(), "text/event-stream"
                elif reply.raw is not None:
                    data, kind = reply.raw, reply.kind
                else:
                    data, kind = json.dumps(reply.body).encode(), "application/json"
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", kind)
                    self.send_header("content-length", str(len(data)))
                    self.send_header("retry-after-ms", "10")  # keep the SDK's retries quick
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll lets shutdown() return at once instead of after up to half a second.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def calls(self) -> int:
        return len(self.requests)


@contextmanager
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """Run a :class:`FakeAnthropic` for the duration of the block."""
    fake = FakeAnthropic()
    fake.thread.start()
    try:
        yield fake
    finally:
        fake.server.shutdown()
        fake.server.server_close()
        fake.thread.join(timeout=5)
