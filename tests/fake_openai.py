"""A local stand-in for an OpenAI-compatible chat completions server, on 127.0.0.1, for tests.

It answers each POST /v1/chat/completions with the next scripted reply and records every
request, so tests run the real ``openai`` SDK (retries, errors, parsing) without a network.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_anthropic import Reply


def completion(text: str | None, finish_reason: str = "stop", refusal: str | None = None) -> Reply:
    """A successful chat completion whose message is ``text`` (or a refusal)."""
    return Reply(
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": "test-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": refusal},
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        },
    )


def answer(memories: list[dict[str, Any]], confirmed_ids: tuple[str, ...] = ()) -> Reply:
    """A structured extraction answer."""
    return completion(json.dumps({"memories": memories, "confirmed_ids": list(confirmed_ids)}))


def error(status: int, text: str = "error") -> Reply:
    """An error answer, as OpenAI-compatible servers give it."""
    return Reply(status, {"error": {"message": text, "type": "error", "code": None}})


class FakeOpenAI:
    """The server: ``url`` to point a client at (``/v1`` included), ``requests`` received,
    ``replies`` to give."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = fake.replies.pop(0) if fake.replies else error(500, "no reply scripted")
                if reply.delay:
                    time.sleep(reply.delay)
                data = json.dumps(reply.body).encode() if reply.raw is None else reply.raw
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.kind)
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
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def calls(self) -> int:
        return len(self.requests)


@contextmanager
def fake_openai() -> Iterator[FakeOpenAI]:
    """Run a :class:`FakeOpenAI` for the duration of the block."""
    fake = FakeOpenAI()
    fake.thread.start()
    try:
        yield fake
    finally:
        fake.server.shutdown()
        fake.server.server_close()
        fake.thread.join(timeout=5)
