"""The anthropic backend: one Claude Messages call per session, with structured output.

It keeps the contract in :mod:`everbot_memory.extract.contract`. The client is a seam: tests
pass ``anthropic.Anthropic(base_url=<local server>)`` so the real SDK code path (retries,
errors, parsing) runs. The SDK is imported on first use: importing it takes over a second.
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

__all__ = ["DEFAULT_MODEL", "ClaudeExtractor"]

DEFAULT_MODEL = "claude-sonnet-5-5"


class ClaudeExtractor:
    """Extraction with one Claude Messages call per session (structured output).

    ``client`` is any ``anthropic.Anthropic`` instance (tests point one at a local server);
    by default one is made from ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``.
    """

    def __init__(
        self,
        client: anthropic.Anthropic | None = None,
        *,
        model: str | None = None,
        max_tokens: int = 2_048,
        timeout: float = 60.0,
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
            import anthropic

            if not os.environ.get("ANTHROPIC_API_KEY"):
                raise ExtractionError(
                    "ANTHROPIC_API_KEY is not set; set it, or use the offline extractor "
                    "(--extractor rules)"
                )
            self._client = anthropic.Anthropic(timeout=self._timeout, max_retries=self._max_retries)
        return self._client

    def extract(self, messages: Messages, existing_summary: str = "") -> list[Candidate]:
        """Candidates for one finished session; raises :class:`ExtractionError` on API errors.

        A malformed or schema-violating answer is not an error: it leaves a warning and no
        candidates, so nothing is written.
        """
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
        if response is None:
            return []
        answer = self._answer(response)
        if answer is None:
            return []
        candidates, warnings = read_answer(answer, existing_summary)
        self.warnings += warnings
        return candidates

    def _answer(self, response: Any) -> ExtractionAnswer | None:
        parsed = getattr(response, "parsed_output", None)
        if isinstance(parsed, ExtractionAnswer):
            return parsed
        self.warnings.append(
            "the model's answer had no structured result "
            f"(stop reason: {getattr(response, 'stop_reason', None)}); no memories taken"
        )
        return None

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
        import anthropic

        client = self.client
        self.calls += 1
        call = client.messages.parse if method == "parse" else client.messages.create
        try:
            return call(model=self.model, max_tokens=self.max_tokens, **kwargs)
        except ValidationError as exc:
            # messages.parse validates the model's JSON against the schema; a bad answer is
            # the model's mistake, not the user's: report it and take no memories.
            self.warnings.append(
                f"the model's answer did not match the memory schema ({exc.error_count()} "
                "errors); no memories taken"
            )
            return None
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
