"""The engine's fixed numbers and names, each defined once (seed 001, SPEC §2).

- a new memory starts at 0.8, 0.6 or 0.4 for high, medium or low importance;
- a memory mentioned again is reinforced: ``s + (1 - s) * 0.2``;
- after 7 days without activation a memory decays by ``0.99`` a day;
- Active >= 0.2 > Archived >= 0.05 > forgotten (deleted).

The formulas that use these numbers are in :mod:`everbot_memory.core.scoring`.
"""

from __future__ import annotations

__all__ = [
    "ACTIVE_MIN_SCORE",
    "CATEGORIES",
    "DAILY_DECAY",
    "DUPLICATE_MIN_SIMILARITY",
    "EXPIRED_SCORE",
    "FORGET_REQUEST_MIN_SIMILARITY",
    "GRACE_DAYS",
    "IMPORTANCES",
    "INITIAL_SCORES",
    "KEEP_MIN_SCORE",
    "PROMPT_MAX_CHARS",
    "PROMPT_MAX_LINE",
    "PROMPT_MIN_SCORE",
    "PROMPT_TOP_K",
    "REINFORCE_RATE",
    "SUMMARY_MAX_ENTRIES",
    "TODO_DEFAULT_DAYS",
]

CATEGORIES: tuple[str, ...] = (
    "preference",
    "fact",
    "experience",
    "workflow",
    "decision",
    "skill_usage",
    "todo",
)
IMPORTANCES: tuple[str, ...] = ("high", "medium", "low")
INITIAL_SCORES = {"high": 0.8, "medium": 0.6, "low": 0.4}
REINFORCE_RATE = 0.2
GRACE_DAYS = 7
DAILY_DECAY = 0.99

#: An entry scoring at least this is Active: it may be injected into prompts.
ACTIVE_MIN_SCORE = 0.2
#: An entry scoring less than this is forgotten (deleted); between the two it is Archived.
KEEP_MIN_SCORE = 0.05
#: A memory whose time has passed, or that a newer one contradicts, is archived at this score.
EXPIRED_SCORE = 0.19
#: A todo whose date the extractor cannot pin down expires after this many days.
TODO_DEFAULT_DAYS = 14

#: Two memories whose token similarity reaches this say the same thing (a rewording).
DUPLICATE_MIN_SIMILARITY = 0.8
#: "Forget that ..." names a memory loosely: this much similarity is enough to find it.
FORGET_REQUEST_MIN_SIMILARITY = 0.5

#: How many known memories an extractor is shown, strongest first (seed §4.2).
SUMMARY_MAX_ENTRIES = 50

#: The prompt block: at most this many memories, each scoring at least this (seed §5.3).
PROMPT_TOP_K = 20
PROMPT_MIN_SCORE = 0.5
#: ... in at most this many characters, one memory never longer than the last.
PROMPT_MAX_CHARS = 8_000
PROMPT_MAX_LINE = 500
