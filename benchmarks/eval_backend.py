"""Any configured extraction backend on the labeled corpora: precision and recall per language
and per category.

Run: python benchmarks/eval_backend.py [--extractor rules|anthropic|claude-cli|openai|auto]
                                       [--model M] [--base-url URL] [--lang en|zh]
                                       [--split dev|test|all] [--limit N] [--verbose]

Each conversation of ``fixtures/extraction/corpus_en.json`` and ``corpus_zh.json`` is closed as
a hook closes a session (``benchmarks/eval_corpus.py``'s ``run_case``: a fresh MEMORY.md with
the conversation's known memories, the transcript through ``Memory.close_transcript``, the
file read back), with the backend chosen as the command would choose it: ``--extractor``,
``--model`` and ``--base-url`` win over the environment and the config files. An LLM backend
makes real requests (and spends what they cost); a conversation whose extraction fails counts
as extracting nothing, and the errors are counted.

Per category, a new memory counts for the category it was stored under (precision), and a
label for its first category (recall).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_corpus import FIXTURES, Tally, matches, report, run_case

from everbot_memory.core.rules import CATEGORIES
from everbot_memory.storage.store import MemoryStore


def by_category(case: dict[str, Any], path: Path) -> dict[str, list[int]]:
    """For each category: [correct, predicted, found, expected] in one closed conversation."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    known = {item["id"] for item in case.get("existing", [])}
    new = [e for e in MemoryStore(path).load() if e.id not in known]
    expected, optional = case["expected"], case.get("optional", [])
    for label in expected:
        row = counts[label["category"][0]]
        row[3] += 1
        row[2] += any(matches(e, label) for e in new)
    for entry in new:
        good = any(matches(entry, label) for label in expected)
        if not good and any(matches(entry, label) for label in optional):
            continue
        row = counts[entry.category]
        row[1] += 1
        row[0] += good
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--extractor", default="rules")
    parser.add_argument("--model", help="the LLM backend's model")
    parser.add_argument("--base-url", help="the LLM backend's server")
    parser.add_argument("--lang", default="all", choices=["en", "zh", "all"])
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--limit", type=int, help="at most this many conversations a language")
    parser.add_argument("--verbose", action="store_true", help="list every mistake and error")
    args = parser.parse_args()
    # run_case names the extractor; the model and the server reach it as settings do.
    if args.model:
        os.environ["EVERBOT_MEMORY_MODEL"] = args.model
    if args.base_url:
        os.environ["EVERBOT_MEMORY_BASE_URL"] = args.base_url
    totals: dict[str, Tally] = defaultdict(Tally)
    categories: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("en", "zh"):
            if args.lang not in ("all", lang):
                continue
            corpus = json.loads((FIXTURES / f"corpus_{lang}.json").read_text(encoding="utf-8"))
            cases = [c for c in corpus if args.split in ("all", c["split"])][: args.limit]
            for case in cases:
                tally = run_case(case, Path(tmp), args.extractor, False)
                totals[lang].add(tally)
                totals["all"].add(tally)
                for category, row in by_category(case, Path(tmp) / f"{case['id']}.md").items():
                    for key in (lang, "all"):
                        categories[(key, category)] = [
                            a + b for a, b in zip(categories[(key, category)], row, strict=True)
                        ]
                if args.verbose:
                    for note in tally.notes:
                        print(f"  {note}")
    print(f"extractor: {args.extractor}")
    for lang in ("en", "zh", "all"):
        if lang not in totals:
            continue
        report(lang, totals[lang])
        if totals[lang].errors:
            print(f"{'':<9} extraction errors: {totals[lang].errors}")
        for category in CATEGORIES:
            correct, predicted, found, expected = categories.get((lang, category), [0, 0, 0, 0])
            if predicted or expected:
                print(
                    f"{'':<9} {category:<11} precision {Tally.ratio(correct, predicted):<16} "
                    f"recall {Tally.ratio(found, expected)}"
                )


if __name__ == "__main__":
    main()
