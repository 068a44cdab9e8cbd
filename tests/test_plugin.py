"""The Claude Code plugin (``everbot_memory/claude_plugin/``) and the repository's marketplace
(``.claude-plugin/marketplace.json``).

Every manifest is checked against the documented format, written here as data: the required
fields are there, every key is a documented one, every value has its type, and every path a
manifest names exists. Then the real ``claude`` program, when it is installed, validates both,
adds the marketplace and installs the plugin into a scratch home, offline.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import everbot_memory

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "everbot_memory"
PLUGIN = PACKAGE / "claude_plugin"
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
MANIFEST = PLUGIN / ".claude-plugin" / "plugin.json"
HOOKS = PLUGIN / "hooks" / "hooks.json"
MCP = PLUGIN / ".mcp.json"
SKILLS = sorted(PLUGIN.glob("skills/*/SKILL.md"))

# The one command every hook runs, and the MCP server the plugin starts (the user's memory).
HOOK_COMMAND = "everbot-memory hook claude-code"
MCP_COMMAND = ["everbot-memory", "mcp", "--user"]

# ---- The documented format, as data: field -> (required, allowed types) ----

Schema = dict[str, tuple[bool, tuple[type, ...]]]
REQUIRED, OPTIONAL = True, False
STR: tuple[type, ...] = (str,)
LIST: tuple[type, ...] = (list,)
DICT: tuple[type, ...] = (dict,)
BOOL: tuple[type, ...] = (bool,)
NUMBER: tuple[type, ...] = (int, float)
PATHS: tuple[type, ...] = (str, list)  # one path or a list of them
PATHS_OR_INLINE: tuple[type, ...] = (str, list, dict)  # ... or the configuration inline

AUTHOR: Schema = {
    "name": (REQUIRED, STR),
    "email": (OPTIONAL, STR),
    "url": (OPTIONAL, STR),
}

# .claude-plugin/plugin.json: only `name` is required.
PLUGIN_FIELDS: Schema = {
    "$schema": (OPTIONAL, STR),
    "name": (REQUIRED, STR),
    "version": (OPTIONAL, STR),
    "description": (OPTIONAL, STR),
    "author": (OPTIONAL, DICT),
    "homepage": (OPTIONAL, STR),
    "repository": (OPTIONAL, STR),
    "license": (OPTIONAL, STR),
    "keywords": (OPTIONAL, LIST),
    "skills": (OPTIONAL, PATHS),
    "commands": (OPTIONAL, PATHS),
    "agents": (OPTIONAL, PATHS),
    "hooks": (OPTIONAL, PATHS_OR_INLINE),
    "mcpServers": (OPTIONAL, PATHS_OR_INLINE),
    "outputStyles": (OPTIONAL, PATHS),
    "lspServers": (OPTIONAL, PATHS_OR_INLINE),
    "userConfig": (OPTIONAL, DICT),
    "channels": (OPTIONAL, LIST),
    "dependencies": (OPTIONAL, LIST),
    "experimental": (OPTIONAL, DICT),
}
# The manifest fields that name files or folders of the plugin.
COMPONENT_PATHS = ("skills", "commands", "agents", "hooks", "mcpServers", "outputStyles")

# .claude-plugin/marketplace.json at the marketplace's root.
MARKETPLACE_FIELDS: Schema = {
    "$schema": (OPTIONAL, STR),
    "name": (REQUIRED, STR),
    "owner": (REQUIRED, DICT),
    "plugins": (REQUIRED, LIST),
    "description": (OPTIONAL, STR),
    "version": (OPTIONAL, STR),
    "metadata": (OPTIONAL, DICT),
}
MARKETPLACE_METADATA: Schema = {
    "description": (OPTIONAL, STR),
    "version": (OPTIONAL, STR),
    "pluginRoot": (OPTIONAL, STR),
}
# A marketplace's plugin entry: any manifest field, plus where to fetch the plugin from and
# the marketplace's own fields.
PLUGIN_ENTRY_FIELDS: Schema = {
    **{k: v for k, v in PLUGIN_FIELDS.items() if k != "$schema"},
    "source": (REQUIRED, (str, dict)),
    "displayName": (OPTIONAL, STR),
    "category": (OPTIONAL, STR),
    "tags": (OPTIONAL, LIST),
    "strict": (OPTIONAL, BOOL),
}
# Names only Anthropic's own marketplaces may take.
RESERVED_MARKETPLACE_NAMES = {
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "claude-plugins-community",
    "claude-community",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
    "knowledge-work-plugins",
    "life-sciences",
    "healthcare",
}

# hooks/hooks.json: the events, each a list of matcher groups, each a list of handlers.
HOOKS_FILE_FIELDS: Schema = {
    "description": (OPTIONAL, STR),
    "hooks": (REQUIRED, DICT),
}
MATCHER_GROUP_FIELDS: Schema = {
    "matcher": (OPTIONAL, STR),
    "hooks": (REQUIRED, LIST),
}
COMMAND_HANDLER_FIELDS: Schema = {
    "type": (REQUIRED, STR),
    "command": (REQUIRED, STR),
    "args": (OPTIONAL, LIST),
    "timeout": (OPTIONAL, NUMBER),
    "async": (OPTIONAL, BOOL),
    "shell": (OPTIONAL, STR),
    "statusMessage": (OPTIONAL, STR),
    "if": (OPTIONAL, STR),
    "once": (OPTIONAL, BOOL),
}
HOOK_EVENTS = {
    "SessionStart",
    "Setup",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "MessageDisplay",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "InstructionsLoaded",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
}
# What a matcher may name, for the events whose matcher is a fixed set of values ...
MATCHER_VALUES = {
    "SessionStart": {"startup", "resume", "clear", "compact", "fork"},
    "SessionEnd": {"clear", "resume", "logout", "prompt_input_exit", "other"},
    "PreCompact": {"manual", "auto"},
    "PostCompact": {"manual", "auto"},
}
# ... and the events that take no matcher at all (one would be ignored).
NO_MATCHER = {
    "UserPromptSubmit",
    "PostToolBatch",
    "Stop",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "WorktreeCreate",
    "WorktreeRemove",
    "CwdChanged",
}

# .mcp.json: servers by name; ours runs over stdio.
MCP_FILE_FIELDS: Schema = {"mcpServers": (REQUIRED, DICT)}
STDIO_SERVER_FIELDS: Schema = {
    "type": (OPTIONAL, STR),
    "command": (REQUIRED, STR),
    "args": (OPTIONAL, LIST),
    "env": (OPTIONAL, DICT),
    "cwd": (OPTIONAL, STR),
    "timeout": (OPTIONAL, NUMBER),
}

# SKILL.md's frontmatter. Claude Code needs none of it; this plugin's skills give both the
# name and the description, which is what the model reads to decide when to use the skill.
SKILL_FIELDS: Schema = {
    "name": (REQUIRED, STR),
    "description": (REQUIRED, STR),
    "when_to_use": (OPTIONAL, STR),
    "argument-hint": (OPTIONAL, STR),
    "arguments": (OPTIONAL, STR),
    "disable-model-invocation": (OPTIONAL, STR),
    "user-invocable": (OPTIONAL, STR),
    "allowed-tools": (OPTIONAL, STR),
    "disallowed-tools": (OPTIONAL, STR),
    "model": (OPTIONAL, STR),
    "effort": (OPTIONAL, STR),
    "context": (OPTIONAL, STR),
    "agent": (OPTIONAL, STR),
    "paths": (OPTIONAL, STR),
    "shell": (OPTIONAL, STR),
    "license": (OPTIONAL, STR),
    "compatibility": (OPTIONAL, STR),
}
# The skill listing cuts a skill's description (with when_to_use) at this many characters.
SKILL_DESCRIPTION_MAX = 1536

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
SEMVER = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")


def problems(data: Any, schema: Schema, where: str) -> list[str]:
    """What in ``data`` breaks ``schema``: a missing required field, an unknown key, a value
    of the wrong type (a boolean is not a number here)."""
    if not isinstance(data, dict):
        return [f"{where}: expected an object, found {type(data).__name__}"]
    found = []
    for key, (required, _) in schema.items():
        if required and key not in data:
            found.append(f"{where}: the required field {key!r} is missing")
    for key, value in data.items():
        if key not in schema:
            found.append(f"{where}: {key!r} is not a documented field")
            continue
        types = schema[key][1]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            expected = " or ".join(t.__name__ for t in types)
            found.append(f"{where}.{key}: expected {expected}, found {type(value).__name__}")
    return found


def load(path: Path) -> Any:
    """A manifest's JSON (a syntax error fails the test with its line)."""
    return json.loads(path.read_text(encoding="utf-8"))


def frontmatter(path: Path) -> dict[str, str]:
    """The ``key: value`` lines between the ``---`` lines opening a SKILL.md."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and lines[0] == "---", f"{path} does not open with a frontmatter block"
    end = lines.index("---", 1)
    fields = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        assert sep and value.startswith(" "), f"{path}: not a 'key: value' line: {line!r}"
        assert key not in fields, f"{path}: {key!r} is given twice"
        # Unquoted YAML would read ": " as another key and " #" as a comment.
        assert ": " not in value and " #" not in value, f"{path}: quote the value of {key!r}"
        fields[key] = value.strip()
    return fields


def inside(root: Path, relative: str) -> Path:
    """``relative`` (a manifest's ``./`` path) under ``root``, which it may not leave."""
    assert relative.startswith("./"), f"{relative!r}: a path must start with ./"
    path = (root / relative).resolve()
    assert path == root.resolve() or root.resolve() in path.parents, f"{relative!r} leaves {root}"
    return path


def mcp_tool_names() -> list[str]:
    """The MCP server's tools: the functions ``build_server`` registers with ``@server.tool``."""
    tree = ast.parse((PACKAGE / "faces" / "mcp.py").read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Attribute) and target.attr == "tool":
                    names.append(node.name)
    return names


# ---- The manifests against the documented format ----


def test_the_plugin_manifest_has_the_documented_fields() -> None:
    manifest = load(MANIFEST)
    assert problems(manifest, PLUGIN_FIELDS, "plugin.json") == []
    if "author" in manifest:
        assert problems(manifest["author"], AUTHOR, "plugin.json.author") == []
    assert KEBAB.fullmatch(manifest["name"]), manifest["name"]
    assert SEMVER.fullmatch(manifest["version"]), manifest["version"]
    assert all(isinstance(k, str) for k in manifest.get("keywords", []))


def test_the_plugin_version_is_the_package_version() -> None:
    assert load(MANIFEST)["version"] == everbot_memory.__version__
    entries = [p for p in load(MARKETPLACE)["plugins"] if "version" in p]
    assert all(p["version"] == everbot_memory.__version__ for p in entries)


def test_the_plugin_says_what_it_needs() -> None:
    """Nothing works without the Python package's command, and the tools need the mcp extra."""
    for text in (load(MANIFEST)["description"], SKILLS[0].read_text(encoding="utf-8")):
        assert "everbot-memory" in text and "PATH" in text
        assert re.search(r"`?mcp`? extra", text), text


def test_the_marketplace_has_the_documented_fields() -> None:
    marketplace = load(MARKETPLACE)
    assert problems(marketplace, MARKETPLACE_FIELDS, "marketplace.json") == []
    assert problems(marketplace["owner"], AUTHOR, "marketplace.json.owner") == []
    metadata = marketplace.get("metadata", {})
    assert problems(metadata, MARKETPLACE_METADATA, "marketplace.json.metadata") == []
    assert KEBAB.fullmatch(marketplace["name"]), marketplace["name"]
    assert marketplace["name"] not in RESERVED_MARKETPLACE_NAMES
    assert marketplace["plugins"], "the marketplace lists no plugin"
    for i, entry in enumerate(marketplace["plugins"]):
        where = f"marketplace.json.plugins[{i}]"
        assert problems(entry, PLUGIN_ENTRY_FIELDS, where) == []
        if "author" in entry:
            assert problems(entry["author"], AUTHOR, f"{where}.author") == []
        assert KEBAB.fullmatch(entry["name"]), entry["name"]


def test_the_marketplace_lists_this_plugin_by_a_path_inside_the_repository() -> None:
    """Relative sources are resolved from the marketplace's root (the folder holding
    .claude-plugin/), and must stay inside it."""
    (entry,) = load(MARKETPLACE)["plugins"]
    assert isinstance(entry["source"], str)
    assert inside(REPO, entry["source"]) == PLUGIN.resolve()
    assert entry["name"] == load(MANIFEST)["name"]


def test_every_path_the_plugin_names_exists() -> None:
    manifest = load(MANIFEST)
    for field in COMPONENT_PATHS:
        value = manifest.get(field)
        for relative in [value] if isinstance(value, str) else value or []:
            if isinstance(relative, str):
                assert inside(PLUGIN, relative).exists(), f"{field}: {relative} does not exist"
    # The standard layout this plugin relies on (no manifest field names these).
    assert HOOKS.is_file() and MCP.is_file() and SKILLS
    # Only the manifest belongs in .claude-plugin/; every component sits at the plugin's root.
    assert [p.name for p in MANIFEST.parent.iterdir()] == ["plugin.json"]


def test_the_hooks_file_has_the_documented_shape() -> None:
    config = load(HOOKS)
    assert problems(config, HOOKS_FILE_FIELDS, "hooks.json") == []
    assert config["hooks"], "no hook"
    for event, groups in config["hooks"].items():
        assert event in HOOK_EVENTS, f"{event!r} is not a Claude Code hook event"
        assert isinstance(groups, list) and groups, event
        for i, group in enumerate(groups):
            where = f"hooks.json.hooks.{event}[{i}]"
            assert problems(group, MATCHER_GROUP_FIELDS, where) == []
            matcher = group.get("matcher")
            if matcher is not None:
                assert event not in NO_MATCHER, f"{where}: {event} takes no matcher"
                if event in MATCHER_VALUES:
                    assert set(matcher.split("|")) <= MATCHER_VALUES[event], matcher
            for j, handler in enumerate(group["hooks"]):
                assert problems(handler, COMMAND_HANDLER_FIELDS, f"{where}.hooks[{j}]") == []
                assert handler["type"] == "command"
                assert handler["command"] == HOOK_COMMAND
                assert handler.get("timeout", 1) > 0


def test_the_mcp_file_has_the_documented_shape() -> None:
    config = load(MCP)
    assert problems(config, MCP_FILE_FIELDS, ".mcp.json") == []
    (name, server), *others = config["mcpServers"].items()
    assert not others, "one server"
    assert problems(server, STDIO_SERVER_FIELDS, f".mcp.json.mcpServers.{name}") == []
    assert server.get("type", "stdio") == "stdio"
    assert [server["command"], *server.get("args", [])] == MCP_COMMAND


def test_every_skill_has_the_documented_frontmatter() -> None:
    assert SKILLS, "the plugin has no skill"
    for path in SKILLS:
        fields = frontmatter(path)
        assert problems(fields, SKILL_FIELDS, str(path.relative_to(REPO))) == []
        assert fields["name"] == path.parent.name, "a skill is named after its folder"
        assert KEBAB.fullmatch(fields["name"]) and len(fields["name"]) <= 64
        assert len(fields["description"] + fields.get("when_to_use", "")) <= SKILL_DESCRIPTION_MAX


def test_the_skill_names_every_memory_tool_and_no_other() -> None:
    tools = mcp_tool_names()
    assert len(tools) == 8, tools
    text = SKILLS[0].read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z]+(?:_[a-z]+)*)`", text))
    assert set(tools) <= named, f"the skill does not name {sorted(set(tools) - named)}"
    snake = {n for n in named if "_" in n}
    assert snake <= set(tools), f"the skill names tools that do not exist: {snake - set(tools)}"


def test_a_built_package_carries_every_plugin_file() -> None:
    """pyproject.toml lists the plugin's files as package data (dotfiles included, which a
    wildcard would skip), so a non-editable install holds the whole plugin."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["everbot_memory"]
    shipped = {p for pattern in patterns for p in PACKAGE.glob(pattern) if p.is_file()}
    present = {p for p in PLUGIN.rglob("*") if p.is_file()}
    assert shipped == present


# ---- The real client: validate, add the marketplace, install the plugin ----

CLAUDE = shutil.which("claude") or shutil.which(
    "claude", path=os.environ.get("EVERBOT_TEST_CLAUDE_PATH", "")
)
needs_claude = pytest.mark.skipif(
    CLAUDE is None,
    reason="the claude program (npm install -g @anthropic-ai/claude-code) is not installed",
)


class Claude:
    """The ``claude`` program with a scratch home (none of the user's ~/.claude), off the
    network: no updater, no nonessential traffic, and the API it connects to at start a local
    port nothing listens on. No API key is needed."""

    def __init__(self, program: str, home: Path) -> None:
        self.program, self.home = program, home
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "CLAUDE_")) and k != "CLAUDECODE"
        }
        self.env.update(
            HOME=str(home),
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            ANTHROPIC_BASE_URL="http://127.0.0.1:9",
        )

    def __call__(self, *args: str) -> str:
        """Run ``claude ARGS`` in the repository; its output, once it succeeded."""
        done = subprocess.run(
            [self.program, *args],
            cwd=REPO,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"claude {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done.stdout


@pytest.fixture
def claude(tmp_path: Path) -> Claude:
    assert CLAUDE is not None
    home = tmp_path / "home"
    home.mkdir()
    return Claude(CLAUDE, home)


@needs_claude
@pytest.mark.parametrize("path", [PLUGIN, REPO], ids=["plugin", "marketplace"])
def test_the_client_validates_strictly(claude: Claude, path: Path) -> None:
    """--strict: a warning (an unknown field, missing metadata) fails too."""
    assert "Validation passed" in claude("plugin", "validate", "--strict", str(path))


@needs_claude
def test_the_client_adds_the_marketplace_and_installs_the_plugin(claude: Claude) -> None:
    marketplace, plugin = load(MARKETPLACE)["name"], load(MANIFEST)["name"]
    claude("plugin", "marketplace", "add", "./")
    claude("plugin", "install", f"{plugin}@{marketplace}")

    (installed,) = json.loads(claude("plugin", "list", "--json"))
    assert installed["id"] == f"{plugin}@{marketplace}"
    assert installed["version"] == everbot_memory.__version__
    assert installed["enabled"] is True
    assert installed["mcpServers"] == load(MCP)["mcpServers"]
    # The plugin is copied into the scratch home's cache, every file as it is here.
    copy = Path(installed["installPath"])
    assert claude.home in copy.parents
    files = sorted(p.relative_to(PLUGIN) for p in PLUGIN.rglob("*") if p.is_file())
    assert sorted(p.relative_to(copy) for p in copy.rglob("*") if p.is_file()) == files
    assert all((copy / f).read_bytes() == (PLUGIN / f).read_bytes() for f in files)
    settings = json.loads((claude.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {f"{plugin}@{marketplace}": True}
