"""The contract every LLM extractor keeps (seed §4): one prompt, one answer schema, one check.

One call per session close: the conversation and the strongest known memories as ``[id]
content`` lines go in; new memories (content, category, importance, expiry, contradicted ids)
and the ids the conversation confirms or asks to forget come out, as structured output
validated by pydantic. A conversation over about 8,000 tokens is summarized first.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field, ValidationError

from ..core.candidate import Candidate
from ..core.entry import Category, Importance
from ..core.scoring import expiry_after
from ..core.text import estimate_tokens
from .conversation import Messages, conversation_text, session_day
from .summary import parse_summary

__all__ = [
    "COMPRESS_ABOVE_TOKENS",
    "SUMMARY_PROMPT",
    "SYSTEM_PROMPT",
    "ExtractedMemory",
    "ExtractionAnswer",
    "chunks",
    "conversation_for",
    "extraction_request",
    "read_answer",
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
        description="For todos and other time-limited memories: the last day it holds.",
    )
    contradicts: list[str] = Field(
        default_factory=list,
        description="Ids of existing memories this one replaces (a changed fact or preference).",
    )


class ExtractionAnswer(BaseModel):
    """The structured answer of the extraction call."""

    memories: list[ExtractedMemory] = Field(default_factory=list)
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
