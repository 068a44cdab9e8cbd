"""The documentation matches the code: every command has help and is in the README."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

import everbot_memory
from everbot_memory.faces.cli import app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _leaves(group: object, prefix: tuple[str, ...] = ()) -> dict[str, object]:
    """Every runnable command, sub-commands of groups included, by its full name."""
    found: dict[str, object] = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        path = (*prefix, name)
        if hasattr(command, "commands"):
            assert command.help, f"group {name} has no help"
            found.update(_leaves(command, path))
        else:
            found[" ".join(path)] = command
    return found


COMMANDS = _leaves(typer.main.get_command(app))


def test_there_are_commands() -> None:
    assert {"init", "remember", "forget", "list", "prompt", "maintain", "doctor"} <= set(COMMANDS)
    assert {"show", "stats", "close-session", "process-pending", "hook claude-code"} <= set(
        COMMANDS
    )


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_and_is_in_the_readme(name: str) -> None:
    command = COMMANDS[name]
    assert command.help and command.help.strip()  # type: ignore[attr-defined]
    for param in command.params:  # type: ignore[attr-defined]
        if param.param_type_name == "option":
            assert param.help, f"{name} {param.opts} has no help"
    assert re.search(rf"`everbot-memory {name}\b", README), f"{name} is not in the README"
    for flag in ("--help", "-h"):
        result = CliRunner().invoke(app, [*name.split(), flag])
        assert result.exit_code == 0 and "--file" in result.output, (name, flag)


COMMAND_LINE = README.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]
# The options every command (or every one of a kind) takes, said once above the table.
SHARED_OPTIONS = {"--file", "--json", "--quiet", "--help"}


def _row(name: str) -> str:
    """The README's table row for a command."""
    rows = [
        line
        for line in COMMAND_LINE.splitlines()
        if re.match(rf"\| `everbot-memory {re.escape(name)}(`| )", line)
    ]
    assert len(rows) == 1, f"{name}: {len(rows)} rows in the command table"
    return rows[0]


def _shown(option: object) -> bool:
    return not getattr(option, "hidden", False)


def test_shared_options_are_described_above_the_table() -> None:
    intro = COMMAND_LINE.split("\n| command |", 1)[0]
    for option in SHARED_OPTIONS - {"--help"}:
        assert f"`{option}" in intro, option
    assert "`-h`" in intro and "`everbot-memory --version`" in intro


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_of_a_command_is_in_its_readme_row(name: str) -> None:
    row = _row(name)
    for param in COMMANDS[name].params:  # type: ignore[attr-defined]
        if param.param_type_name != "option" or not _shown(param):
            continue
        if SHARED_OPTIONS & set(param.opts):
            continue
        said = [o for o in param.opts if re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", row)]
        assert said, f"{name} {param.opts} is not in its README row"


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"mcp", "hook claude-code"}))
def test_every_command_that_prints_data_takes_json(name: str) -> None:
    options = {o for p in COMMANDS[name].params for o in p.opts}  # type: ignore[attr-defined]
    assert "--json" in options, name


@pytest.mark.parametrize("args", [[], ["hook"]])
def test_groups_answer_dash_h(args: list[str]) -> None:
    for flag in ("-h", "--help"):
        result = CliRunner().invoke(app, [*args, flag])
        assert result.exit_code == 0 and "Usage" in result.output, (args, flag)


MODULES = sorted(
    name
    for _, name, is_package in pkgutil.walk_packages(everbot_memory.__path__, "everbot_memory.")
    if not is_package and not name.endswith("__main__") and not name.endswith(".mcp")
)


@pytest.mark.parametrize("module", MODULES)
def test_all_lists_exactly_the_public_names(module: str) -> None:
    mod = importlib.import_module(module)
    defined = {
        name
        for name, value in vars(mod).items()
        if not name.startswith("_")
        and getattr(value, "__module__", None) == mod.__name__
        and (callable(value) or isinstance(value, type))
    }
    assert defined <= set(mod.__all__), defined - set(mod.__all__)
    assert all(hasattr(mod, name) for name in mod.__all__)


def test_package_all_is_importable() -> None:
    assert all(hasattr(everbot_memory, name) for name in everbot_memory.__all__)


def test_every_public_name_has_a_docstring() -> None:
    for name in everbot_memory.__all__:
        value = getattr(everbot_memory, name)
        if callable(value):
            assert value.__doc__, name


def test_lazy_package_names_match_all() -> None:
    from everbot_memory import _WHERE

    assert sorted([*_WHERE, "__version__"]) == sorted(everbot_memory.__all__)


def test_session_start_path_imports_neither_pydantic_nor_the_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, everbot_memory.faces.cli, everbot_memory.faces.hooks\n"
        "heavy = [m for m in ('pydantic.main', 'anthropic', 'asyncio') if m in sys.modules]\n"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_cli_choices_match_the_engines_lists() -> None:
    from everbot_memory.core.rules import CATEGORIES, IMPORTANCES

    def choices(command: str, option: str) -> tuple[str, ...]:
        param = next(p for p in COMMANDS[command].params if option in p.opts)  # type: ignore[attr-defined]
        return tuple(param.metavar.split("|"))

    assert choices("remember", "--category") == CATEGORIES
    assert choices("list", "--category") == CATEGORIES
    assert choices("remember", "--importance") == IMPORTANCES


ARCHITECTURE = (Path(__file__).resolve().parent.parent / "ARCHITECTURE.md").read_text(
    encoding="utf-8"
)
ROOT = Path(__file__).resolve().parent.parent


def test_architecture_names_only_paths_and_names_that_exist() -> None:
    for row in re.findall(r"^\| [^|]+ \| (`everbot_memory/.*)\|$", ARCHITECTURE, re.M):
        # "`path`: `name`, `name`; `path`: `name`" — each path, then the names it defines.
        for part in row.split(";"):
            paths = re.findall(r"`(everbot_memory/[^`]+)`", part)
            assert paths, row
            for path in paths:
                assert (ROOT / path).exists(), path
            names = re.findall(r"`(\w+)`", part.split(":", 1)[1]) if ":" in part else []
            if names:
                module = importlib.import_module(paths[-1].removesuffix(".py").replace("/", "."))
                missing = [n for n in names if not hasattr(module, n)]
                assert not missing, (paths[-1], missing)


def test_architecture_layers_match_the_layering_test() -> None:
    from test_layers import ALLOWED

    table = {}
    for folder, imports in re.findall(
        r"^\| \w+ \| `(\w+)/` \| [^|]+ \| ([^|]+) \|$", ARCHITECTURE, re.M
    ):
        table[folder] = imports
    assert set(table) == set(ALLOWED) - {"errors"}
    for layer, allowed in ALLOWED.items():
        if layer in ("errors", "core"):
            continue
        said = table[layer]
        if "everything below" in said:
            below = [name for name in ALLOWED if name not in (layer, "faces", "errors")]
            assert allowed >= set(below) - {"facade"}, layer
            continue
        named = {w for w in re.findall(r"[a-z]+", said) if w in ALLOWED}
        assert named | {"errors"} == allowed | {"errors"}, (layer, named, allowed)
