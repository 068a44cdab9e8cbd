"""A scripted life over five weeks, ending in a golden MEMORY.md compared byte for byte.

The conversations in fixtures/scenario/ (named ``N-YYYY-MM-DD.txt``) are closed one by one on
their dates with the offline extractor: a move, a changed tool, a todo that passes, a
"forget that", a preference said again in other words. Then maintenance runs a week after the
last one. Set EVERBOT_UPDATE_GOLDEN=1 to rewrite the golden file after a deliberate change.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from conftest import FIXTURES
from freezegun import freeze_time

from everbot_memory import MemoryManager, MemoryStore
from everbot_memory.core import clock as rules_module
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.transcripts import read_transcript

SCENARIO = FIXTURES / "scenario"
GOLDEN = SCENARIO / "golden.MEMORY.md"


def test_five_weeks_end_in_the_golden_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = random.Random(7)
    # The first three bytes of a random 128-bit number (what a uuid4's first six hex digits
    # were, when ids were taken from one).
    monkeypatch.setattr(
        rules_module, "_random_bytes", lambda n: (ids.getrandbits(128) >> 104).to_bytes(n, "big")
    )
    path = tmp_path / "MEMORY.md"
    manager = MemoryManager(path, RuleExtractor())
    report = []
    for transcript in sorted(SCENARIO.glob("*.txt")):
        day = transcript.stem.split("-", 1)[1]
        with freeze_time(f"{day} 18:00:00"):
            stats = manager.process_session_end_sync(
                read_transcript(transcript).as_dicts(), transcript.stem
            )
        report.append((transcript.stem, stats))
    with freeze_time("2026-04-13 09:00:00"):
        manager.maintain()
    if os.environ.get("EVERBOT_UPDATE_GOLDEN"):
        GOLDEN.write_bytes(path.read_bytes())
    assert path.read_text(encoding="utf-8") == GOLDEN.read_text(encoding="utf-8")

    by_stem = dict(report)
    assert by_stem["2-2026-03-09"]["updated"] == 1  # pytest, said again in other words
    assert by_stem["3-2026-03-23"]["contradicted"] == 2  # Lyon -> Porto, Vue -> React
    assert by_stem["4-2026-04-06"]["forgotten"] == 1  # the dashboard habit
    entries = {e.content: e for e in MemoryStore(path).load()}
    assert entries["The user prefers pytest over unittest."].activation_count == 2
    assert not entries["The user lives in Lyon."].is_active
    assert entries["The user lives in Porto."].is_active
    assert entries["The user's name is Mara."].is_active
    assert not entries[
        "The user needs to send the budget to Paul next Friday (2026-03-13)."
    ].is_active
    assert not any("dashboard" in c for c in entries)
    with freeze_time("2026-04-13 09:00:00"):
        block = manager.get_prompt_memories()
    assert "Porto" in block and "Lyon" not in block and "budget" not in block
