"""The memories the benchmarks measure with: varied English and Chinese entries, made to order.

It uses only names every version of the package exports (``everbot_memory.MemoryEntry``), so
``compare_trees.py`` can run it against an older checkout.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Any

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
CATEGORIES = ("preference", "fact", "experience", "workflow", "decision", "skill_usage", "todo")
PHRASES_EN = [
    "The user prefers pytest over unittest for new projects",
    "The user deploys the billing service every Friday afternoon",
    "When Nginx returns 502 the user checks gunicorn first",
    "The team decided to use PostgreSQL instead of MongoDB",
]
PHRASES_ZH = [
    "用户喜欢简洁的代码风格，不喜欢过多注释",
    "用户每天早上 9 点查看 A 股行情，关注新能源板块",
    "用户的主要开发语言是 Python，常用 FastAPI 框架",
    "用户提到下周三有产品评审会议，需要准备演示材料",
]
QUERIES = [
    "What does the user prefer for tests?",
    "用户喜欢什么样的代码风格",
    "When does the user deploy the billing service?",
    "A 股行情",
    "PostgreSQL or MongoDB",
]


def make_entries(n: int, seed: int = 7) -> list[Any]:
    """``n`` entries: phrases alternating between the languages, random scores and dates."""
    from everbot_memory import MemoryEntry

    rng = random.Random(seed)
    entries = []
    for i in range(n):
        phrase = rng.choice(PHRASES_ZH if i % 2 else PHRASES_EN)
        activated = NOW - timedelta(days=rng.randint(0, 120), minutes=rng.randint(0, 1440))
        entries.append(
            MemoryEntry(
                id=f"{i:06x}",
                content=f"{phrase} (#{i})",
                category=rng.choice(CATEGORIES),
                score=rng.uniform(0.05, 1.0),
                created_at=activated - timedelta(days=rng.randint(0, 60)),
                last_activated=activated,
                activation_count=rng.randint(1, 30),
                source_session=f"s-{rng.randint(1, 500)}",
            )
        )
    return entries
