"""The sentence vectors of a file's memories, cached beside it so a process embeds only what
changed.

``.MEMORY.md.everbot/vectors`` is a NumPy ``.npz`` archive: the model's name, the sha256 of each
memory's redacted content, and one float16 row per memory. It holds the vectors of the file's
current memories only, so it never grows past the file. A cache from another model, or one
that cannot be read, is ignored and rebuilt; deleting it costs one embedding of every memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy

from ..core.redaction import redact
from ..storage.atomic import write_atomically
from .embeddings import Embedder

__all__ = ["embed_memories"]

_VERSION = 1


def embed_memories(contents: Sequence[str], embedder: Embedder, cache: Path | None) -> Any:
    """Unit vectors of ``contents`` (one row each, float32), from ``cache`` where it already
    holds them, from ``embedder`` for the rest; the cache is then rewritten with exactly these
    rows if it did not hold exactly them."""
    # Secrets a person typed into the file are not embedded, as they are not indexed.
    texts = [redact(content).text for content in contents]
    keys = [hashlib.sha256(text.encode("utf-8")).digest() for text in texts]
    known = _read(cache, embedder.name) if cache is not None else {}
    missing = list(
        {key: text for key, text in zip(keys, texts, strict=True) if key not in known}.items()
    )
    if missing:
        fresh = numpy.asarray(embedder.encode([text for _, text in missing]), dtype=numpy.float32)
        known.update((key, row) for (key, _), row in zip(missing, fresh, strict=True))
    width = len(next(iter(known.values()))) if known else 0
    vectors = numpy.array([known[key] for key in keys], dtype=numpy.float32).reshape(-1, width)
    if cache is not None and (missing or len(known) != len(set(keys))):
        _write(cache, embedder.name, keys, vectors)
    return vectors


def _read(path: Path, model: str) -> dict[bytes, Any]:
    try:
        with numpy.load(path, allow_pickle=False) as archive:
            if int(archive["version"]) != _VERSION or str(archive["model"]) != model:
                return {}
            keys, rows = archive["keys"], archive["vectors"]
            if rows.ndim != 2 or keys.shape != (len(rows), 32):
                return {}
            return {
                key.tobytes(): row.astype(numpy.float32)
                for key, row in zip(keys, rows, strict=True)
            }
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return {}  # no cache, or a damaged one: the vectors are embedded again


def _write(path: Path, model: str, keys: list[bytes], vectors: Any) -> None:
    unique = dict(zip(keys, vectors, strict=True))
    buffer = io.BytesIO()
    numpy.savez(
        buffer,
        version=numpy.array(_VERSION),
        model=numpy.array(model),
        keys=numpy.frombuffer(b"".join(unique), dtype=numpy.uint8).reshape(len(unique), 32),
        # Half precision halves the file; cosines move by about 1e-3, below any ranking margin.
        vectors=numpy.array(list(unique.values()), dtype=numpy.float16).reshape(len(unique), -1),
    )
    # The cache only saves time: a folder it cannot be written to costs embedding next time.
    with contextlib.suppress(OSError):
        write_atomically(path, buffer.getvalue())
