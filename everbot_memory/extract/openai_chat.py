"""The openai backend: any OpenAI-compatible chat completions server (OpenAI, Ollama, llama.cpp,
vLLM, LM Studio) through the ``openai`` SDK, with structured output.

It runs the flow of :mod:`everbot_memory.extract.llm` and keeps the contract of
:mod:`everbot_memory.extract.contract`. The answer is asked for with the contract's JSON schema
(``response_format`` ``json_schema``); a server that rejects that (400) is asked again in JSON
mode (``json_object``, the schema then given in the system prompt), and either answer goes
through the same check. The SDK is imported on first use.
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
    import openai

__all__ = ["DEFAULT_MODEL", "OpenAIExtractor"]

DEFAULT_MODEL = "gpt-4o-mini"
#: The key sent to a local server that takes any (the SDK refuses to start without one).
LOCAL_KEY = "local"
OPENAI_EXTRA = "pip install -e '.[openai]'"


def _sdk() -> Any:
    """The openai module; :class:`ExtractionError` naming the extra when it is missing."""
    try:
        import openai
    except ImportError as exc:
        raise ExtractionError(
            f"the openai extractor needs the 'openai' extra: {OPENAI_EXTRA} "
            "(or use --extractor rules)"
        ) from exc
    return openai


class OpenAIExtractor(SdkExtractor):
    """Extraction with one chat completions call per session (structured output).

    ``client`` (and ``async_client``) are any ``openai.OpenAI`` / ``AsyncOpenAI``; by default
    they are made from ``base_url`` (else ``OPENAI_BASE_URL``) and ``OPENAI_API_KEY``, which a
    local server does not need.
    """

    name = "openai"
    _client: openai.OpenAI | None
    _async_client: openai.AsyncOpenAI | None

    def __init__(
        self,
        client: openai.OpenAI | None = None,
        *,
        async_client: openai.AsyncOpenAI | None = None,
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
        #: ``json_schema`` until the server says it does not take it, then ``json_object``.
        self.mode = "json_schema"

    def _options(self) -> dict[str, Any]:
        base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = os.environ.get("OPENAI_API_KEY")
        if not key and not base_url:
            raise ExtractionError(
                "OPENAI_API_KEY is not set; set it, or give a local server's --base-url"
            )
        return {
            "api_key": key or LOCAL_KEY,
            "base_url": base_url,
            "timeout": self.timeout,
            "max_retries": self._max_retries,
        }

    @property
    def client(self) -> openai.OpenAI:
        """The SDK client (made on first use)."""
        if self._client is None:
            self._client = _sdk().OpenAI(**self._options())
        return self._client

    @property
    def async_client(self) -> openai.AsyncOpenAI:
        """The async SDK client, made on first use like :attr:`client`."""
        if self._async_client is None:
            self._async_client = _sdk().AsyncOpenAI(**self._options())
        return self._async_client

    def _request(self, call: Call) -> dict[str, Any]:
        system = call.system
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens}
        if call.structured and self.mode == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "extraction_answer",
                    "schema": call.answer_schema(),
                    "strict": True,
                },
            }
        elif call.structured:
            request["response_format"] = {"type": "json_object"}
            system += "\n\nAnswer with one JSON object matching this JSON schema:\n" + json.dumps(
                call.answer_schema(), ensure_ascii=False
            )
        request["messages"] = [
            {"role": "system", "content": system},
            *({"role": role, "content": text} for role, text in call.turns),
        ]
        return request

    def _schema_refused(self, exc: Any, call: Call) -> bool:
        """True (and JSON mode from now on) when a server rejected the schema request."""
        if call.structured and self.mode == "json_schema":
            self.mode = "json_object"
            self.warnings.append(
                f"the server rejected a JSON-schema request ({exc.message}); using JSON mode"
            )
            return True
        return False

    def _send(self, call: Call) -> Reply:
        client = self.client
        with self._errors(client):
            try:
                response = client.chat.completions.create(**self._request(call))
            except _sdk().BadRequestError as exc:
                if not self._schema_refused(exc, call):
                    raise
                response = client.chat.completions.create(**self._request(call))
        return self._reply(response)

    async def _asend(self, call: Call) -> Reply:
        client = self.async_client
        with self._errors(client):
            try:
                response = await client.chat.completions.create(**self._request(call))
            except _sdk().BadRequestError as exc:
                if not self._schema_refused(exc, call):
                    raise
                response = await client.chat.completions.create(**self._request(call))
        return self._reply(response)

    def _reply(self, response: Any) -> Reply:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise AnswerError(
                "the model's answer was empty",
                f"the server answered with no choices; {RETRY_LATER}",
            )
        choice = choices[0]
        message = choice.message
        if getattr(message, "refusal", None):
            raise refused(" ".join(str(message.refusal).split()))
        if choice.finish_reason == "length":
            raise cut_short(self.max_tokens)
        return message.content or ""

    def check(self) -> str:
        """One request of one token, so a wrong key, URL or model shows now."""
        client = self.client.with_options(max_retries=0, timeout=min(self.timeout, CHECK_TIMEOUT))
        with self._errors(client):
            response = client.chat.completions.create(
                model=self.model, max_tokens=1, messages=[{"role": "user", "content": "ping"}]
            )
        if not isinstance(getattr(response, "choices", None), list):
            raise not_the_api("OpenAI-compatible", client.base_url)
        return f"model {self.model} answered at {client.base_url}"

    @contextlib.contextmanager
    def _errors(self, client: Any) -> Iterator[None]:
        """The SDK's errors as one line each (sync and async calls raise the same ones)."""
        openai = _sdk()
        retries, seconds = self._patience(client)
        try:
            yield
        except openai.BadRequestError as exc:
            raise ExtractionError(f"the server rejected the request (400): {exc.message}") from exc
        except openai.AuthenticationError as exc:
            raise ExtractionError("the API key was rejected (401); check OPENAI_API_KEY") from exc
        except openai.PermissionDeniedError as exc:
            raise ExtractionError(f"the server refused the request (403): {exc.message}") from exc
        except openai.NotFoundError as exc:
            raise ExtractionError(
                f"model {self.model!r} was not found (404) at {client.base_url}; "
                "set --model or EVERBOT_MEMORY_MODEL"
            ) from exc
        except openai.RateLimitError as exc:
            raise ExtractionError(
                f"rate limited by the server (429){retried(retries)}; try again later"
            ) from exc
        except openai.APITimeoutError as exc:
            raise ExtractionError(
                f"the server did not answer in time ({seconds:g} s){retried(retries)}"
            ) from exc
        except openai.APIConnectionError as exc:
            raise unreachable("OpenAI-compatible", f"{exc.message} ({client.base_url})") from exc
        except openai.APIStatusError as exc:
            raise ExtractionError(
                f"the server failed ({exc.status_code}){retried(retries)}: {exc.message}"
            ) from exc
        except json.JSONDecodeError as exc:
            raise not_json(exc) from exc
