"""The session ledger: which messages of each session are already merged into MEMORY.md.

``.MEMORY.md.everbot/sessions.json`` maps a session id to how many of its messages were merged and a
digest of those messages. Closing a session again (a PreCompact, then the SessionEnd; or a
close-session run twice) extracts only what came after; with nothing new, nothing changes.
If the start of the conversation differs from what was recorded (a rewritten transcript), the
whole conversation is read again. Deleting the file loses only this: a session closed again
would then be counted again. A session split between two memories (the user's and a
project's) is recorded in the ledger of each, as each part is saved.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from .atomic import write_atomically
from .paths import SideFiles

__all__ = ["MAX_SESSIONS", "SessionLedger"]

#: The ledger remembers at most this many sessions, the most recently closed ones: a session
#: closed again after it was pruned is counted again, nothing worse.
MAX_SESSIONS = 1_000


def _digest(messages: Sequence[Mapping[str, Any]]) -> str:
    digest = hashlib.sha256()
    for message in messages:
        digest.update(json.dumps([message.get("role"), message.get("content")]).encode())
    return digest.hexdigest()


class SessionLedger:
    """The ledger beside one memory file."""

    def __init__(self, memory_path: str | os.PathLike[str]) -> None:
        self.files = SideFiles.of(memory_path)
        self.path = self.files.sessions

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # no ledger yet, or a damaged one: sessions are read from the start
        return data if isinstance(data, dict) else {}

    def clear(self, keep_for_others: bool = False) -> None:
        """Forget every session: the memory file they were merged into is gone.

        ``keep_for_others``: a record written before split sessions were recorded in each
        memory's ledger stands for the other memory too (the project's, see :meth:`split`);
        it is kept, marked as held elsewhere only, so that the other memory is not given the
        session again (:meth:`hand_over` gives it its own record)."""
        if not keep_for_others:
            self.path.unlink(missing_ok=True)
            return
        kept = {
            session: {**record, "elsewhere": True}
            for session, record in self._read().items()
            if isinstance(record, dict) and not record.get("split")
        }
        if not kept:
            self.path.unlink(missing_ok=True)
            return
        with contextlib.suppress(OSError):
            write_atomically(self.path, json.dumps(kept, indent=0).encode())

    def _own(self, session_id: str) -> dict[str, Any] | None:
        """The record of a session this memory holds (not one held elsewhere only)."""
        record = self._read().get(session_id)
        if not isinstance(record, dict) or record.get("elsewhere"):
            return None
        return record

    def hand_over(self, session_id: str, other: SessionLedger) -> None:
        """Give ``other`` its own copy of a record that stands for it too (one written before
        split sessions were recorded in each memory's ledger), when it has none: this
        ledger's record may be rewritten as split, or cleared, and the other memory would
        then be given the session again."""
        record = self._read().get(session_id)
        if not isinstance(record, dict) or record.get("split"):
            return
        data = other._read()
        if session_id in data:
            return
        data[session_id] = {"count": record.get("count"), "digest": record.get("digest")}
        with contextlib.suppress(OSError):
            other.files.ensure()
            write_atomically(other.path, json.dumps(data, indent=0).encode())

    def seen(self, session_id: str) -> bool:
        """True when this session was merged before."""
        return self._own(session_id) is not None

    def split(self, session_id: str) -> bool:
        """True when this session was recorded as split with another memory, which keeps
        its own record of it (a record written before that, or for this memory alone,
        stands for every memory the session fed then)."""
        record = self._read().get(session_id)
        return isinstance(record, dict) and record.get("split") is True

    def unseen(
        self, session_id: str, messages: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any]]:
        """The messages of this session not merged yet."""
        return self._after(self._own(session_id), messages)

    def unseen_by_others(
        self, session_id: str, messages: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any]] | None:
        """The messages of this session not merged yet into the other memory a record written
        before split sessions stands for (see :meth:`hand_over`); None when there is none."""
        record = self._read().get(session_id)
        if not isinstance(record, dict) or record.get("split"):
            return None
        return self._after(record, messages)

    @staticmethod
    def _after(
        record: dict[str, Any] | None, messages: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any]]:
        if record is not None:
            count = record.get("count")
            if (
                isinstance(count, int)
                and 0 <= count <= len(messages)
                and _digest(messages[:count]) == record.get("digest")
            ):
                return list(messages[count:])
        return list(messages)

    def record(
        self, session_id: str, messages: Sequence[Mapping[str, Any]], split: bool = False
    ) -> None:
        """Mark all these messages as merged (call under the MEMORY.md lock, after the save);
        ``split``: the session also feeds another memory, which records it itself."""
        data = self._read()
        data.pop(session_id, None)  # re-inserted last: the dict keeps the order of closing
        data[session_id] = {"count": len(messages), "digest": _digest(messages)}
        if split:
            data[session_id]["split"] = True
        for old in list(data)[: max(0, len(data) - MAX_SESSIONS)]:
            del data[old]
        # A ledger that cannot be written costs only a recount if the session comes again.
        with contextlib.suppress(OSError):
            self.files.ensure()
            write_atomically(self.path, json.dumps(data, indent=0).encode())
