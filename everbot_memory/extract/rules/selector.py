"""Which of the user's sentences say something durable about them, and of what kind.

Fixed rules catch what people say in set phrases ("my name is", "remember that"); most of what
a conversation reveals is said in passing ("still getting my bearings here, we only moved up
from Lyon in September"). A small learned model scores each sentence the user said: a logistic
regression over its words (English), its characters and character pairs (Chinese) and a few
cues (first person, a question, a request to the assistant, a date), and a second one picks the
category. Both are plain weights in ``selector.json`` (a few hundred kilobytes), applied in pure
Python: no numpy, no model download. ``benchmarks/train_selector.py`` fits them on the dev half
of the labeled conversations only, so the test half measures how well they generalise.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from ...core.entry import Category
from ...core.rules import CATEGORIES
from ...core.text import CJK_RE, stem
from .dates import WHEN_EN, WHEN_ZH
from .kinds import kinds

__all__ = ["Selector", "Verdict", "features", "load_selector"]

WEIGHTS_FILE = Path(__file__).with_name("selector.json")

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CJK_RUN = re.compile(f"(?:{CJK_RE.pattern})+")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|our|us)\b|我")
_QUESTION = re.compile(r"[?？]|吗[。！!]?$|呢[。！!]?$")
_REQUEST = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|\bhelp me\b|\bcan we\b|\blet's\b|\bshould i\b"
    r"|帮我|帮忙|请你|你能|能不能|可不可以|给我|麻烦"
)
_WHEN = re.compile(rf"\b{WHEN_EN}\b|{WHEN_ZH}|\b\d{{1,2}}(?::\d\d)?\s?(?:am|pm)\b", re.I)
_THANKS = re.compile(r"\b(?:thanks|thank you|thx|ty|cool|great|perfect|ok|okay)\b|谢谢|好的|明白")


def features(text: str) -> list[str]:
    """The features of one sentence, as names (each counts once)."""
    lowered = text.casefold()
    names = {"bias"}
    words = _WORD.findall(lowered)
    stems = [stem(w) for w in words]
    names.update(f"w:{w}" for w in stems)
    names.update(f"b:{a}_{b}" for a, b in itertools.pairwise(stems))
    for kind in kinds(text):
        names.add(f"kind:{kind}")
    for run in _CJK_RUN.findall(lowered):
        names.update(f"c:{c}" for c in run)
        names.update(f"p:{run[i : i + 2]}" for i in range(len(run) - 1))
    if _FIRST_PERSON.search(lowered):
        names.add("cue:first-person")
    if re.match(r"^(?:i|my|i'm|i've|we|our)\b|^我", lowered):
        names.add("cue:starts-first-person")
    if _QUESTION.search(lowered):
        names.add("cue:question")
    if _REQUEST.search(lowered):
        names.add("cue:request")
    if _WHEN.search(lowered):
        names.add("cue:when")
    if re.search(r"\d", lowered):
        names.add("cue:digit")
    if _THANKS.search(lowered):
        names.add("cue:thanks")
    size = len(words) + len("".join(_CJK_RUN.findall(lowered))) // 2
    names.add(f"cue:size-{min(size // 4, 6)}")
    return sorted(names)


@dataclass(frozen=True)
class Verdict:
    """How likely a sentence is a durable memory, and its most likely category."""

    probability: float
    category: Category


class Selector:
    """The two fitted models: durable or not, then which category."""

    def __init__(
        self,
        keep: dict[str, float],
        categories: dict[str, dict[str, float]],
        threshold: float,
    ) -> None:
        self.keep = keep
        self.categories = categories
        self.threshold = threshold

    def judge(self, text: str) -> Verdict:
        """The verdict on one sentence the user said."""
        return self.judge_features(features(text))

    def judge_features(self, names: list[str]) -> Verdict:
        """The verdict on a sentence given its :func:`features`."""
        z = sum(self.keep.get(name, 0.0) for name in names)
        probability = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
        best: Category = "fact"
        best_score = -math.inf
        for category, weights in self.categories.items():
            score = sum(weights.get(name, 0.0) for name in names)
            if score > best_score and category in CATEGORIES:
                best, best_score = category, score  # type: ignore[assignment]
        return Verdict(probability, best)

    def to_json(self) -> str:
        """The weights as JSON (rounded: four digits are plenty)."""

        def rounded(weights: dict[str, float]) -> dict[str, float]:
            # Weights this small change no verdict: leaving them out keeps the file small.
            return {k: round(v, 3) for k, v in sorted(weights.items()) if abs(v) >= 0.02}

        return json.dumps(
            {
                "threshold": round(self.threshold, 4),
                "keep": rounded(self.keep),
                "categories": {c: rounded(w) for c, w in sorted(self.categories.items())},
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )


@functools.lru_cache(maxsize=1)
def load_selector() -> Selector | None:
    """The shipped model, or None when its file is missing (the fixed rules still work)."""
    try:
        data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Selector(data["keep"], data["categories"], float(data["threshold"]))
