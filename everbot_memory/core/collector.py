"""The garbage collector paused while a bulk step runs.

Reading, changing or saving a large file makes a few objects for each memory (its text, its
rows, decayed copies), almost none of them cyclic garbage, but every few thousand allocations a
collection pass walks them all: a fifth of a parse and about 6% of a ``remember`` into 10,000
memories. What the step leaves is collected as usual afterwards.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collection_paused"]


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Pause the collector for the ``with`` block (nested pauses leave it as they found it)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
