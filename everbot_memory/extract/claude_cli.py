"""The claude-cli backend: the user's own ``claude`` program (Claude Code), run headless.

Each request is one ``claude -p`` run: the conversation on standard input, our system prompt,
no tools, one answer as JSON (``--output-format json``) and, where the installed version has
``--json-schema``, the contract's schema, which Claude Code enforces itself. The program signs
in as it always does; this module never reads its credentials. It spends the user's Claude
usage, so it runs only when chosen by name.

The child must not start this engine again: Claude Code fires hooks, and this engine is
installed as one. So the child runs with :data:`CHILD_ENV` set (every hook entry point returns
at once when it sees it) and with hooks switched off in its settings. Each run is bounded by
``timeout`` and killed past it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

from ..errors import AnswerError, ExtractionError
from .child import CHILD_ENV
from .llm import RETRY_LATER, Call, LLMExtractor, Reply, refused

__all__ = ["DEFAULT_MODEL", "DEFAULT_TIMEOUT", "PROGRAM", "ClaudeCliExtractor", "find_program"]

#: A small, quick model: extraction does not need a large one.
DEFAULT_MODEL = "haiku"
#: Seconds one run may take: the program's start, its sign-in check and the model's answer.
DEFAULT_TIMEOUT = 180.0
PROGRAM = "claude"
#: Settings for the child: no hooks of any kind (ours, or anything else the user set up).
CHILD_SETTINGS = json.dumps({"disableAllHooks": True})


def find_program(program: str = PROGRAM) -> str:
    """The ``claude`` program's path; :class:`ExtractionError` when it is not on PATH."""
    found = shutil.which(program)
    if found is None:
        raise ExtractionError(
            f"the claude-cli extractor needs the {program!r} program (Claude Code) on PATH; "
            "install it, or choose another extractor"
        )
    return found


class ClaudeCliExtractor(LLMExtractor):
    """Extraction with the ``claude`` program in print mode, one run per request."""

    name = "claude-cli"

    def __init__(
        self,
        *,
        model: str | None = None,
        timeout: float | None = None,
        program: str = PROGRAM,
    ) -> None:
        super().__init__(
            model=model or DEFAULT_MODEL,
            timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        )
        self.program = program
        self._schema_flag: bool | None = None  # whether this claude has --json-schema

    def _arguments(self, call: Call, schema: bool) -> list[str]:
        args = [
            "-p",
            "--output-format",
            "json",
            "--model",
            self.model,
            "--tools",
            "",  # no tools: one answer, nothing run on the user's machine
            "--system-prompt",
            call.system,
            "--settings",
            CHILD_SETTINGS,
            "--no-session-persistence",  # not a session of the user's to resume
        ]
        if call.structured and schema:
            args += ["--json-schema", json.dumps(call.answer_schema())]
        return args

    @staticmethod
    def _stdin(call: Call) -> str:
        """The turns as one prompt: a print-mode run takes a single user message."""
        first, *rest = (text for _, text in call.turns)
        if not rest:
            return first
        previous, repair = rest[-2], rest[-1]
        return f"{first}\n\n<your_previous_answer>\n{previous}\n</your_previous_answer>\n\n{repair}"

    @staticmethod
    def _environment() -> dict[str, str]:
        return {**os.environ, CHILD_ENV: "1"}

    def _has_schema_flag(self, path: str) -> bool:
        """Whether the installed ``claude`` takes ``--json-schema`` (older ones do not)."""
        if self._schema_flag is None:
            try:
                shown = subprocess.run(
                    [path, "--help"],
                    capture_output=True,
                    text=True,
                    timeout=min(self.timeout, 30.0),
                    env=self._environment(),
                    check=False,
                )
                self._schema_flag = "--json-schema" in shown.stdout
            except (OSError, subprocess.TimeoutExpired):
                self._schema_flag = False  # the run itself will say what is wrong
        return self._schema_flag

    def _send(self, call: Call) -> Reply:
        path = find_program(self.program)
        args = [path, *self._arguments(call, self._has_schema_flag(path))]
        try:
            done = subprocess.run(
                args,
                input=self._stdin(call),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                env=self._environment(),
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise self._timed_out() from exc
        except OSError as exc:
            raise ExtractionError(f"cannot run {path}: {exc.strerror or exc}") from exc
        return self._reply(done.returncode, done.stdout, done.stderr, call)

    async def _asend(self, call: Call) -> Reply:
        path = find_program(self.program)
        schema = await asyncio.to_thread(self._has_schema_flag, path)
        try:
            process = await asyncio.create_subprocess_exec(
                path,
                *self._arguments(call, schema),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self._environment(),
            )
        except OSError as exc:
            raise ExtractionError(f"cannot run {path}: {exc.strerror or exc}") from exc
        try:
            out, err = await asyncio.wait_for(
                process.communicate(self._stdin(call).encode()), self.timeout
            )
        except asyncio.TimeoutError as exc:
            process.kill()
            await process.wait()
            raise self._timed_out() from exc
        assert process.returncode is not None
        return self._reply(
            process.returncode, out.decode(errors="replace"), err.decode(errors="replace"), call
        )

    def _timed_out(self) -> ExtractionError:
        return ExtractionError(
            f"claude did not answer within {self.timeout:g} s (stopped); raise `timeout` "
            "in the config or EVERBOT_MEMORY_TIMEOUT"
        )

    def _reply(self, status: int, stdout: str, stderr: str, call: Call) -> Reply:
        """The model's answer from the program's JSON result, or an error saying why not."""
        result = _result(stdout)
        if status != 0 or result is None or result.get("is_error"):
            detail = _last_line(str(result.get("result") or "") if result else "", stderr, stdout)
            if status == 0 and result is not None:
                raise ExtractionError(f"claude reported an error: {detail}")
            raise ExtractionError(f"claude exited with status {status}: {detail}")
        if result.get("stop_reason") == "refusal":
            raise refused(_last_line(str(result.get("result") or ""), "", "") or "no reason given")
        structured = result.get("structured_output")
        if call.structured and isinstance(structured, Mapping):
            return structured
        text = result.get("result")
        if not isinstance(text, str):
            raise AnswerError(
                "the model's answer was empty", f"claude printed no result; {RETRY_LATER}"
            )
        return text

    def check(self) -> str:
        """``claude --version``: the program is there and runs (no request, no usage)."""
        path = find_program(self.program)
        try:
            shown = subprocess.run(
                [path, "--version"],
                capture_output=True,
                text=True,
                timeout=min(self.timeout, 30.0),
                env=self._environment(),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ExtractionError(f"cannot run {path} --version: {exc}") from exc
        if shown.returncode != 0:
            raise ExtractionError(
                f"{path} --version exited with status {shown.returncode}: "
                f"{_last_line('', shown.stderr, shown.stdout)}"
            )
        return f"{path} runs ({shown.stdout.strip() or 'no version printed'})"


def _result(stdout: str) -> dict[str, Any] | None:
    """The program's one JSON result object (its envelope, not the model's text)."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _last_line(*texts: str) -> str:
    """The last non-empty line of the first text that has one: what a program said last."""
    for text in texts:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if lines:
            return lines[-1][:300]
    return "no message"
