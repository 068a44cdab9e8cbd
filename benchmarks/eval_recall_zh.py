"""Chinese recall: Recall@5 on the project's own retrieval set, against a character-bigram BM25.

Run: python benchmarks/eval_recall_zh.py [--split dev|test|all] [--semantic [--model auto|e5|use]]

``benchmarks/data/zh_recall.json`` holds 513 memories and 481 queries (paraphrases, lexical
matches, partial matches, questions, English queries over Chinese memories, and queries with no
answer), each in a dev or a test half. All memories go into one MEMORY.md, searched through the
real store and recall path. The baseline is a plain Okapi BM25 (k1 1.2, b 0.75) over each
text's overlapping character pairs, computed in the same run on the same memories.

Printed per half and per kind: Recall@5 (the share of a query's relevant memories in the top 5)
for the engine and the baseline; for queries with no answer, how many returned nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tempfile
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

from eval_recall import MODELS, pick_embedder

from everbot_memory.core.entry import MemoryEntry
from everbot_memory.recall.index import RecallIndex
from everbot_memory.storage.store import MemoryStore

DATA = Path(__file__).resolve().parent / "data" / "zh_recall.json"
NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


def bigrams(text: str) -> list[str]:
    """Overlapping pairs of each run of word characters (a lone character stands for itself)."""
    grams: list[str] = []
    for run in re.findall(r"[^\W_]+", text.casefold()):
        grams.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return grams


class BigramBM25:
    """The baseline: textbook BM25 over character pairs."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(bigrams(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.average = sum(self.lengths) / len(self.lengths)
        self.df: Counter[str] = Counter(g for d in self.docs for g in d)
        self.k1, self.b = k1, b

    def top(self, query: str, k: int) -> list[int]:
        n = len(self.docs)
        scores: dict[int, float] = defaultdict(float)
        for gram in set(bigrams(query)):
            df = self.df.get(gram)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, doc in enumerate(self.docs):
                tf = doc.get(gram)
                if tf:
                    norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.average)
                    scores[i] += idf * tf * (self.k1 + 1) / (tf + norm)
        return sorted(scores, key=lambda i: -scores[i])[:k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--semantic", action="store_true", help="fuse the embeddings extra")
    parser.add_argument("--model", choices=MODELS, default="auto", help="which sentence model")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    memories = data["memories"]
    entries = [
        MemoryEntry(
            id=m["id"],
            content=m["content"],
            category=m["category"],
            score=0.6,
            created_at=NOW - timedelta(days=90),
            last_activated=NOW - timedelta(days=i % 60),
        )
        for i, m in enumerate(memories)
    ]
    baseline = BigramBM25([m["content"] for m in memories])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        MemoryStore(path).save(entries)
        index = RecallIndex.for_file(path)
        if args.semantic:
            embedder = pick_embedder(args.model)
            print(f"semantic: {embedder.name} fused with the words")
            index.use_embeddings(embedder)
        for split in ("dev", "test") if args.split == "all" else (args.split,):
            rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
            silent = [0, 0, 0]  # no-answer queries: total, engine silent, baseline silent
            for query in data["queries"]:
                if query["split"] != split:
                    continue
                engine = [h.entry.id for h in index.search(query["query"], k=5, now=NOW)]
                base = [memories[i]["id"] for i in baseline.top(query["query"], 5)]
                relevant = set(query["relevant"])
                if not relevant:
                    silent[0] += 1
                    silent[1] += not engine
                    silent[2] += not base
                    continue
                row = (len(relevant & set(engine)) / len(relevant),
                       len(relevant & set(base)) / len(relevant))  # fmt: skip
                rows[query["kind"]].append(row)
                rows["all answerable"].append(row)
            print(f"{split}: Recall@5    engine  bigram-BM25     n")
            for kind in sorted(rows, key=lambda k: (k == "all answerable", k)):
                values = rows[kind]
                engine_r = sum(v[0] for v in values) / len(values)
                base_r = sum(v[1] for v in values) / len(values)
                print(f"  {kind:<16} {engine_r:>7.3f} {base_r:>12.3f} {len(values):>5}")
            print(
                f"  no answer: engine returned nothing for {silent[1]} of {silent[0]}, "
                f"baseline for {silent[2]} of {silent[0]}"
            )


if __name__ == "__main__":
    main()
