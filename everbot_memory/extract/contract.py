"""The contract every LLM extractor keeps (seed §4): one prompt, one answer schema, one check.

One call per session close: the conversation and the strongest known memories as ``[id]
content`` lines go in; new memories (content, category, importance, expiry, contradicted ids)
and the ids the conversation confirms or asks to forget come out, as structured output
validated by pydantic. A conversation over about 8,000 tokens is summarized first.

Every backend asks for :func:`answer_schema` and passes what comes back through
:func:`check_answer`: an answer that is not JSON, not the schema, or names ids that are not
known raises :class:`AnswerError`, and the model is asked once more with the problem
(:func:`repair_request`) before the session's extraction fails.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ..core.candidate import Candidate
from ..core.entry import Category, Importance
from ..core.scoring import expiry_after
from ..core.text import estimate_tokens
from ..errors import AnswerError
from .conversation import Messages, conversation_text, session_day
from .summary import parse_summary

__all__ = [
    "COMPRESS_ABOVE_TOKENS",
    "CONDENSE_PROMPT",
    "SUMMARY_PROMPT",
    "SYSTEM_PROMPT",
    "CondenseAnswer",
    "ExtractedMemory",
    "ExtractionAnswer",
    "NoteAnswer",
    "answer_schema",
    "check_answer",
    "check_condensed",
    "chunks",
    "condense_request",
    "condense_schema",
    "conversation_for",
    "extraction_request",
    "read_answer",
    "repair_request",
    "strict_schema",
]

#: A conversation estimated above this many tokens is summarized before extraction.
COMPRESS_ABOVE_TOKENS = 8_000
#: The most a summary call is given at once.
CHUNK_TOKENS = 60_000

SYSTEM_PROMPT = """You maintain the long-term memory of an AI assistant about its user.
Read the conversation and extract what is worth remembering across sessions: stable
preferences, facts about the user and their work, decisions, habits and workflows, lessons
learned about how to handle recurring problems, how the user uses the assistant, and todos
with their dates.

Rules:
- One short sentence per memory, about the user ("The user prefers ..."), written in the
  language the user said it in (Chinese stays Chinese: "用户喜欢……").
- Only what the conversation supports. No guesses, no small talk, nothing the assistant said
  unless the user confirmed it.
- Never include secrets: API keys, tokens, passwords, private keys.
- importance: high for identity, explicit "remember this" requests, strong preferences and
  decisions; medium for ordinary preferences and habits; low for passing details.
- category: preference, fact, experience, workflow, decision, skill_usage or todo.
- Existing memories are listed as "[id] content". Do not repeat them as new memories: if the
  conversation mentions or confirms one, put its id in confirmed_ids instead. If the user
  asks to forget one ("forget that ...", "忘掉……"), put its id in forget_ids. If a new
  memory replaces an existing one (the user moved, changed a tool or a preference), list the
  old id in that memory's contradicts.
- For a todo or anything that only holds until a date, set expires_on to its last day,
  resolving "tomorrow", "next Wednesday", "下周三" against the date of the conversation.
- group: "work" for the user's job, projects and tools, "life" for family, home, health and
  leisure, null when neither fits clearly.
- session_note is a note of this session itself, not of the user: worked_on says in one
  short phrase what was worked on; decisions lists what was decided; open_threads lists what
  was left to do next time. Same language as the conversation; empty when there is nothing.
- If nothing is worth remembering, return empty lists."""

SUMMARY_PROMPT = """Summarize this part of a conversation between a user and an AI assistant
for later memory extraction. Keep every statement the user made about themselves, their
preferences, work, decisions, habits, plans and dates, in the user's own language. Drop code,
tool output and small talk. Plain text, at most 400 words."""


class ExtractedMemory(BaseModel):
    """One memory in the model's answer."""

    content: str = Field(description="One sentence about the user, in the language they used.")
    category: Category
    importance: Importance
    expires_on: date | None = Field(
        default=None,
        description="For todos and other time-limited memories: the last day it holds, "
        "as YYYY-MM-DD.",
    )
    contradicts: list[str] = Field(
        default_factory=list,
        description="Ids of existing memories this one replaces (a changed fact or preference).",
    )
    group: Literal["work", "life"] | None = Field(
        default=None, description="work, life, or null when neither fits clearly."
    )


class NoteAnswer(BaseModel):
    """The note of the session in the model's answer."""

    worked_on: str = Field(default="", description="What was worked on, one short phrase.")
    decisions: list[str] = Field(default_factory=list, description="What was decided.")
    open_threads: list[str] = Field(
        default_factory=list, description="What was left to do next time."
    )


class ExtractionAnswer(BaseModel):
    """The structured answer of the extraction call."""

    memories: list[ExtractedMemory] = Field(default_factory=list)
    session_note: NoteAnswer | None = Field(
        default=None, description="A note of this session: worked on, decisions, open threads."
    )
    confirmed_ids: list[str] = Field(
        default_factory=list, description="Ids of existing memories the conversation confirms."
    )
    forget_ids: list[str] = Field(
        default_factory=list,
        description="Ids of existing memories the user explicitly asked to forget.",
    )


def extraction_request(messages: Messages, conversation: str, existing_summary: str) -> str:
    """The user turn of the extraction call: the conversation (dated) and the known memories."""
    known = parse_summary(existing_summary)
    existing = "\n".join(f"[{entry_id}] {content}" for entry_id, content in known)
    return (
        f'<conversation date="{session_day(messages).isoformat()}">\n'
        f"{conversation}\n</conversation>\n\n"
        f"<existing_memories>\n{existing or '(none)'}\n</existing_memories>"
    )


def conversation_for(messages: Messages) -> tuple[str, bool]:
    """The conversation as text, and whether it is long enough to be summarized first."""
    text = conversation_text(messages)
    return text, estimate_tokens(text) > COMPRESS_ABOVE_TOKENS


def chunks(conversation: str) -> list[str]:
    """The conversation cut at turn boundaries into parts a summary call can take."""
    parts: list[str] = []
    current: list[str] = []
    size = 0
    for turn in conversation.split("\n\n"):
        tokens = estimate_tokens(turn)
        if current and size + tokens > CHUNK_TOKENS:
            parts.append("\n\n".join(current))
            current, size = [], 0
        current.append(turn)
        size += tokens
    parts.append("\n\n".join(current))
    return parts


def read_answer(
    answer: ExtractionAnswer, existing_summary: str
) -> tuple[list[Candidate], list[str]]:
    """The candidates an answer gives, and warnings for what it got wrong (empty memories,
    ids that are not known)."""
    known = dict(parse_summary(existing_summary))
    candidates: list[Candidate] = []
    warnings: list[str] = []
    for memory in answer.memories:
        try:
            candidates.append(
                Candidate(
                    content=memory.content,
                    category=memory.category,
                    importance=memory.importance,
                    expires_at=expiry_after(memory.expires_on) if memory.expires_on else None,
                    contradicts=tuple(i for i in memory.contradicts if i in known),
                    group=memory.group,
                )
            )
        except ValidationError:
            warnings.append("skipped an empty memory in the model's answer")
    for entry_id in dict.fromkeys(answer.forget_ids):
        if entry_id in known:
            candidates.append(Candidate(content=known[entry_id], confirms=entry_id, forget=True))
        else:
            warnings.append(f"the model asked to forget unknown memory id {entry_id!r}")
    for entry_id in dict.fromkeys(answer.confirmed_ids):
        if entry_id in known:
            candidates.append(Candidate(content=known[entry_id], confirms=entry_id))
        else:
            warnings.append(f"the model confirmed unknown memory id {entry_id!r}")
    return candidates, warnings


@cache
def answer_schema() -> dict[str, Any]:
    """The JSON schema of :class:`ExtractionAnswer` as structured output wants it: one
    self-contained object (no ``$ref``), every property required, no other properties."""
    return strict_schema(ExtractionAnswer)


@cache
def condense_schema() -> dict[str, Any]:
    """The JSON schema of :class:`CondenseAnswer`, as :func:`answer_schema` makes it."""
    return strict_schema(CondenseAnswer)


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of ``model`` as structured output wants it (see :func:`answer_schema`)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def strict(node: Any) -> Any:
        if isinstance(node, list):
            return [strict(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return strict(definitions[node["$ref"].rsplit("/", 1)[-1]])
        # Titles and defaults only cost tokens, and strict servers reject a default. A string
        # format is left to the description: Claude Code drops a schema with "format": "date"
        # without a word (2.1), and the check below reads the date anyway.
        dropped = ("title", "default", "format")
        out = {k: strict(v) for k, v in node.items() if k not in dropped}
        if out.get("type") == "object":
            out["additionalProperties"] = False
            out["required"] = list(out.get("properties", {}))
        return out

    result: dict[str, Any] = strict(schema)
    return result


def check_answer(raw: str | Mapping[str, Any], existing_summary: str) -> ExtractionAnswer:
    """The model's answer (its JSON text, or the object a backend already parsed) as an
    :class:`ExtractionAnswer`; :class:`AnswerError` saying why in one line when it is not JSON,
    not the schema, or names memory ids the request did not list."""
    if isinstance(raw, str):
        if not raw.strip():
            raise AnswerError("the model's answer was empty")
        try:
            data: Any = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise AnswerError(
                f"the model's answer is not JSON ({exc.msg} at line {exc.lineno} column "
                f"{exc.colno})"
            ) from exc
    else:
        data = raw
    try:
        answer = ExtractionAnswer.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the answer"
        raise AnswerError(
            f"the model's answer does not match the memory schema ({where}: {first['msg']})"
        ) from exc
    known = dict(parse_summary(existing_summary))
    named = [
        *answer.confirmed_ids,
        *answer.forget_ids,
        *(i for memory in answer.memories for i in memory.contradicts),
    ]
    unknown = [i for i in dict.fromkeys(named) if i not in known]
    if unknown:
        raise AnswerError(
            "the model's answer names unknown memory ids: " + ", ".join(map(repr, unknown))
        )
    return answer


CONDENSE_PROMPT = """You maintain the long-term memory of an AI assistant about its user.
Each numbered group below holds memories that say related things. Condense each group into
one sentence about the user that keeps every fact the group states (names, numbers, dates,
places), drops repetition, and says nothing the group does not. Write it in the language of
the group's memories. Never include secrets. Answer with one sentence per group, in order."""


class CondenseAnswer(BaseModel):
    """The structured answer of a consolidation call: one sentence per group, in order."""

    condensed: list[str] = Field(description="One condensed sentence per group, in order.")


def condense_request(groups: list[list[str]]) -> str:
    """The user turn of a consolidation call: the groups, numbered, one memory a line."""
    parts = []
    for number, group in enumerate(groups, 1):
        lines = "\n".join(f"- {' '.join(text.split())}" for text in group)
        parts.append(f"Group {number}:\n{lines}")
    return "\n\n".join(parts)


def check_condensed(raw: str | Mapping[str, Any], count: int) -> list[str]:
    """The condensed sentences of a consolidation answer; :class:`AnswerError` when it is not
    the schema or does not give one non-empty sentence for each of the ``count`` groups."""
    try:
        data: Any = json.loads(raw) if isinstance(raw, str) else raw
        answer = CondenseAnswer.model_validate(data)
    except (json.JSONDecodeError, ValidationError) as exc:
        raise AnswerError("the model's answer is not the condensed-memories schema") from exc
    texts = [" ".join(text.split()) for text in answer.condensed]
    if len(texts) != count or not all(texts):
        raise AnswerError(
            f"the model gave {len(texts)} condensed sentences for {count} groups, or an empty one"
        )
    return texts


def repair_request(problem: AnswerError) -> str:
    """The user turn that asks once more after an unusable answer, saying what was wrong."""
    return (
        f"Your answer could not be used: {problem.problem}. Answer again with only the JSON "
        "object the schema describes, naming only ids listed in <existing_memories>."
    )
