"""Secret redaction on the corpus: every format redacted, no ordinary sentence touched.

Run: python benchmarks/eval_secrets.py [--verbose] [--split dev|test|heldout|all]

``fixtures/secrets/corpus.json`` holds secret formats (each split into parts, so no whole
secret sits in the repository) with sentences to put them in, and ordinary English and Chinese
sentences that must come out unchanged. Its dev half is for tuning; report the test half.

The heldout split holds formats and wordings gathered before the rules for a batch of formats
were written and never tuned on (service tokens of other vendors, other orders of words around
a code or a PIN): a measure of how the rules carry to text nobody wrote them for. The tests
do not require it to pass; a format tuned on moves to dev.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from everbot_memory.core.redaction import redact

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "secrets" / "corpus.json"


def cases(split: str = "all") -> tuple[list[tuple[str, str, str]], list[dict[str, str]]]:
    """(name, secret, sentence) for each secret in each context, and the ordinary sentences."""
    data = json.loads(CORPUS.read_text(encoding="utf-8"))
    secrets = [
        (item["name"], "".join(item["parts"]), context.replace("{secret}", "".join(item["parts"])))
        for item in data["secrets"]
        if split in ("all", item["split"])
        for context in item["contexts"]
    ]
    ordinary = [o for o in data["ordinary"] if split in ("all", o["split"])]
    return secrets, ordinary


def leaked(secret: str, text: str) -> bool:
    """True when the redacted ``text`` still holds the secret or a long piece of it."""
    if secret in text:
        return True
    pieces = [p for p in secret.replace("\\n", "\n").split("\n") if len(p) >= 12]
    return any(p in text for p in pieces if "PRIVATE KEY" not in p)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="all", choices=["dev", "test", "heldout", "all"])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    for split in ("dev", "test", "heldout") if args.split == "all" else (args.split,):
        secrets, ordinary = cases(split)
        missed = Counter(
            name for name, secret, text in secrets if leaked(secret, redact(text).text)
        )
        formats = {name for name, _, _ in secrets}
        false = [o for o in ordinary if redact(o["text"]).found]
        print(
            f"{split}: formats {len(formats)}, contexts {len(secrets)}; "
            f"formats leaked {len(missed)}, contexts leaked {sum(missed.values())}; "
            f"ordinary {len(ordinary)}, falsely redacted {len(false)}"
        )
        if args.verbose:
            for name, count in sorted(missed.items()):
                print(f"  leaked: {name} ({count})")
            for o in false:
                print(f"  false hit: {o['text']}  ->  {redact(o['text']).text}")


if __name__ == "__main__":
    main()
