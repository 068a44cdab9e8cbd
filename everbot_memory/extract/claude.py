"""The anthropic backend: the Messages API (Anthropic's, or a compatible server's) with
structured output.

It runs the flow of :mod:`everbot_memory.extract.llm` and keeps the contract of
:mod:`everbot_memory.extract.contract`. The client is a seam: tests pass
``anthropic.Anthropic(base_url=<local server>)`` so the real SDK code path (retries, errors,
parsing) runs. The SDK is imported on first use: importing it takes over a second.

``base_url`` points it at an Anthropic-compatible server (Ollama 0.14 and later, llama.cpp's
server); those take any key, so with a base URL and no key set a placeholder is sent. Each
request waits at most ``timeout`` seconds and is tried at most ``1 + max_retries`` times, so a
silent server is given up on after about three times the timeout.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..errors import AnswerError, ExtractionError
from .llm import (
    CHECK_TIMEOUT,
    RETRY_LATER,
    Call,
    Reply,
    SdkExtractor,
    cut_short,
    not_json,
    not_the_api,
    refused,
    retried,
    unreachable,
)

if TYPE_CHECKING:
    import anthropic

__all__ = ["DEFAULT_MODEL", "AnthropicExtractor", "ClaudeExtractor"]

DEFAULT_MODEL = "claude-sonnet-5-5"
#: The key sent to a compatible server that takes any (it must not be empty).
LOCAL_KEY = "local"


def _sdk() -> Any:
    """The anthropic module; :class:`ExtractionError` naming the extra when it is missing."""
    try:
        import anthropic
    except ImportError as exc:
        raise ExtractionError(
            "the anthropic extractor needs the 'claude' extra: pip install -e '.[claude]' "
            "(or use --extractor rules)"
        ) from exc
    return anthropic


class AnthropicExtractor(SdkExtractor):
    """Extraction with one Messages API call per session (structured output).

    ``client`` (and ``async_client``) are any ``anthropic.Anthropic`` / ``AsyncAnthropic``
    (tests point them at a local server); by default they are made from
    ``ANTHROPIC_API_KEY``, and ``base_url`` (else ``ANTHROPIC_BASE_URL``).
    """

    name = "anthropic"
    _client: anthropic.Anthropic | None
    _async_client: anthropic.AsyncAnthropic | None

    def __init__(
        self,
        client: anthropic.Anthropic | None = None,
        *,
        async_client: anthropic.AsyncAnthropic | None = None,
        model: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 2_048,
        timeout: float | None = None,
        max_retries: int = 2,
    ) -> None:
        super().__init__(
            client,
            async_client=async_client,
            model=model or DEFAULT_MODEL,
            base_url=base_url,
            max_tokens=max_tokens,
            timeout=timeout,
            max_retries=max_retries,
        )

    def _options(self) -> dict[str, Any]:
        base_url = self.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        keyed = os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")
        if not keyed and not base_url:
            raise ExtractionError(
                "ANTHROPIC_API_KEY is not set; set it, or use the offline extractor "
                "(--extractor rules)"
            )
        options: dict[str, Any] = {"timeout": self.timeout, "max_retries": self._max_retries}
        if base_url:
            options["base_url"] = base_url
        if not keyed:
            options["api_key"] = LOCAL_KEY  # a compatible server takes any key
        return options

    @property
    def client(self) -> anthropic.Anthropic:
        """The SDK client (made on first use: importing the SDK takes over a second)."""
        if self._client is None:
            self._client = _sdk().Anthropic(**self._options())
        return self._client

    @property
    def async_client(self) -> anthropic.AsyncAnthropic:
        """The async SDK client, made on first use like :attr:`client`."""
        if self._async_client is None:
            self._async_client = _sdk().AsyncAnthropic(**self._options())
        return self._async_client

    def _request(self, call: Call) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [{"role": role, "content": text} for role, text in call.turns],
        }
        if call.structured:
            # The instructions are the same every session: cached, they cost a tenth.
            request["system"] = [
                {"type": "text", "text": call.system, "cache_control": {"type": "ephemeral"}}
            ]
            request["output_config"] = {
                "format": {"type": "json_schema", "schema": call.answer_schema()}
            }
        else:
            request["system"] = call.system
        return request

    def _send(self, call: Call) -> Reply:
        client = self.client
        with self._errors(client):
            response = client.messages.create(**self._request(call))
        return self._reply(response, call)

    async def _asend(self, call: Call) -> Reply:
        client = self.async_client
        with self._errors(client):
            response = await client.messages.create(**self._request(call))
        return self._reply(response, call)

    def _reply(self, response: Any, call: Call) -> Reply:
        stop = getattr(response, "stop_reason", None)
        if stop == "refusal":
            raise refused("the Messages API stopped with stop reason 'refusal'")
        if stop == "max_tokens":
            raise cut_short(self.max_tokens)
        text = "".join(
            getattr(block, "text", "") for block in getattr(response, "content", None) or []
        )
        if call.structured and not text.strip():
            raise AnswerError(
                "the model's answer was empty",
                f"the model's answer had no structured result (stop reason: {stop}); {RETRY_LATER}",
            )
        return text

    def check(self) -> str:
        """One request of one token, so a wrong key, URL or model shows now."""
        client = self.client.with_options(max_retries=0, timeout=min(self.timeout, CHECK_TIMEOUT))
        with self._errors(client):
            response = client.messages.create(
                model=self.model, max_tokens=1, messages=[{"role": "user", "content": "ping"}]
            )
        if not isinstance(getattr(response, "content", None), list):
            raise not_the_api("Messages", client.base_url)
        return f"model {self.model} answered at {client.base_url}"

    @contextlib.contextmanager
    def _errors(self, client: Any) -> Iterator[None]:
        """The SDK's errors as one line each (sync and async calls raise the same ones)."""
        anthropic = _sdk()
        retries, seconds = self._patience(client)
        try:
            yield
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
                f"rate limited by the API (429){retried(retries)}; try again later"
            ) from exc
        except anthropic.APITimeoutError as exc:
            raise ExtractionError(
                f"the API did not answer in time ({seconds:g} s){retried(retries)}"
            ) from exc
        except anthropic.APIConnectionError as exc:
            raise unreachable("Messages API", exc.message) from exc
        except anthropic.APIStatusError as exc:
            raise ExtractionError(
                f"the API failed ({exc.status_code}){retried(retries)}: {exc.message}"
            ) from exc
        except json.JSONDecodeError as exc:
            raise not_json(exc) from exc


#: The name this backend had first; kept for callers that use it.
ClaudeExtractor = AnthropicExtractor
