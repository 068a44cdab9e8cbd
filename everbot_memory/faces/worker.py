"""Starting the detached worker that extracts the sessions hooks queued.

A session-end hook must return at once (Claude Code kills it after 1.5 s), so it only queues
the session and starts ``everbot-memory process-pending`` as a process of its own session,
which outlives the hook.
"""

from __future__ import annotations

import os
import subprocess
import sys

from ..facade.memory import Memory

__all__ = ["start_worker"]


def start_worker(memory_path: str | os.PathLike[str]) -> int:
    """Start a detached ``process-pending`` worker; returns its pid at once."""
    memory = Memory(memory_path)
    memory.jobs.log("starting a worker")  # creates the log 0600 before the child appends to it
    log = open(memory.jobs.log_path, "ab")  # noqa: SIM115 - handed to the child, closed below
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "everbot_memory",
                "process-pending",
                "--quiet",
                "--file",
                str(memory_path),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives the hook, which Claude Code may kill
            close_fds=True,
        )
    finally:
        log.close()
    return process.pid
