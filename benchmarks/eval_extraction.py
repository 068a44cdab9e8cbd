"""Precision and recall of the offline extractor on the labeled conversations.

Run: python benchmarks/eval_extraction.py [--verbose] [--labels PATH]

A predicted memory matches a labeled one when its category is one of the labeled categories
and it contains every labeled key phrase (case-insensitive). Predictions are taken after secret
redaction, as they would be stored.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from everbot_memory.core.redaction import redact
from everbot_memory.extract.rules import RuleExtractor

LABELS = Path(__file__).resolve().parents[1] / "fixtures" / "extraction" / "labeled.json"


@dataclass
class Score:
    predicted: int = 0
    correct: int = 0
    expected: int = 0
    found: int = 0

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0


def matches(prediction: tuple[str, str], label: dict[str, Any]) -> bool:
    category, content = prediction
    lowered = content.lower()
    return category in label["category"] and all(k.lower() in lowered for k in label["keys"])


def evaluate(path: Path = LABELS, verbose: bool = False) -> dict[str, Score]:
    """Scores per language and overall ("all")."""
    cases = json.loads(path.read_text(encoding="utf-8"))
    scores: dict[str, Score] = {"all": Score()}
    extractor = RuleExtractor()
    for case in cases:
        predictions = []
        for candidate in extractor.extract(case["conversation"]):
            cleaned = redact(candidate.content)
            if not cleaned.only_secret:
                predictions.append((candidate.category, cleaned.text))
        labels = case["expected"]
        good = [p for p in predictions if any(matches(p, label) for label in labels)]
        found = [label for label in labels if any(matches(p, label) for p in predictions)]
        for key in ("all", case["lang"]):
            score = scores.setdefault(key, Score())
            score.predicted += len(predictions)
            score.correct += len(good)
            score.expected += len(labels)
            score.found += len(found)
        if verbose:
            for p in predictions:
                if p not in good:
                    print(f"  false positive {case['id']}: [{p[0]}] {p[1]}")
            for label in labels:
                if label not in found:
                    print(f"  missed         {case['id']}: {label['category']} {label['keys']}")
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS, help="the labeled set (JSON)")
    parser.add_argument("--verbose", action="store_true", help="list every mistake")
    args = parser.parse_args()
    scores = evaluate(args.labels, args.verbose)
    cases = json.loads(args.labels.read_text(encoding="utf-8"))
    print(f"{len(cases)} labeled conversations ({args.labels.name})")
    print(
        f"{'set':<5} {'predicted':>9} {'correct':>8} {'expected':>9} {'found':>6} "
        f"{'precision':>10} {'recall':>7}"
    )
    for key in sorted(scores, key=lambda k: (k == "all", k)):
        s = scores[key]
        print(
            f"{key:<5} {s.predicted:>9} {s.correct:>8} {s.expected:>9} {s.found:>6} "
            f"{s.precision:>10.3f} {s.recall:>7.3f}"
        )


if __name__ == "__main__":
    main()
