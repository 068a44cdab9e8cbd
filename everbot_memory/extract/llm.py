"""The one session flow every LLM backend runs, sync or async.

The flow is a generator: it yields each request (:class:`Call`) and is sent the model's reply,
so the steps (summarize a long conversation, extract, check the answer, ask once more when it
is unusable) are written once, and a backend only says how one request is sent, with a
blocking client (:meth:`LLMExtractor._send`) and an async one (:meth:`LLMExtractor._asend`).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.candidate import Candidate
from ..errors import AnswerError, ExtractionError
from .contract import (
    CONDENSE_PROMPT,
    SUMMARY_PROMPT,
    SYSTEM_PROMPT,
    NoteAnswer,
    answer_schema,
    check_answer,
    check_condensed,
    chunks,
    condense_request,
    condense_schema,
    conversation_for,
    extraction_request,
    read_answer,
    repair_request,
)
from .conversation import Messages

__all__ = [
    "CHECK_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "RETRY_LATER",
    "Call",
    "LLMExtractor",
    "Reply",
    "SdkExtractor",
    "cut_short",
    "not_json",
    "not_the_api",
    "refused",
    "retried",
    "session_flow",
    "unreachable",
]

#: Seconds one request may take when no ``timeout`` is set.
DEFAULT_TIMEOUT = 60.0
#: Seconds a check of the backend (``doctor --check-backend``) waits at most.
CHECK_TIMEOUT = 15.0
#: How every unusable answer's message ends: what happened to the file, and what comes next.
RETRY_LATER = "nothing saved; closing the session again retries"

#: What a backend got back: the answer's text, or the object a structured-output API parsed.
Reply = str | Mapping[str, Any]


@dataclass(frozen=True)
class Call:
    """One request: the system prompt, the turns as ``(role, text)``, and whether the answer
    is structured (else plain text, a summary): the extraction answer, or ``schema``."""

    system: str
    turns: tuple[tuple[str, str], ...]
    structured: bool
    schema: Mapping[str, Any] | None = None

    def answer_schema(self) -> dict[str, Any]:
        """The JSON schema the structured answer must match."""
        return dict(self.schema) if self.schema is not None else answer_schema()


def session_flow(
    messages: Messages, existing_summary: str
) -> Generator[Call, Reply, tuple[list[Candidate], list[str], NoteAnswer | None]]:
    """Yield the session's requests, receive their replies; return the candidates, the
    warnings and the model's note of the session. One extraction call (plus one summary call
    a chunk for a long conversation, plus one repair call when the answer is unusable)."""
    conversation, long = conversation_for(messages)
    if not conversation.strip():
        return [], [], None
    if long:
        summaries = []
        for chunk in chunks(conversation):
            summary = yield Call(SUMMARY_PROMPT, (("user", chunk),), structured=False)
            summaries.append(_text(summary).strip())
        conversation = "Earlier in this session (summary): " + "\n\n".join(
            s for s in summaries if s
        )
    turns: tuple[tuple[str, str], ...] = (
        ("user", extraction_request(messages, conversation, existing_summary)),
    )
    reply = yield Call(SYSTEM_PROMPT, turns, structured=True)
    try:
        answer = check_answer(reply, existing_summary)
    except AnswerError as problem:
        # One more try, told what was wrong: a model that slipped once usually gets it right.
        turns += (("assistant", _text(reply) or "(empty)"), ("user", repair_request(problem)))
        reply = yield Call(SYSTEM_PROMPT, turns, structured=True)
        try:
            answer = check_answer(reply, existing_summary)
        except AnswerError as again:
            raise AnswerError(
                again.problem, f"{again.problem}, again after one repair request; {RETRY_LATER}"
            ) from again
    candidates, warnings = read_answer(answer, existing_summary)
    return candidates, warnings, answer.session_note


def _text(reply: Reply) -> str:
    if isinstance(reply, str):
        return reply
    import json

    return json.dumps(dict(reply), ensure_ascii=False)


class LLMExtractor:
    """What every LLM backend shares: ``extract`` and ``aextract`` running
    :func:`session_flow`, the count of requests made, and the warnings of the last run."""

    #: The backend's name, as the user chooses it.
    name = "llm"

    def __init__(self, *, model: str, timeout: float | None = None) -> None:
        self.model = model
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self.warnings: list[str] = []
        self.calls = 0  # requests made by the last extract()
        #: The model's note of the last session it read (None: it gave none).
        self.session_note: NoteAnswer | None = None

    def extract(self, messages: Messages, existing_summary: str = "") -> list[Candidate]:
        """Candidates for one finished session; :class:`ExtractionError` (an
        :class:`AnswerError` for an unusable answer) when nothing may be merged."""
        self.warnings, self.calls, self.session_note = [], 0, None
        flow = session_flow(messages, existing_summary)
        try:
            call = next(flow)
            while True:
                self.calls += 1
                call = flow.send(self._send(call))
        except StopIteration as done:
            return self._done(done.value)

    async def aextract(self, messages: Messages, existing_summary: str = "") -> list[Candidate]:
        """:meth:`extract` with the backend's async client, in the caller's event loop."""
        self.warnings, self.calls, self.session_note = [], 0, None
        flow = session_flow(messages, existing_summary)
        try:
            call = next(flow)
            while True:
                self.calls += 1
                call = flow.send(await self._asend(call))
        except StopIteration as done:
            return self._done(done.value)

    def condense(self, groups: list[list[str]]) -> list[str]:
        """One sentence for each group of related memories (``consolidate``), from one
        request, asked once more when the answer is unusable; :class:`ExtractionError` (an
        :class:`AnswerError`) when it stays unusable."""
        self.warnings, self.calls = [], 0
        if not groups:
            return []
        turns: tuple[tuple[str, str], ...] = (("user", condense_request(groups)),)
        call = Call(CONDENSE_PROMPT, turns, structured=True, schema=condense_schema())
        self.calls += 1
        reply = self._send(call)
        try:
            return check_condensed(reply, len(groups))
        except AnswerError as problem:
            turns += (("assistant", _text(reply) or "(empty)"), ("user", problem.problem))
            self.calls += 1
            reply = self._send(Call(CONDENSE_PROMPT, turns, structured=True, schema=call.schema))
            return check_condensed(reply, len(groups))

    def _done(
        self, result: tuple[list[Candidate], list[str], NoteAnswer | None]
    ) -> list[Candidate]:
        candidates, warnings, self.session_note = result
        self.warnings += warnings
        return candidates

    def _send(self, call: Call) -> Reply:
        """Send one request and return the model's reply; raise :class:`ExtractionError`."""
        raise NotImplementedError

    async def _asend(self, call: Call) -> Reply:
        """:meth:`_send` without blocking the event loop."""
        raise NotImplementedError

    def check(self) -> str:
        """A cheap request proving the backend answers; a line saying what answered."""
        raise NotImplementedError


def refused(detail: str) -> AnswerError:
    """The error for a model that declined to answer."""
    return AnswerError("the model refused to answer", f"the model refused: {detail}; {RETRY_LATER}")


def cut_short(limit: int) -> AnswerError:
    """The error for an answer cut at the output limit."""
    return AnswerError(
        "the answer was cut short",
        f"the model's answer was cut short at max_tokens ({limit}); {RETRY_LATER}",
    )


def unreachable(backend: str, detail: str) -> ExtractionError:
    """The error for a backend that could not be reached at all."""
    return ExtractionError(f"cannot reach the {backend} server: {detail}")


def retried(retries: int) -> str:
    """How many retries an error message says were made (none said when none were)."""
    return f" after {retries} retries" if retries else ""


def not_json(exc: ValueError) -> ExtractionError:
    """The error for an answer whose body is not JSON (a proxy's page, a server cut off)."""
    return ExtractionError(f"the server's answer is not JSON ({exc}); {RETRY_LATER}")


def not_the_api(backend: str, url: object) -> ExtractionError:
    """The error for a server that answers, but not as the API does (a web page, say)."""
    return ExtractionError(f"{url} answered, but not as the {backend} API does; check --base-url")


class SdkExtractor(LLMExtractor):
    """An LLM backend over an HTTP SDK: the clients (given ready-made, or made on first use
    from ``base_url``), the answer's size, and how many retries the SDK makes."""

    def __init__(
        self,
        client: Any = None,
        *,
        async_client: Any = None,
        model: str,
        base_url: str | None = None,
        max_tokens: int = 2_048,
        timeout: float | None = None,
        max_retries: int = 2,
    ) -> None:
        super().__init__(model=model, timeout=timeout)
        self.base_url = base_url
        self.max_tokens = max_tokens
        self._client = client
        self._async_client = async_client
        self._max_retries = max_retries

    def _patience(self, client: Any) -> tuple[int, float]:
        """How many retries ``client`` makes and how long it waits for each answer, for the
        error messages (a client given ready-made has its own)."""
        waited = getattr(client, "timeout", None)
        seconds = waited if isinstance(waited, (int, float)) else self.timeout
        return int(getattr(client, "max_retries", 0)), float(seconds)
