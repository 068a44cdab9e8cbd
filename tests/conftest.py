"""Shared helpers: entries made to order, fixture paths, and a fixed clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import everbot_memory.core.candidate
import everbot_memory.extract.contract  # noqa: F401
from everbot_memory.core.entry import MemoryEntry

# The pydantic models are built here, before any test freezes the clock: under freezegun a
# model first built inside ``freeze_time`` sees its fake date class and cannot make a schema.

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# What a person's own setup could change under the tests: their config file, the engine's
# settings, the memory file they point at, and an API key that would make "auto" pick Claude.
_PERSONAL_SETTINGS = (
    "EVERBOT_MEMORY_FILE",
    "EVERBOT_MEMORY_EXTRACTOR",
    "EVERBOT_MEMORY_MODEL",
    "EVERBOT_MEMORY_BASE_URL",
    "EVERBOT_MEMORY_TIMEOUT",
    "EVERBOT_MEMORY_LOCK_TIMEOUT",
    "EVERBOT_MEMORY_CHILD",
    "EVERBOT_MEMORY_USER_FILE",
    "CLAUDE_PROJECT_DIR",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
)


@pytest.fixture(autouse=True)
def _no_personal_settings(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: Any) -> None:
    """Every test runs as on a clean machine, whatever the developer's environment holds."""
    for name in _PERSONAL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    # The user's own memory (the hooks' default) is a fresh one in each test, and so are
    # Claude Code's settings and transcripts (doctor and sweep read them).
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def make_entry(
    entry_id: str = "a1b2c3",
    content: str = "The user prefers pytest over unittest.",
    score: float = 0.6,
    *,
    category: str = "preference",
    at: datetime = T0,
    hits: int = 1,
    **extra: Any,
) -> MemoryEntry:
    """An entry activated at ``at`` with ``score``."""
    return MemoryEntry(
        id=entry_id,
        content=content,
        category=category,  # type: ignore[arg-type]
        score=score,
        created_at=at,
        last_activated=at,
        activation_count=hits,
        source_session="s-test",
        **extra,
    )


def days(n: float) -> timedelta:
    return timedelta(days=n)


@pytest.fixture
def memory_path(tmp_path: Path) -> Path:
    """Where a test's MEMORY.md lives (not created)."""
    return tmp_path / "MEMORY.md"
