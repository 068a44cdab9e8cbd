"""The package's layers: each imports only from below, no module imports itself back, and the
hook entry points stay light. Read from the source with ast, so a new import is caught at once.

    faces      cli, hooks, worker, mcp      -> facade, errors, and the model types they print
    facade     Memory                       -> everything below
    recall     index, embeddings            -> storage, document, core
    storage    store, backend, queue, ...   -> document, core
    extract    readers, extractors          -> core
    document   the MEMORY.md format         -> core
    core       entry, rules, scoring, ...   -> (nothing of the package but errors)
    errors
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "everbot_memory"

# What each layer may import from the package (besides itself).
ALLOWED = {
    "errors": set(),
    "core": {"errors"},
    "document": {"errors", "core"},
    "extract": {"errors", "core"},
    "storage": {"errors", "core", "document"},
    "recall": {"errors", "core", "document", "storage"},
    "facade": {"errors", "core", "document", "storage", "extract", "recall"},
    "faces": {"errors", "facade"},
}
# The model types a face may import to print them (SPEC: faces hold no rules).
FACE_MODEL_TYPES = {"core.entry", "core.merge", "document.model"}
HEAVY = ("anthropic", "httpx", "numpy", "torch", "openai", "sentence_transformers")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module_level_only: bool = False) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            found.add(stem)
            # "from . import x" and "from .pkg import mod" may name modules themselves.
            found.update(f"{stem}.{alias.name}" for alias in node.names)
    return found


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _internal(names: set[str]) -> set[str]:
    return {n for n in names if n in MODULES}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def test_every_module_belongs_to_a_layer() -> None:
    loose = [m for m in MODULES if _layer(m) is None and m.count(".") > 0]
    assert sorted(loose) == ["everbot_memory.__main__"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_come_only_from_lower_layers(module: str) -> None:
    layer = _layer(module)
    if layer is None:
        return  # the package's own __init__ and __main__ stand above every layer
    wrong = []
    for name in _internal(_imports(MODULES[module])):
        other = _layer(name)
        if other is None:
            wrong.append(name)  # the top of the package, from inside a layer
        elif other != layer and other not in ALLOWED[layer]:
            if layer == "faces" and name.removeprefix("everbot_memory.") in FACE_MODEL_TYPES:
                continue
            wrong.append(name)
    assert not wrong, f"{module} imports from above or beside its layer: {sorted(wrong)}"


def test_no_module_imports_itself_back() -> None:
    graph = {m: _internal(_imports(p)) - {m} for m, p in MODULES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :]
                raise AssertionError("import circle: " + " -> ".join([*cycle, nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def _module_level_closure(start: str) -> set[str]:
    """Every module imported when ``start`` is imported (module-level imports, transitively,
    including the packages above each module)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [
            ".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in MODULES
        ]
        if module in MODULES:
            names = _imports(MODULES[module], module_level_only=True)
            todo += [n for n in names if n in MODULES]
            seen.update(n for n in names if n not in MODULES)
    return seen


@pytest.mark.parametrize("entry", ["everbot_memory.faces.hooks", "everbot_memory.faces.cli"])
def test_hook_entry_points_import_no_heavy_package(entry: str) -> None:
    closure = _module_level_closure(entry)
    heavy = sorted(n for n in closure if n.split(".")[0] in HEAVY)
    assert not heavy, f"{entry} imports {heavy} when it is loaded"


#: What the hooks' fast path must not load while the caches beside the file hold.
HOOK_HEAVY = (*HEAVY, "pydantic", "typer", "click", "markdown_it", "filelock")


def test_running_the_hooks_loads_no_heavy_package(tmp_path: Path) -> None:
    from everbot_memory import Memory

    memory = tmp_path / "MEMORY.md"
    Memory(memory).remember("The user prefers tea.")  # the save writes the hooks' caches
    code = f"""
import json, sys
sys.argv = ["everbot-memory", "hook", "claude-code", "--file", {str(memory)!r}]
from everbot_memory.faces import entry, hooks
from everbot_memory.facade import hooks as service
service.start_worker = hooks.start_worker = lambda path, *_, **__: 0  # a process of its own
for event in ("SessionStart", "UserPromptSubmit", "SessionEnd", "PreCompact"):
    data = {{"hook_event_name": event, "session_id": "s1", "transcript_path": "t.jsonl",
            "cwd": {str(tmp_path)!r}, "prompt": "what does the user drink, tea?"}}
    sys.stdin = __import__("io").StringIO(json.dumps(data))
    entry.main()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {HOOK_HEAVY!r})
assert not heavy, heavy
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "The user prefers tea." in result.stdout  # both blocks were given, from the caches


def test_the_session_start_hook_loads_neither_typing_nor_dataclasses(tmp_path: Path) -> None:
    """Each costs several milliseconds of every session start: the block, the caches and the
    last session's note are read without them."""
    from everbot_memory import Memory
    from everbot_memory.extract.rules import RuleExtractor

    memory = tmp_path / "MEMORY.md"
    Memory(memory, RuleExtractor()).process_session_end_sync(
        [{"role": "user", "content": "I need to call the landlord tomorrow."}], "s0"
    )
    assert (tmp_path / "memory").is_dir()  # the note the hook reads
    code = f"""
import json, sys
sys.argv = ["everbot-memory", "hook", "claude-code", "--file", {str(memory)!r}]
from everbot_memory.faces import entry, hooks
from everbot_memory.facade import hooks as service
service.start_worker = hooks.start_worker = lambda path, *_, **__: 0
sys.stdin = __import__("io").StringIO(json.dumps(
    {{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": {str(tmp_path)!r}}}))
entry.main()
loaded = sorted(m for m in ("typing", "dataclasses") if m in sys.modules)
assert not loaded, loaded
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "landlord" in result.stdout  # the open thread was shown
