"""The README's quick start, run twice in a fresh folder as written, with two substitutions.

What is substituted, and why:

- ``python3 -m venv .venv`` and ``.venv/bin/pip install -q .`` are not run: they would build a
  new environment from PyPI on every test run. The commands after them run with the
  environment these tests run in (the same package, installed), so ``.venv/bin/`` becomes
  that environment's ``bin/`` folder.
- ``/tmp/everbot-demo.md`` becomes a file in the test's own temporary folder, so the test never
  touches a real ``/tmp/everbot-demo.md`` and runs alongside others.

Everything else runs as written, through ``sh``, from a fresh folder holding only the files the
commands name (copied from the repository), with no API key in the environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUP = ["python3 -m venv .venv", ".venv/bin/pip install -q ."]
DEMO_FILE = "/tmp/everbot-demo.md"


def quick_start_command() -> str:
    """The first command of the README's quick start (the main job)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Quick start") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has no sh block"
    commands = [line for line in block.group(1).splitlines() if line and not line.startswith("#")]
    return commands[0]


def substituted(command: str, demo_file: Path) -> str:
    """The command without the set-up steps, run with this environment's ``bin/``."""
    steps = command.split(" && ")
    assert steps[: len(SETUP)] == SETUP, "the quick start's set-up changed: update this test"
    rest = " && ".join(steps[len(SETUP) :])
    assert ".venv/bin/" in rest and DEMO_FILE in rest
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "everbot-memory").exists():
        pytest.skip("the everbot-memory command is not installed in this environment")
    return rest.replace(".venv/bin/", f"{bin_dir}/").replace(DEMO_FILE, str(demo_file))


def test_the_quick_start_prints_the_memory_block_every_time(tmp_path: Path) -> None:
    folder = tmp_path / "clone"
    demo_file = tmp_path / "everbot-demo.md"
    command = substituted(quick_start_command(), demo_file)
    for name in re.findall(r"\bfixtures/\S+", command):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, folder / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVERBOT_"))}

    outputs = []
    for _ in range(2):
        result = subprocess.run(
            ["sh", "-c", command],
            cwd=folder,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert "nothing new" not in result.stdout + result.stderr
        outputs.append(result.stdout)

    for output in outputs:
        closed, _, block = output.partition("\n")
        assert re.fullmatch(
            r"session \S+: new 10, updated 0, archived 0, forgotten 0; 10 memories "
            r"\(rules extractor\)",
            closed,
        )
        assert block.startswith("# Memories about the user\n")
        memories = block.split("<memories>\n")[1].split("</memories>")[0].splitlines()
        assert len(memories) == 10
        assert "- The user's name is Lena." in memories and "- 用户住在柏林" in memories
    # The same memories both times (memories of equal score may be listed in another order).
    assert sorted(outputs[0].splitlines()) == sorted(outputs[1].splitlines())
    assert demo_file.exists()
