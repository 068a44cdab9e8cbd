"""The anthropic backend: one Claude Messages call per session, with structured output.

It keeps the contract in :mod:`everbot_memory.extract.contract`. The client is a seam: tests
pass ``anthropic.Anthropic(base_url=<local server>)`` so the real SDK code path (retries,
errors, parsing) runs. The SDK is imported on first use: importing it takes over a second.

An answer that cannot be used (not the schema, cut short at ``max_tokens``, no structured
result) raises :class:`ExtractionError` like an API error: nothing is merged, and the session
is not recorded as read, so it is extracted again later. Each request waits at most
``EVERBOT_MEMORY_TIMEOUT`` seconds (default 60) and is tried at most ``1 + max_retries``
times, so a silent server is given up on after about three times the timeout.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..core.candidate import Candidate
from ..errors import ExtractionError
from .contract import (
    SUMMARY_PROMPT,
    SYSTEM_PROMPT,
    ExtractionAnswer,
    chunks,
    conversation_for,
    extraction_request,
    read_answer,
)
from .conversation import Messages

if TYPE_CHECKING:
    import anthropic

__all__ = ["DEFAULT_MODEL", "DEFAULT_TIMEOUT", "ClaudeExtractor", "timeout_setting"]

DEFAULT_MODEL = "claude-sonnet-5-5"
#: Seconds one request may take when ``EVERBOT_MEMORY_TIMEOUT`` is not set.
DEFAULT_TIMEOUT = 60.0


def timeout_setting() -> float:
    """``EVERBOT_MEMORY_TIMEOUT`` in seconds (default :data:`DEFAULT_TIMEOUT`)."""
    raw = os.environ.get("EVERBOT_MEMORY_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ExtractionError(f"EVERBOT_MEMORY_TIMEOUT={raw!r} is not a number of seconds")
    return value


def _sdk() -> Any:
    """The anthropic module; :class:`ExtractionError` naming the extra when it is missing."""
    try:
        import anthropic
    except ImportError as exc:
        raise ExtractionError(
            "the claude extractor needs the 'claude' extra: pip install -e '.[claude]' "
            "(or use --extractor rules)"
        ) from exc
    return anthropic


class ClaudeExtractor:
    """Extraction with one Claude Messages call per session (structured output).

    ``client`` is any ``anthropic.Anthropic`` instance (tests point one at a local server);
    by default one is made from ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``, waiting
    ``timeout`` seconds per request (default: ``EVERBOT_MEMORY_TIMEOUT``, else 60).
    """

    def __init__(
        self,
        client: anthropic.Anthropic | None = None,
        *,
        model: str | None = None,
        max_tokens: int = 2_048,
        timeout: float | None = None,
        max_retries: int = 2,
    ) -> None:
        self.model = model or os.environ.get("EVERBOT_MEMORY_MODEL") or DEFAULT_MODEL
        self.max_tokens = max_tokens
        self._client = client
        self._timeout = timeout
        self._max_retries = max_retries
        self.warnings: list[str] = []
        self.calls = 0  # API calls made by the last extract()

    @property
    def client(self) -> anthropic.Anthropic:
        """The SDK client (made on first use: importing the SDK takes over a second)."""
        if self._client is None:
            anthropic = _sdk()
            if not os.environ.get("ANTHROPIC_API_KEY"):
                raise ExtractionError(
                    "ANTHROPIC_API_KEY is not set; set it, or use the offline extractor "
                    "(--extractor rules)"
                )
            timeout = self._timeout if self._timeout is not None else timeout_setting()
            self._client = anthropic.Anthropic(timeout=timeout, max_retries=self._max_retries)
        return self._client

    def extract(self, messages: Messages, existing_summary: str = "") -> list[Candidate]:
        """Candidates for one finished session; raises :class:`ExtractionError` on API errors
        and on an answer it cannot use (malformed, not the schema, cut short), so that nothing
        is written and closing the session again retries it."""
        self.warnings = []
        self.calls = 0
        conversation, long = conversation_for(messages)
        if not conversation.strip():
            return []
        if long:
            conversation = self._compress(conversation)
        response = self._call(
            "parse",
            system=[
                {"type": "text", "text": SYSTEM_PROMPT, "cache_control": {"type": "ephemeral"}}
            ],
            messages=[
                {
                    "role": "user",
                    "content": extraction_request(messages, conversation, existing_summary),
                }
            ],
            output_format=ExtractionAnswer,
        )
        candidates, warnings = read_answer(self._answer(response), existing_summary)
        self.warnings += warnings
        return candidates

    def _answer(self, response: Any) -> ExtractionAnswer:
        parsed = getattr(response, "parsed_output", None)
        stop = getattr(response, "stop_reason", None)
        if isinstance(parsed, ExtractionAnswer):
            return parsed
        if stop == "max_tokens":
            raise ExtractionError(
                f"the model's answer was cut short at max_tokens ({self.max_tokens}); "
                "nothing saved; closing the session again retries"
            )
        raise ExtractionError(
            f"the model's answer had no structured result (stop reason: {stop}); "
            "nothing saved; closing the session again retries"
        )

    def _compress(self, conversation: str) -> str:
        """The seed's SessionCompressor: summarize a long conversation before extraction."""
        summaries = []
        for chunk in chunks(conversation):
            response = self._call(
                "create",
                system=SUMMARY_PROMPT,
                messages=[{"role": "user", "content": chunk}],
            )
            text = "".join(
                getattr(block, "text", "") for block in getattr(response, "content", [])
            ).strip()
            summaries.append(text)
        return "Earlier in this session (summary): " + "\n\n".join(s for s in summaries if s)

    def _call(self, method: str, **kwargs: Any) -> Any:
        anthropic = _sdk()
        client = self.client
        self.calls += 1
        call = client.messages.parse if method == "parse" else client.messages.create
        try:
            return call(model=self.model, max_tokens=self.max_tokens, **kwargs)
        except ValidationError as exc:
            # messages.parse validates the model's JSON against the schema. JSON that ends
            # too soon is an answer cut at max_tokens: the schema makes the model write JSON.
            cut = any(e["type"] == "json_invalid" and "EOF" in e["msg"] for e in exc.errors())
            problem = (
                f"was cut short at max_tokens ({self.max_tokens})"
                if cut
                else f"did not match the memory schema ({exc.error_count()} errors)"
            )
            raise ExtractionError(
                f"the model's answer {problem}; nothing saved; closing the session again retries"
            ) from exc
        except anthropic.AuthenticationError as exc:
            raise ExtractionError(
                "the API key was rejected (401); check ANTHROPIC_API_KEY"
            ) from exc
        except anthropic.PermissionDeniedError as exc:
            raise ExtractionError(f"the API refused the request (403): {exc.message}") from exc
        except anthropic.NotFoundError as exc:
            raise ExtractionError(
                f"model {self.model!r} was not found (404); set --model or EVERBOT_MEMORY_MODEL"
            ) from exc
        except anthropic.RateLimitError as exc:
            raise ExtractionError(
                f"rate limited by the API (429) after {self._retries(client)} retries; "
                "try again later"
            ) from exc
        except anthropic.APITimeoutError as exc:
            raise ExtractionError(
                f"the API did not answer in time after {self._retries(client)} retries"
            ) from exc
        except anthropic.APIConnectionError as exc:
            raise ExtractionError(f"cannot reach the API: {exc.message}") from exc
        except anthropic.APIStatusError as exc:
            raise ExtractionError(
                f"the API failed ({exc.status_code}) after {self._retries(client)} retries: "
                f"{exc.message}"
            ) from exc

    @staticmethod
    def _retries(client: Any) -> int:
        return int(getattr(client, "max_retries", 0))
