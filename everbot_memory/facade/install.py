"""Installing everbot-memory into Claude Code: the hooks and the MCP server, and the check of an
installation that ``doctor`` prints.

The hooks are defined once, in the plugin's ``claude_plugin/hooks/hooks.json``. Install copies
its groups (events, matchers, timeouts) into a settings file, the command pointing at this
installation's ``everbot-memory``, so a hook runs even when Claude Code's PATH lacks it. A hook
group is ours when its command runs ``everbot-memory hook claude-code`` (any path before it);
install and uninstall change those groups and our MCP server, and nothing else.

Where Claude Code keeps each scope (its settings and MCP documentation)::

    scope    hooks                                    MCP server (named everbot-memory)
    user     ~/.claude/settings.json                  ~/.claude.json: mcpServers
    project  <project>/.claude/settings.json          <project>/.mcp.json: mcpServers
    local    <project>/.claude/settings.local.json    ~/.claude.json: projects[<project>].mcpServers

``$CLAUDE_CONFIG_DIR`` takes the place of ``~/.claude``, and then holds ``.claude.json`` too.

A change is planned first (:func:`plan_install`, :func:`plan_uninstall`: each file's text
before and after, which ``--dry-run`` shows as a diff), then written by :func:`apply`: a file
that exists is copied to ``<name>.bak``, then replaced atomically, and only if nobody changed
it since it was read. A file keeps its indentation. Uninstall gives a file back its own text
when what remains is what the backup held, so install then uninstall leaves it byte for byte
as it was; a file that held nothing but what install put there is removed.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shlex
import shutil
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError
from ..storage.atomic import write_atomically
from ..storage.locations import project_dir

__all__ = [
    "HOOK_ARGS",
    "PROGRAM",
    "SCOPES",
    "SERVER_NAME",
    "FileChange",
    "Plan",
    "Scope",
    "apply",
    "claude_dir",
    "claude_state_file",
    "find_program",
    "is_our_hook",
    "mcp_file",
    "parse_command",
    "plan_install",
    "plan_uninstall",
    "plugin_hooks",
    "settings_file",
]

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
#: The console script, and the arguments that make it the Claude Code hook.
PROGRAM = "everbot-memory"
HOOK_ARGS = ("hook", "claude-code")
#: The name of our MCP server in Claude Code's configuration.
SERVER_NAME = "everbot-memory"

_PROGRAM_NAMES = (PROGRAM, PROGRAM + ".exe")


# -- where Claude Code keeps things


def claude_dir() -> Path:
    """Claude Code's folder of user settings: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    named = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(named).expanduser() if named else Path.home() / ".claude"


def claude_state_file() -> Path:
    """Claude Code's own state file, which holds the user's and local MCP servers:
    ``~/.claude.json``, or ``.claude.json`` in ``$CLAUDE_CONFIG_DIR`` when that is set."""
    named = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(named).expanduser() / ".claude.json" if named else Path.home() / ".claude.json"


def settings_file(scope: Scope, project: Path) -> Path:
    """The settings file holding the hooks of ``scope``."""
    if scope == "user":
        return claude_dir() / "settings.json"
    name = "settings.json" if scope == "project" else "settings.local.json"
    return project / ".claude" / name


def mcp_file(scope: Scope, project: Path) -> Path:
    """The file holding the MCP servers of ``scope``."""
    return project / ".mcp.json" if scope == "project" else claude_state_file()


def _server_keys(scope: Scope, project: Path) -> tuple[str, ...]:
    """Where in :func:`mcp_file` the scope's servers are: the keys down to ``mcpServers``."""
    if scope == "local":
        # Claude Code files a project under its absolute path.
        return ("projects", str(project.resolve()), "mcpServers")
    return ("mcpServers",)


def plugin_hooks() -> dict[str, list[dict[str, Any]]]:
    """The hook groups of the Claude Code plugin, by event (the one definition of the hooks)."""
    from importlib.resources import files

    source = files("everbot_memory") / "claude_plugin" / "hooks" / "hooks.json"
    hooks = json.loads(source.read_text(encoding="utf-8"))["hooks"]
    assert isinstance(hooks, dict)
    return hooks


# -- the command the hooks run


def _is_program(word: str) -> bool:
    return word.replace("\\", "/").rsplit("/", 1)[-1] in _PROGRAM_NAMES


def _words(command: str) -> list[str] | None:
    try:
        return shlex.split(command)
    except ValueError:  # an unbalanced quote: not a command of ours
        return None


def _program_at(words: list[str], args: tuple[str, ...]) -> int | None:
    """Where ``words`` run everbot-memory with ``args`` next; None when they do not."""
    for i, word in enumerate(words):
        if _is_program(word) and tuple(words[i + 1 : i + 1 + len(args)]) == args:
            return i
    return None


def is_our_hook(command: str) -> bool:
    """True when a hook's command runs ``everbot-memory hook claude-code``."""
    words = _words(command)
    return words is not None and _program_at(words, HOOK_ARGS) is not None


def find_program() -> str | None:
    """The absolute path of the ``everbot-memory`` script, None when there is none.

    The script beside the running Python comes first: it is the installation that runs now
    (a virtual environment's, pipx's), where ``PATH`` may name another one.
    """
    beside = Path(sys.executable).parent / (PROGRAM + (".exe" if os.name == "nt" else ""))
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which(PROGRAM)
    return str(Path(found).absolute()) if found else None


def parse_command(command: str) -> list[str]:
    """The words of a ``--command``: a path to ``everbot-memory`` or a command line ending in
    it (``uvx everbot-memory``); ConfigError when it is neither or its program is missing."""
    if Path(command).expanduser().is_file():
        words = [str(Path(command).expanduser().absolute())]  # a path, spaces and all
    else:
        words = _words(command) or []
    if not words or not _is_program(words[-1]):
        raise ConfigError(
            f"--command {command!r} does not run {PROGRAM}: give its path, "
            f"or a command line ending in {PROGRAM}"
        )
    program = words[0]
    if os.sep in program or "/" in program:
        if not (Path(program).is_file() and os.access(program, os.X_OK)):
            raise ConfigError(f"--command: {program} is not an executable file")
    elif shutil.which(program) is None:
        raise ConfigError(f"--command: {program} is not on the PATH; give its full path")
    return words


def _hook_groups(program: list[str], file: Path | None) -> dict[str, list[dict[str, Any]]]:
    """The plugin's hook groups, their command running ``program`` (and ``--file``)."""
    groups = copy.deepcopy(plugin_hooks())
    for event_groups in groups.values():
        for group in event_groups:
            for hook in group.get("hooks", []):
                words = _words(hook["command"]) or []
                at = _program_at(words, HOOK_ARGS)
                assert at is not None, hook["command"]
                end = at + 1 + len(HOOK_ARGS)
                pinned = ["--file", str(file)] if file is not None else []
                hook["command"] = shlex.join(
                    [*words[:at], *program, *HOOK_ARGS, *pinned, *words[end:]]
                )
    return groups


def _server(program: list[str], file: Path | None) -> dict[str, Any]:
    """Our MCP server's entry: the user's memory, or the one file pinned."""
    memory = ["--file", str(file)] if file is not None else ["--user"]
    return {"type": "stdio", "command": program[0], "args": [*program[1:], "mcp", *memory]}


def _is_our_server(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    return _program_at([entry["command"], *args], ("mcp",)) is not None


# -- JSON files, kept in their own style


@dataclass(frozen=True)
class _Style:
    """How a JSON file is written, so a rewrite changes only what changed."""

    indent: str | None = "  "
    #: On one line without spaces (``{"a":1,"b":2}``).
    compact: bool = False
    final_newline: bool = True
    crlf: bool = False
    bom: bool = False
    ascii_only: bool = False


def _style_of(text: str | None) -> _Style:
    if not text or not text.strip():
        return _Style()
    bom = text.startswith("\ufeff")
    body = text.lstrip("\ufeff")
    # The first line indented inside an object or a list; none: all on one line.
    match = re.search(r"[{\[][ \t]*\r?\n([ \t]*)\S", body)
    return _Style(
        indent=match.group(1) if match else None,
        compact=match is None and re.search(r"[:,]\s", body) is None,
        final_newline=body.endswith("\n"),
        crlf="\r\n" in body,
        bom=bom,
        ascii_only=bool(re.search(r"\\u[0-9a-fA-F]{4}", body)) and body.isascii(),
    )


def _render(data: dict[str, Any], style: _Style) -> str:
    if style.indent is None:
        separators = (",", ":") if style.compact else (", ", ": ")
        text = json.dumps(data, ensure_ascii=style.ascii_only, separators=separators)
    else:
        text = json.dumps(data, ensure_ascii=style.ascii_only, indent=style.indent)
    if style.final_newline:
        text += "\n"
    if style.crlf:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if style.bom else "") + text


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    """A JSON file's text (None: no file) and its object; ConfigError when it is not one."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", path) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text; fix it or move it aside", path) from exc
    if not text.strip("\ufeff \t\r\n"):
        return text, {}
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno}); "
            "fix it or move it aside",
            path,
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it or move it aside", path)
    return text, data


def _backup_of(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


# -- the plan


@dataclass
class FileChange:
    """One file a plan changes: its text before and after (None: no file)."""

    path: Path
    #: What changes in it, for people: "hooks", "MCP server everbot-memory".
    what: str
    before: str | None
    after: str | None
    #: What happens to it: "added", "updated" or "removed".
    change: str = "added"
    #: Where the file was copied before the change (set by :func:`apply`).
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        """True when the file's text changes."""
        return self.before != self.after

    def diff(self) -> str:
        """The change as a unified diff ("" when there is none)."""
        import difflib

        before = (self.before or "").splitlines(keepends=True)
        after = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            before,
            after,
            "/dev/null" if self.before is None else str(self.path),
            "/dev/null" if self.after is None else str(self.path),
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass
class Plan:
    """What an install or uninstall changes, before anything is written."""

    action: Literal["install", "uninstall"]
    scope: Scope
    project: Path
    changes: list[FileChange]
    #: The command the hooks run (install only).
    command: str = ""
    #: The project memory install creates (``--project-memory``, when there is none yet).
    project_memory: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when carrying out the plan changes anything."""
        return self.project_memory is not None or any(c.changed for c in self.changes)


def _events(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{path}: "hooks" is not a JSON object; fix it by hand', path)
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise ConfigError(f"{path}: hooks.{event} is not a JSON list; fix it by hand", path)
    return hooks


def _is_our_group(group: Any) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return (
        isinstance(hooks, list)
        and bool(hooks)
        and all(
            isinstance(h, dict) and isinstance(h.get("command"), str) and is_our_hook(h["command"])
            for h in hooks
        )
    )


def _with_hooks(
    settings: dict[str, Any], wanted: dict[str, list[dict[str, Any]]], path: Path
) -> dict[str, Any]:
    """``settings`` with our groups for each event: in place of ours already there (the first
    one's place), else after the others."""
    result = copy.deepcopy(settings)
    hooks = _events(result, path)
    for event, groups in wanted.items():
        current = hooks.get(event, [])
        ours = [i for i, group in enumerate(current) if _is_our_group(group)]
        kept = [group for group in current if not _is_our_group(group)]
        at = ours[0] if ours else len(kept)
        hooks[event] = [*kept[:at], *copy.deepcopy(groups), *kept[at:]]
    result["hooks"] = hooks
    return result


def _without_hooks(settings: dict[str, Any]) -> list[dict[str, Any]]:
    """``settings`` without our groups: an emptied event and an emptied ``hooks`` removed,
    then (for a file whose own empty list or object they were) kept."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return [settings]
    pruned, kept = copy.deepcopy(settings), copy.deepcopy(settings)
    for event, groups in hooks.items():
        if not isinstance(groups, list) or not any(_is_our_group(g) for g in groups):
            continue
        others = [g for g in groups if not _is_our_group(g)]
        kept["hooks"][event] = others
        if others:
            pruned["hooks"][event] = others
        else:
            del pruned["hooks"][event]
    if not pruned["hooks"] and hooks:
        del pruned["hooks"]
    return [pruned, kept]


def _container(data: dict[str, Any], keys: tuple[str, ...], path: Path) -> dict[str, Any]:
    """The object at ``keys`` in ``data``, made where missing; ConfigError when one is not."""
    node = data
    for depth, key in enumerate(keys):
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            where = ".".join(keys[: depth + 1])
            raise ConfigError(f"{path}: {where} is not a JSON object; fix it by hand", path)
    return node


def _with_server(
    data: dict[str, Any], keys: tuple[str, ...], entry: dict[str, Any], path: Path
) -> tuple[dict[str, Any], str | None]:
    """``data`` with our server at ``keys``, and a warning when a server of that name that is
    not ours is in the way (it is left as it is)."""
    result = copy.deepcopy(data)
    servers = _container(result, keys, path)
    there = servers.get(SERVER_NAME)
    if there is not None and not _is_our_server(there):
        return data, (
            f"{path} has an MCP server named {SERVER_NAME} that does not run {PROGRAM} mcp; "
            "left as it is"
        )
    servers[SERVER_NAME] = entry
    return result, None


def _without_server(data: dict[str, Any], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """``data`` without our server at ``keys``: the objects it leaves empty removed (see
    below), then with them kept."""
    nodes: list[dict[str, Any]] = [data]
    for key in keys:
        node = nodes[-1].get(key)
        if not isinstance(node, dict):
            return [data]
        nodes.append(node)
    if not _is_our_server(nodes[-1].get(SERVER_NAME)):
        return [data]
    kept = copy.deepcopy(data)
    inner = kept
    for key in keys:
        inner = inner[key]
    del inner[SERVER_NAME]
    pruned = copy.deepcopy(kept)
    chain: list[dict[str, Any]] = [pruned]
    for key in keys:
        chain.append(chain[-1][key])
    for depth in range(len(keys), 0, -1):
        parent, child = chain[depth - 1], chain[depth]
        if child:
            break
        # Claude Code gives each project entry an empty mcpServers of its own: one with
        # other keys beside it stays. Any other object emptied was made by install.
        if depth == len(keys) > 1 and len(parent) > 1:
            break
        del parent[keys[depth - 1]]
    return [pruned, kept]


def _installed_text(before: str | None, old: dict[str, Any], new: dict[str, Any]) -> str:
    """The text a file has with ours in it: its own when that already says so."""
    return before if before is not None and new == old else _render(new, _style_of(before))


def _remaining_text(
    path: Path, before: str | None, old: dict[str, Any], left: list[dict[str, Any]], removable: bool
) -> str | None:
    """The text a file keeps once ours is taken out: its own, the backup's when that holds
    what remains, none when nothing remains of a file install made, else rendered anew."""
    if before is None or left[0] == old:
        return before
    backup = _backup_of(path)
    with contextlib.suppress(OSError, ValueError):  # no backup, or not one of this file
        text = backup.read_bytes().decode("utf-8")  # as it is: CRLF line ends kept
        if json.loads(text.lstrip("\ufeff")) in left:
            return text
    if removable and not left[0]:
        return None
    return _render(left[0], _style_of(before))


def plan_install(
    scope: Scope,
    project: Path | None = None,
    command: str | None = None,
    file: Path | None = None,
    project_memory: bool = False,
) -> Plan:
    """What installing into ``scope`` changes. ``command`` is what the hooks and the MCP
    server run (default: :func:`find_program`); ``file`` pins them to one memory file;
    ``project_memory`` also creates the project's MEMORY.md. ConfigError when a file cannot
    be read or is not JSON, or ``command`` is wrong: nothing is planned then."""
    project = (project or project_dir()).absolute()
    warnings = []
    if command is not None:
        program = parse_command(command)
    else:
        found = find_program()
        if found is None:
            program = [PROGRAM]
            warnings.append(
                f"{PROGRAM} was not found, so the hooks run plain `{PROGRAM}`: it must be on "
                "the PATH Claude Code runs hooks with (or give --command PATH)"
            )
        else:
            program = [found]
            if scope == "project":
                warnings.append(
                    f"the project's settings are shared, and the hooks run {found}, which "
                    f"another machine may not have; `--command {PROGRAM}` writes the plain "
                    "name, found on each one's PATH"
                )
    pinned = file.expanduser().absolute() if file is not None else None
    if pinned is not None and not pinned.parent.is_dir():
        raise ConfigError(f"no folder {pinned.parent} for the memory file; check --file")

    path = settings_file(scope, project)
    before, old = _read(path)
    new = _with_hooks(old, _hook_groups(program, pinned), path)
    verb = "updated" if _our_commands(old) else "added"
    changes = [FileChange(path, "hooks", before, _installed_text(before, old, new), verb)]

    server_path = mcp_file(scope, project)
    server_before, server_old = _read(server_path)
    keys = _server_keys(scope, project)
    server_new, warning = _with_server(server_old, keys, _server(program, pinned), server_path)
    if warning:
        warnings.append(warning)
    server_after = _installed_text(server_before, server_old, server_new)
    verb = "updated" if len(_without_server(server_old, keys)) > 1 else "added"
    what = f"MCP server {SERVER_NAME}"
    changes.append(FileChange(server_path, what, server_before, server_after, verb))

    for _, settings_path in _places(project):
        with contextlib.suppress(ConfigError):
            if _plugin_enabled(_read(settings_path)[1]):
                warnings.append(
                    f"the {PROGRAM} plugin is enabled in {settings_path}: its hooks run too, so "
                    "each would run twice; keep one (`/plugin uninstall`, or "
                    f"`{PROGRAM} uninstall`)"
                )
    memory = project / "MEMORY.md" if project_memory else None
    if memory is not None and memory.exists():
        memory = None
    return Plan("install", scope, project, changes, shlex.join(program), memory, warnings)


def plan_uninstall(scope: Scope, project: Path | None = None) -> Plan:
    """What uninstalling from ``scope`` changes: our hook groups and our MCP server removed,
    nothing else. ConfigError when a file cannot be read or is not JSON."""
    project = (project or project_dir()).absolute()
    path = settings_file(scope, project)
    before, old = _read(path)
    after = _remaining_text(path, before, old, _without_hooks(old), removable=True)
    changes = [FileChange(path, "hooks", before, after, "removed")]

    server_path = mcp_file(scope, project)
    server_before, server_old = _read(server_path)
    left = _without_server(server_old, _server_keys(scope, project))
    # Claude Code's own state file is never removed, whatever is left of it.
    removable = server_path != claude_state_file()
    server_after = _remaining_text(server_path, server_before, server_old, left, removable)
    what = f"MCP server {SERVER_NAME}"
    changes.append(FileChange(server_path, what, server_before, server_after, "removed"))
    return Plan("uninstall", scope, project, changes)


def _file_mode(path: Path) -> int:
    # New files as a person's editor makes them; Claude Code's state file stays private.
    return 0o600 if path.name == ".claude.json" else 0o644


def apply(plan: Plan) -> None:
    """Carry out ``plan``: each changed file copied to ``<name>.bak`` when it exists, then
    replaced atomically; ConfigError when a file cannot be written, or changed since the plan
    read it (nothing of that file is written then)."""
    for change in plan.changes:
        if change.changed:
            _write(change)
    _exclude_machine_files(plan)
    if plan.project_memory is not None:
        from .memory import Memory

        Memory(plan.project_memory).init()


def _exclude_machine_files(plan: Plan) -> None:
    """Keep this machine's files out of the project's git status: the local settings (they
    hold this installation's path) and the backups install made, listed in the clone's own
    ``info/exclude`` (never the committed ``.gitignore``). Outside git, or when git cannot say,
    nothing is done."""
    if plan.action != "install":
        return
    mine = [c.backup for c in plan.changes if c.backup is not None]
    if plan.scope == "local":
        mine += [c.path for c in plan.changes if c.path.name == "settings.local.json"]
    inside = []
    for path in mine:
        try:
            inside.append("/" + path.absolute().relative_to(plan.project.absolute()).as_posix())
        except ValueError:
            continue  # not in the project (the user's own ~/.claude.json)
    if not inside:
        return
    import subprocess

    try:
        found = subprocess.run(
            [
                "git",
                "-C",
                str(plan.project),
                "rev-parse",
                "--show-toplevel",
                "--git-path",
                "info/exclude",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return
    lines = found.stdout.splitlines()
    if found.returncode != 0 or len(lines) != 2:
        return
    top, exclude = Path(lines[0]), Path(lines[1])
    exclude = exclude if exclude.is_absolute() else plan.project / exclude
    prefix = plan.project.resolve().relative_to(top.resolve()).as_posix()
    wanted = [f"/{prefix}{p}" if prefix != "." else p for p in inside]
    try:
        text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        missing = [w for w in wanted if w not in text.splitlines()]
        if missing:
            exclude.parent.mkdir(parents=True, exist_ok=True)
            if text and not text.endswith("\n"):
                text += "\n"
            text += "# everbot-memory install: this machine's files\n" + "\n".join(missing) + "\n"
            write_atomically(exclude, text.encode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return  # a clone whose exclude file cannot be written: git status shows them, no more


def _write(change: FileChange) -> None:
    # A symlinked settings file (a dotfiles repository) is written through to its target.
    target = Path(os.path.realpath(change.path))
    before = None if change.before is None else change.before.encode("utf-8")

    def unchanged() -> bool:
        try:
            return target.read_bytes() == before
        except FileNotFoundError:
            return before is None

    try:
        if not unchanged():
            raise ConfigError(f"{change.path} changed while this ran; run it again", change.path)
        mode = _file_mode(target)
        if before is not None:
            mode = stat.S_IMODE(target.stat().st_mode)
            if change.after is not None:
                backup = _backup_of(change.path)
                write_atomically(backup, before, mode=mode)
                change.backup = backup
        if change.after is None:
            # What is removed held nothing but what install put there: no backup needed.
            target.unlink()
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        if not write_atomically(target, change.after.encode("utf-8"), mode=mode, ready=unchanged):
            raise ConfigError(f"{change.path} changed while this ran; run it again", change.path)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {change.path}: {exc.strerror or exc}", change.path
        ) from exc


# -- the check doctor prints


def _our_commands(settings: dict[str, Any]) -> dict[str, list[str]]:
    """The commands of our hook groups in ``settings``, by event."""
    hooks = settings.get("hooks")
    found: dict[str, list[str]] = {}
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            if _is_our_group(group):
                found.setdefault(event, []).extend(h["command"] for h in group["hooks"])
    return found


def _plugin_enabled(settings: dict[str, Any]) -> bool | None:
    """Whether ``settings`` enable the everbot-memory plugin (None: they do not say)."""
    plugins = settings.get("enabledPlugins")
    if not isinstance(plugins, dict):
        return None
    said = [bool(v) for k, v in plugins.items() if str(k).split("@", 1)[0] == PROGRAM]
    return said[-1] if said else None


def _places(project: Path) -> Iterator[tuple[Scope, Path]]:
    """Each scope's settings file, a file named twice (a project in the home folder) once."""
    seen: set[Path] = set()
    for scope in SCOPES:
        path = settings_file(scope, project)
        real = Path(os.path.realpath(path))
        if real not in seen:
            seen.add(real)
            yield scope, path
