"""Extraction end to end on the labeled corpora, per half and per language.

Run: python benchmarks/eval_corpus.py [--split dev|test|all] [--lang en|zh] [--tag TAG]
                                      [--verbose] [--extractor rules] [--show-stored]

The dev half measured here is the one the shipped selector was fitted on; the honest dev
figure is cross-validated: ``python benchmarks/train_selector.py --folds 4 --end-to-end 0.7``
closes each fold's conversations with a model fitted on the other folds.

``fixtures/extraction/corpus_en.json`` and ``corpus_zh.json`` hold conversations written to vary
(indirect statements, corrections, self-corrections, dates of many shapes, group chats, code and
tool output around the words, pasted secrets), each in a dev half (for tuning) or a test half
(never tuned on). Each conversation is closed as a hook closes a session: its known memories
(``existing``) are put in a fresh MEMORY.md, the transcript goes through
``Memory.close_transcript`` (reader, extractor, redaction, merge, save), and the file is read
back.

A stored memory matches a label when its category is one of the label's and it holds every key
(a key may list alternatives), case-insensitive. Scored:

- precision: new memories matching an expected label, of new memories not matching an
  ``optional`` label (those count neither way);
- recall: expected labels found, overall and for todos (with the expiry day right when the
  label gives ``expires_on``);
- contradictions: known memories the conversation replaces (``contradicts``) no longer Active,
  and known memories it does not replace still there;
- forget requests: known memories the user asked to forget (``forget``) gone;
- forbidden text: new memories holding a ``forbid`` string (the other speaker's news, a pasted
  secret, a corrected value);
- damaged text: new memories cut, run together, half rewritten, only a redaction, or a todo
  keeping the request to the assistant (see ``damage.py``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

from damage import damage
from freezegun import freeze_time

import everbot_memory
from everbot_memory import Memory
from everbot_memory.core.entry import MemoryEntry
from everbot_memory.core.rules import ACTIVE_MIN_SCORE
from everbot_memory.errors import EverbotMemoryError
from everbot_memory.storage.store import MemoryStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extraction"
# Load every lazily imported public name now: the frozen clock below must not be the one the
# pydantic models are built under.
for _name in everbot_memory.__all__:
    getattr(everbot_memory, _name)


@dataclass
class Tally:
    """Counts for one group of conversations."""

    conversations: int = 0
    predicted: int = 0
    correct: int = 0
    expected: int = 0
    found: int = 0
    todos: int = 0
    todos_found: int = 0
    expiries: int = 0
    expiries_right: int = 0
    contradictions: int = 0
    contradictions_handled: int = 0
    kept_known: int = 0
    known: int = 0
    forgets: int = 0
    forgets_done: int = 0
    forbidden: int = 0
    damaged: int = 0
    wrong_category: int = 0
    errors: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if isinstance(value, int):
                setattr(self, name, getattr(self, name) + value)

    @staticmethod
    def ratio(a: int, b: int) -> str:
        return f"{a / b:.2f} ({a}/{b})" if b else "-"


def holds(content: str, key: str | list[str]) -> bool:
    lowered = content.casefold()
    options = [key] if isinstance(key, str) else key
    return any(option.casefold() in lowered for option in options)


def matches(entry: MemoryEntry, label: dict[str, Any]) -> bool:
    return entry.category in label["category"] and all(
        holds(entry.content, key) for key in label["keys"]
    )


def transcript_bytes(case: dict[str, Any], day: date) -> bytes:
    """The conversation as a transcript file would hold it, stamped with its day."""
    stamp = datetime.combine(day, time(12, 0), timezone.utc).isoformat()
    if case["format"] == "named":
        return json.dumps(case["conversation"], ensure_ascii=False).encode()
    messages = [{**m, "timestamp": stamp} for m in case["conversation"]]
    return json.dumps(messages, ensure_ascii=False).encode()


def users_words(case: dict[str, Any]) -> str:
    """Everything the user said in the conversation."""
    if case["format"] == "named":
        lines = [t["text"] for t in case["conversation"] if t["speaker"] == case["user"]]
    else:
        lines = [m["content"] for m in case["conversation"] if m["role"] == "user"]
    return "\n".join(lines)


def close(path: Path, case: dict[str, Any], extractor: str) -> None:
    day = date.fromisoformat(case["date"])
    data = transcript_bytes(case, day)
    memory = Memory(path, extractor)
    if case["format"] == "named":
        memory.close_transcript(data, session_id=case["id"], format="named", user=case["user"])
    else:
        memory.close_transcript(data, session_id=case["id"], format="messages")


def _lapse(entry: MemoryEntry) -> date | None:
    """The last day ``entry`` holds, or None when it never lapses."""
    return entry.expires_at.date() - timedelta(days=1) if entry.expires_at else None


def _lapses_on(entry: MemoryEntry, label: dict[str, Any]) -> bool:
    """True when ``entry`` lapses after the day ``label`` expects (or the label names none)."""
    if "expires_on" not in label:
        return True
    lapse = _lapse(entry)
    return lapse is not None and lapse.isoformat() == label["expires_on"]


def run_case(case: dict[str, Any], folder: Path, extractor: str, show: bool) -> Tally:
    tally = Tally(conversations=1)
    day = date.fromisoformat(case["date"])
    when = datetime.combine(day, time(9, 0), timezone.utc) - timedelta(days=20)
    path = folder / f"{case['id']}.md"
    known = [
        MemoryEntry(
            id=item["id"],
            content=item["content"],
            category=item["category"],
            score=0.7,
            created_at=when,
            last_activated=when,
        )
        for item in case.get("existing", [])
    ]
    if known:
        MemoryStore(path).save(known)
    try:
        with freeze_time(datetime.combine(day, time(18, 0), timezone.utc)):
            close(path, case, extractor)
    except EverbotMemoryError as exc:
        tally.errors += 1
        tally.notes.append(f"error {case['id']}: {exc}")
    after = MemoryStore(path).load()
    said = users_words(case)
    known_ids = {e.id for e in known}
    new = [e for e in after if e.id not in known_ids]
    expected, optional = case["expected"], case.get("optional", [])
    tally.expected = len(expected)
    for label in expected:
        hits = [e for e in new if matches(e, label)]
        # Of several memories that match (their order in the file follows their random ids),
        # the one with the label's expiry day, so the figure does not change from run to run.
        hit = next((e for e in hits if _lapses_on(e, label)), hits[0] if hits else None)
        is_todo = label["category"] == ["todo"]
        tally.todos += is_todo
        if hit is None:
            tally.notes.append(f"missed {case['id']}: {label['category']} {label['keys']}")
            continue
        tally.found += 1
        tally.todos_found += is_todo
        if "expires_on" in label:
            tally.expiries += 1
            right = _lapses_on(hit, label)
            tally.expiries_right += right
            if not right:
                tally.notes.append(
                    f"expiry {case['id']}: {hit.content!r} lapses after {_lapse(hit)}, "
                    f"expected {label['expires_on']}"
                )
    for entry in new:
        good = any(matches(entry, label) for label in expected)
        if not good and any(matches(entry, label) for label in optional):
            continue
        tally.predicted += 1
        tally.correct += good
        if not good:
            # The words of a label (expected or optional) in a category it does not allow, or
            # not a memory at all.
            allows = next(
                (
                    label["category"]
                    for label in expected + optional
                    if all(holds(entry.content, key) for key in label["keys"])
                ),
                None,
            )
            tally.wrong_category += allows is not None
            tally.notes.append(
                f"wrong {case['id']}: [{entry.category}] {entry.content}"
                + (f" (the label allows {'/'.join(allows)})" if allows else "")
            )
        why = damage(entry.content, said, entry.category)
        if why is not None:
            tally.damaged += 1
            tally.notes.append(f"damaged {case['id']}: {why}: {entry.content!r}")
        for text in case.get("forbid", []):
            if text.casefold() in entry.content.casefold():
                tally.forbidden += 1
                tally.notes.append(f"forbidden {case['id']}: {text!r} in {entry.content!r}")
    by_id = {e.id: e for e in after}
    replaced, forgotten = set(case.get("contradicts", [])), set(case.get("forget", []))
    for known_id in replaced:
        tally.contradictions += 1
        entry = by_id.get(known_id)
        handled = entry is None or entry.score < ACTIVE_MIN_SCORE
        tally.contradictions_handled += handled
        if not handled:
            tally.notes.append(f"contradiction {case['id']}: {known_id} still active")
    for known_id in forgotten:
        tally.forgets += 1
        tally.forgets_done += known_id not in by_id
        if known_id in by_id:
            tally.notes.append(f"forget {case['id']}: {known_id} still there")
    for known_id in known_ids - replaced - forgotten:
        tally.known += 1
        entry = by_id.get(known_id)
        kept = entry is not None and entry.score >= ACTIVE_MIN_SCORE
        tally.kept_known += kept
        if not kept:
            tally.notes.append(f"lost known {case['id']}: {known_id}")
    if show:
        for entry in new:
            print(f"  stored {case['id']}: [{entry.category}] {entry.content}")
    return tally


def report(name: str, t: Tally) -> None:
    precision = t.correct / t.predicted if t.predicted else 1.0
    recall = t.found / t.expected if t.expected else 1.0
    print(
        f"{name:<9} conv {t.conversations:>3}  precision {Tally.ratio(t.correct, t.predicted):<16}"
        f" recall {Tally.ratio(t.found, t.expected):<16} F1 "
        f"{2 * precision * recall / ((precision + recall) or 1):.2f}"
    )
    print(
        f"{'':<9} todos {Tally.ratio(t.todos_found, t.todos):<15} "
        f"expiry right {Tally.ratio(t.expiries_right, t.expiries):<15} "
        f"contradictions {Tally.ratio(t.contradictions_handled, t.contradictions):<15} "
        f"forget {Tally.ratio(t.forgets_done, t.forgets)}"
    )
    print(
        f"{'':<9} known kept {Tally.ratio(t.kept_known, t.known):<16} "
        f"forbidden stored {t.forbidden}  damaged {t.damaged}  "
        f"wrong category {t.wrong_category}  errors {t.errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--lang", default="all", choices=["en", "zh", "all"])
    parser.add_argument("--tag", help="only the conversations carrying this tag")
    parser.add_argument("--extractor", default="rules")
    parser.add_argument("--verbose", action="store_true", help="list every mistake")
    parser.add_argument("--show-stored", action="store_true", help="print every stored memory")
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=FIXTURES,
        help="a folder of corpus_en.json and corpus_zh.json in the same shape (a set kept apart)",
    )
    args = parser.parse_args()
    cases = [
        case
        for lang in ("en", "zh")
        if args.lang in ("all", lang)
        for case in json.loads((args.fixtures / f"corpus_{lang}.json").read_text(encoding="utf-8"))
    ]
    groups: dict[tuple[str, str], Tally] = defaultdict(Tally)
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            if args.split not in ("all", case["split"]):
                continue
            if args.tag and args.tag not in case["tags"]:
                continue
            tally = run_case(case, Path(tmp), args.extractor, args.show_stored)
            groups[(case["split"], case["lang"])].add(tally)
            groups[(case["split"], "all")].add(tally)
            if args.verbose:
                for note in tally.notes:
                    print(f"  {note}")
    for split in ("dev", "test"):
        for lang in ("en", "zh", "all"):
            if (split, lang) in groups:
                report(f"{split} {lang}", groups[(split, lang)])


if __name__ == "__main__":
    main()
