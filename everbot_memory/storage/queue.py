"""The job queue's files beside MEMORY.md, and the log hooks and workers write to.

A session-end hook must return in about a second, but extraction can take many, so the hook
only records a job: one JSON file in ``.MEMORY.md.everbot/jobs/``, written atomically. A job
that failed records its attempts, its last error and when it may be tried again
(``not_before``); one that failed too often moves to ``.MEMORY.md.everbot/jobs/failed/``, with
its reason, until it is retried or expires. This module keeps the files; the worker that
empties the queue is in the facade. Deleting the folder loses only the jobs not yet done.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from .atomic import write_atomically
from .paths import SideFiles

TYPE_CHECKING = False  # the hooks queue jobs: nothing here loads typing or dataclasses
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FAILED_JOB_DAYS", "LOG_MAX_BYTES", "Job", "JobQueue"]

#: The log is rotated past this size (one older log, ``.MEMORY.md.everbot/log.1``, is kept).
LOG_MAX_BYTES = 1_000_000
#: A failed job is kept this long for a person to look at or retry, then removed.
FAILED_JOB_DAYS = 30


class Job:
    """One session to extract: where its transcript is and what event queued it.

    ``not_before``: not to be tried before this time (seconds since the epoch), as a failed
    job waits; ``error``: why the last attempt failed; ``memories``: the other memory files
    the session is extracted into (a project's, beside the user's); ``path``: the job's file,
    once queued.
    """

    __slots__ = (
        "attempts",
        "error",
        "event",
        "memories",
        "not_before",
        "path",
        "queued_at",
        "session_id",
        "transcript_path",
    )

    def __init__(
        self,
        session_id: str,
        transcript_path: str,
        event: str,
        queued_at: float | None = None,
        attempts: int = 0,
        not_before: float = 0.0,
        error: str = "",
        memories: list[str] | None = None,
        path: Path | None = None,
    ) -> None:
        self.session_id, self.transcript_path, self.event = session_id, transcript_path, event
        self.queued_at = time.time() if queued_at is None else queued_at
        self.attempts, self.not_before, self.error = attempts, not_before, error
        self.memories: list[str] = list(memories or [])
        self.path = path

    def __repr__(self) -> str:
        return f"Job({self.session_id!r}, {self.event!r}, attempts={self.attempts})"

    @property
    def damaged(self) -> bool:
        """True for a job file that could not be read (listed by :meth:`JobQueue.failed`):
        nothing in it can be retried."""
        return not self.transcript_path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Job):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def to_json(self) -> dict[str, Any]:
        """The job as it is stored."""
        return {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "event": self.event,
            "queued_at": self.queued_at,
            "attempts": self.attempts,
            "not_before": self.not_before,
            "error": self.error,
            **({"memories": self.memories} if self.memories else {}),
        }

    @classmethod
    def read(cls, path: Path) -> Job:
        """The job stored in ``path``; OSError, ValueError, KeyError or TypeError if it cannot
        be read."""
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            session_id=str(data["session_id"]),
            transcript_path=str(data["transcript_path"]),
            event=str(data.get("event", "")),
            queued_at=float(data.get("queued_at", 0)),
            attempts=int(data.get("attempts", 0)),
            not_before=float(data.get("not_before", 0)),
            error=str(data.get("error", "")),
            memories=[str(m) for m in data.get("memories", [])],
            path=path,
        )


class JobQueue:
    """The queue folder of one memory file: ``.MEMORY.md.everbot/jobs/``."""

    def __init__(self, memory_path: str | os.PathLike[str]) -> None:
        self.memory_path = Path(memory_path)
        files = SideFiles.of(memory_path)
        self.folder = files.jobs
        self.failed_folder = self.folder / "failed"
        self.log_path = files.log

    def add(self, job: Job) -> Path:
        """Record a job durably (temp file, fsync, rename) and return its file."""
        SideFiles.of(self.memory_path).ensure()
        self.folder.mkdir(mode=0o700, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.urandom(4).hex()}.json"
        write_atomically(self.folder / name, json.dumps(job.to_json()).encode())
        return self.folder / name

    def expire_failed(self) -> int:
        """Remove failed jobs older than :data:`FAILED_JOB_DAYS`; returns how many."""
        cutoff = time.time() - FAILED_JOB_DAYS * 86_400
        removed = 0
        for path in self.failed_folder.glob("*.json") if self.failed_folder.is_dir() else []:
            with contextlib.suppress(OSError):  # removed by another worker meanwhile
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
        return removed

    def pending(self) -> list[Job]:
        """The jobs not yet done, oldest first; an unreadable job file is moved to failed/."""
        if not self.folder.is_dir():
            return []
        jobs = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                job = Job.read(path)
            except FileNotFoundError:
                continue  # done or set aside by another worker meanwhile
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self.log(f"unreadable job {path.name} moved to failed/: {exc}")
                self.fail(path)
                continue
            jobs.append(job)
        return jobs

    def failed(self) -> list[Job]:
        """The jobs set aside in ``failed/``, oldest first. A file that cannot be read (a
        damaged job, set aside by :meth:`pending`) is listed too, as a job with no transcript
        whose error says so: it cannot be retried, and a person should know it is there."""
        if not self.failed_folder.is_dir():
            return []
        jobs = []
        for path in sorted(self.failed_folder.glob("*.json")):
            try:
                jobs.append(Job.read(path))
            except FileNotFoundError:
                continue  # removed meanwhile
            except (OSError, ValueError, KeyError, TypeError) as exc:
                said = f"the job file cannot be read ({exc}); look at it, then remove {path}"
                jobs.append(Job(path.stem, "", "", 0.0, error=said, path=path))
        return jobs

    def retry(self, job: Job) -> None:
        """Queue ``job`` again (from ``failed/``, or one waiting), due now with fresh attempts."""
        assert job.path is not None
        job.attempts, job.not_before = 0, 0.0
        SideFiles.of(self.memory_path).ensure()
        self.folder.mkdir(mode=0o700, exist_ok=True)
        path = self.folder / job.path.name
        write_atomically(path, json.dumps(job.to_json()).encode())
        if job.path != path:
            job.path.unlink(missing_ok=True)
        job.path = path

    def update(self, job: Job) -> None:
        """Store the job's attempts, error and next time (one that cannot be rewritten is
        retried as it was)."""
        assert job.path is not None
        with contextlib.suppress(OSError):
            write_atomically(job.path, json.dumps(job.to_json()).encode())

    def done(self, job: Job) -> None:
        """Remove a finished job."""
        assert job.path is not None
        job.path.unlink(missing_ok=True)

    def fail(self, path: Path) -> None:
        """Set a job aside in ``failed/``."""
        SideFiles.of(self.memory_path).ensure()
        self.folder.mkdir(mode=0o700, exist_ok=True)
        self.failed_folder.mkdir(mode=0o700, exist_ok=True)
        with contextlib.suppress(OSError):  # already moved by another worker
            os.replace(path, self.failed_folder / path.name)

    @contextlib.contextmanager
    def worker_slot(self) -> Iterator[bool]:
        """The one-worker-at-a-time lock; yields False when another worker holds it."""
        from .lock import try_lock  # here: the hooks that queue a job load no lock library

        SideFiles.of(self.memory_path).ensure()
        self.folder.mkdir(mode=0o700, exist_ok=True)
        with try_lock(self.folder / "worker.lock") as taken:
            yield taken

    def log(self, message: str) -> None:
        """Append a line to ``.MEMORY.md.everbot/log`` (hooks must not print to the agent)."""
        SideFiles.of(self.memory_path).ensure()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        line = f"{stamp} [{os.getpid()}] {message}\n".encode()
        # A log that cannot be written must not break a hook. 0600: it names sessions.
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > LOG_MAX_BYTES:
                os.replace(self.log_path, self.log_path.with_name(self.log_path.name + ".1"))
        with contextlib.suppress(OSError):
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
