"""Damaged and unwanted memories on chat nobody labelled: what the offline extractor makes of
400 short conversations with an assistant (200 English, 200 Chinese, the user's side only),
written apart from the rules in the way people type to an assistant.

Run: python benchmarks/eval_damage.py [--show] [--lang en|zh]

The set (``benchmarks/data/chat_messages.json``) has no labels: it measures what a memory must
never look like (:mod:`damage`: words run together, a cut at a dot, a half-rewritten voice, an
adverb inflected as a verb, ...), not recall. ``--show`` prints every conversation with the
memories made of it, for reading.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from damage import damage

from everbot_memory.extract.rules import RuleExtractor

DATA = Path(__file__).resolve().parent / "data" / "chat_messages.json"
STAMP = "2026-05-04T12:00:00+00:00"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", action="store_true", help="print every memory made")
    parser.add_argument("--lang", choices=["en", "zh"])
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    for n, conversation in enumerate(json.loads(DATA.read_text(encoding="utf-8"))):
        lang = conversation["lang"]
        if args.lang not in (None, lang):
            continue
        messages = []
        for text in conversation["messages"]:
            messages.append({"role": "user", "content": text, "timestamp": STAMP})
            messages.append({"role": "assistant", "content": "OK.", "timestamp": STAMP})
        found = RuleExtractor().extract(messages, "")
        said = "\n".join(conversation["messages"])
        counts[f"{lang} conversations"] += 1
        counts[f"{lang} memories"] += len(found)
        if args.show:
            print(f"#{n} " + " || ".join(conversation["messages"])[:300])
        for candidate in found:
            why = damage(candidate.content, said, candidate.category)
            counts[f"{lang} damaged"] += why is not None
            if args.show or why:
                mark = f"  DAMAGED ({why})" if why else ""
                print(f"  #{n} [{candidate.category}] {candidate.content}{mark}")
    for lang in ("en", "zh"):
        if counts[f"{lang} conversations"]:
            print(
                f"{lang}: {counts[f'{lang} conversations']} conversations, "
                f"{counts[f'{lang} memories']} memories, {counts[f'{lang} damaged']} damaged"
            )


if __name__ == "__main__":
    main()
