"""The session-end flow's pieces that do not touch the file: the session in progress, and
calling an extractor, sync or async, whatever kind it is.

The flow itself (:meth:`everbot_memory.facade.memory.Memory.process_session_end` and its
synchronous twin) is: the messages not merged before and the summary of what is known; the
extractor, outside the lock; its answer checked, merged under the lock, the session recorded.
Only the middle step differs between the two calls.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ExtractionError

if TYPE_CHECKING:
    from ..extract.base import Extractor, ExtractorFunction
    from ..extract.conversation import Messages

__all__ = ["PendingSession", "call_async", "call_sync", "extractor_function", "extractor_name"]


@dataclass
class PendingSession:
    """One session end in progress: what is new, and what the extractor is told."""

    session_id: str
    messages: Messages
    new: list[Any]
    summary: str = ""


def extractor_function(
    extractor: Extractor | ExtractorFunction | None, asynchronous: bool = False
) -> Callable[..., Any]:
    """The function to call for ``extractor``: its ``aextract`` method when the caller has an
    event loop and the extractor has one (an async client, not a thread), else its
    ``extract`` method, or itself."""
    if extractor is None:
        raise ExtractionError(
            "this Memory has no extractor; pass extractor=... to process sessions"
        )
    function: Any = getattr(extractor, "aextract", None) if asynchronous else None
    function = function or getattr(extractor, "extract", extractor)
    assert callable(function)
    return function  # type: ignore[no-any-return]


def extractor_name(extractor: object) -> str:
    """How reports name an extractor: a built-in one by its resolved name, else its type."""
    if isinstance(extractor, str):
        from .choice import resolve_choice

        return resolve_choice(extractor)
    return type(extractor).__name__


def call_sync(function: Callable[..., Any], session: PendingSession) -> Any:
    """Run the extractor without an event loop (an async one in a loop of its own)."""
    raw = function(session.new, session.summary)
    if inspect.isawaitable(raw):
        import asyncio

        raw = asyncio.run(_awaited(raw))
    return raw


async def call_async(function: Callable[..., Any], session: PendingSession) -> Any:
    """Run the extractor in the caller's event loop (a synchronous one in a worker thread)."""
    import asyncio

    call = getattr(function, "__call__", None)  # noqa: B004 - an object with async __call__
    if inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call):
        return await function(session.new, session.summary)
    raw = await asyncio.to_thread(function, session.new, session.summary)
    if inspect.isawaitable(raw):
        raw = await raw
    return raw


async def _awaited(value: Any) -> Any:
    return await value
