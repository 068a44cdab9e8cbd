"""What an extractor is, and how its answer is checked.

An extractor is anything with ``extract(messages, existing_summary)`` (or a plain function of
the same two arguments), sync or async, returning candidate memories: :class:`Candidate`
objects or dicts with the same fields. Problems worth telling the user go in its ``warnings``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from pydantic import ValidationError

from ..core.candidate import Candidate
from ..errors import ExtractionError
from .conversation import Messages

__all__ = ["Extractor", "ExtractorFunction", "ExtractorOutput", "as_candidates"]

ExtractorOutput = Sequence[Any] | Awaitable[Sequence[Any]]
ExtractorFunction = Callable[[Messages, str], ExtractorOutput]


class Extractor(Protocol):
    """Anything with ``extract(messages, existing_summary)`` returning candidates (or awaitable).

    ``existing_summary`` lists the known Active memories as ``[id] content`` lines.
    """

    def extract(self, messages: Messages, existing_summary: str) -> ExtractorOutput:
        """Propose memories from a conversation, given a summary of what is already known."""
        ...


def as_candidates(raw: Sequence[Any]) -> list[Candidate]:
    """An extractor's answer as validated candidates; :class:`ExtractionError` when it is not
    a list of memories."""
    try:
        return [c if isinstance(c, Candidate) else Candidate.model_validate(c) for c in raw]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ExtractionError(
            f"the extractor returned an invalid memory ({where}: {first['msg']}); nothing saved"
        ) from exc
    except TypeError as exc:
        raise ExtractionError(
            f"the extractor must return a list of memories, not {type(raw).__name__}"
        ) from exc
