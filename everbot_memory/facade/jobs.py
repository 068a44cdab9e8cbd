"""The worker that empties the job queue (see :mod:`everbot_memory.storage.queue`).

A worker takes the queue's worker lock (one worker at a time), processes the jobs oldest first,
and deletes each when its memories are saved. A job that fails is retried by the next worker
run, up to :data:`MAX_ATTEMPTS` times, then set aside in ``failed/``. A session seen at
PreCompact and again at SessionEnd only has its new messages extracted (the session ledger).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import EverbotMemoryError
from ..storage.queue import Job, JobQueue

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["MAX_ATTEMPTS", "WorkReport", "work"]

MAX_ATTEMPTS = 3


@dataclass
class WorkReport:
    """What a worker run did."""

    done: int = 0
    failed: int = 0
    new: int = 0
    updated: int = 0
    messages: list[str] = field(default_factory=list)


class _StopRun(Exception):
    """Ends a worker run after a failure that may pass (the next run retries)."""


def work(memory: Memory, make_extractor: Callable[[], Any] | None = None) -> WorkReport | None:
    """Process every pending job of ``memory``'s queue; None when another worker is at it."""
    queue = JobQueue(memory.path)
    report = WorkReport()
    with queue.worker_slot() as taken:
        if not taken:
            return None
        try:
            while jobs := queue.pending():
                for job in jobs:
                    _run(memory, queue, job, report, make_extractor)
        except _StopRun:
            pass  # a job failed: the next worker run tries again, not a tight loop now
    return report


def _run(
    memory: Memory,
    queue: JobQueue,
    job: Job,
    report: WorkReport,
    make_extractor: Callable[[], Any] | None,
) -> None:
    from .memory import Memory

    try:
        worker = Memory(memory.path, lock_timeout=memory.lock_timeout)
        worker.extractor = make_extractor() if make_extractor else "auto"
        result = worker.close_transcript(job.transcript_path, session_id=job.session_id)
        for warning in result.warnings:
            queue.log(f"session {job.session_id}: {warning}")
        queue.done(job)
        stats = result.stats
        report.done += 1
        report.new += stats["new"]
        report.updated += stats["updated"]
        report.messages.append(
            f"session {job.session_id} ({job.event}): {stats['messages']} new message(s), "
            f"{stats['new']} new and {stats['updated']} updated memories"
        )
        queue.log(report.messages[-1])
    except (EverbotMemoryError, OSError) as exc:  # TranscriptError is one of the former
        job.attempts += 1
        report.failed += 1
        message = f"session {job.session_id} ({job.event}) failed: {exc}"
        report.messages.append(message)
        if job.attempts >= MAX_ATTEMPTS:
            queue.log(f"{message}; gave up after {job.attempts} attempts (job in failed/)")
            assert job.path is not None
            queue.fail(job.path)
        else:
            queue.log(f"{message}; will retry ({job.attempts}/{MAX_ATTEMPTS})")
            queue.update(job)
            raise _StopRun() from exc
