"""Secret redaction on the corpus: every format redacted, no ordinary sentence touched.

Run: python benchmarks/eval_secrets.py [--verbose] [--split dev|test|heldout|all] [--corpus F]
     python benchmarks/eval_secrets.py --real [--every N] [--verbose]
     python benchmarks/eval_secrets.py --worst [--repeat N]

``fixtures/secrets/corpus.json`` holds secret formats (each split into parts, so no whole
secret sits in the repository) with sentences to put them in, and ordinary English and Chinese
sentences that must come out unchanged. Its dev half is for tuning; report the test half.

``--real`` counts false redactions on text nobody wrote for this: every line of 20 characters
or more of the LoCoMo conversations and Claude Code transcripts in ``../shared/data`` (said
when absent) and of the Python sources and documents installed beside this interpreter (code,
docs and data files of every package: identifiers, hashes, UUIDs, URLs, examples). It holds
no real secret, so every line redacted there is a false hit (some are test keys in a
package's own tests). ``--every N`` reads every Nth file.

``--worst`` times redaction of texts made to be slow (a label repeated to 100 KB: "key=key=...",
"password=...", a wifi QR code's opening) against ordinary prose of the same length, in the
same process: medians of ``--repeat`` runs and their ratio.

The heldout split holds formats, wordings and ordinary sentences written apart from the rules
(by someone who did not read them) and never tuned on: a measure of how the rules carry to
text nobody wrote them for. The tests do not require it to pass. Once a held-out item is
looked at to change a rule, it moves to dev; the split was last refilled with a fresh set,
half of which went to dev (for tuning) and half stayed held out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sysconfig
import time
from collections import Counter
from pathlib import Path

from everbot_memory.core.redaction import redact

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "secrets" / "corpus.json"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
_TEXT_FILES = (".py", ".md", ".txt", ".rst", ".json", ".toml", ".cfg")


def cases(
    split: str = "all", corpus: Path = CORPUS
) -> tuple[list[tuple[str, str, str]], list[dict[str, str]]]:
    """(name, secret, sentence) for each secret in each context, and the ordinary sentences."""
    data = json.loads(corpus.read_text(encoding="utf-8"))
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


def real_lines(every: int = 1) -> tuple[list[tuple[str, str]], list[str]]:
    """(where, line) for the lines of real text read by ``--real``, and what was absent."""
    absent: list[str] = []
    lines: list[tuple[str, str]] = []
    if SHARED.is_dir():
        for path in sorted(SHARED.rglob("*.json*")):
            lines += [(path.name, line) for line in path.read_text("utf-8").splitlines()]
    else:
        absent.append(f"{SHARED} is absent: LoCoMo and the transcripts are not read")
    packages = Path(sysconfig.get_paths()["purelib"])
    files = sorted(
        p
        for p in packages.rglob("*")
        if p.suffix in _TEXT_FILES and p.is_file() and p.stat().st_size < 400_000
    )
    for path in files[::every]:
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        where = str(path.relative_to(packages))
        lines += [(where, line) for line in text.splitlines() if len(line) >= 20]
    return lines, absent


def real(every: int, verbose: bool) -> None:
    lines, absent = real_lines(every)
    for said in absent:
        print(said)
    hits = Counter()
    for where, line in lines:
        found = redact(line).found
        if found:
            hits.update(found)
            if verbose:
                print(f"  {where}: {found}: {line.strip()[:160]}")
    total = sum(hits.values())
    print(f"real text: {len(lines)} lines, {total} redactions (all false): {dict(hits)}")


#: Texts made to be slow: a label, over and over, with no value ending it.
WORST = ["key=", "token=", "password=", "api_key: ", "WIFI:T:", "密码：", "recovery codes: "]


def worst(repeat: int) -> None:
    size = 100_000
    plain = ("The user deploys the staging service on Fridays after lunch. " * 2000)[:size]

    def median_seconds(text: str) -> float:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            redact(text)
            runs.append(time.perf_counter() - start)
        return statistics.median(runs)

    base = median_seconds(plain)
    print(f"ordinary prose, {size:,} characters: {base * 1000:.1f} ms (median of {repeat})")
    for unit in WORST:
        took = median_seconds((unit * (size // len(unit) + 1))[:size])
        print(f"{unit!r:>20} x {size // len(unit):,}: {took * 1000:.0f} ms, {took / base:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="all", choices=["dev", "test", "heldout", "all"])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--real", action="store_true", help="false hits on real text")
    parser.add_argument("--every", type=int, default=1, help="with --real: every Nth file")
    parser.add_argument("--worst", action="store_true", help="time texts made to be slow")
    parser.add_argument("--repeat", type=int, default=3, help="with --worst: runs of each")
    parser.add_argument(
        "--corpus", type=Path, default=CORPUS, help="a set kept outside the repository"
    )
    args = parser.parse_args()
    if args.worst:
        worst(args.repeat)
        return
    if args.real:
        real(args.every, args.verbose)
        return
    for split in ("dev", "test", "heldout") if args.split == "all" else (args.split,):
        secrets, ordinary = cases(split, args.corpus)
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
