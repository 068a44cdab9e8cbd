"""The settings a person writes down: which extractor reads sessions, its model, its server and
how long a request may take.

Read in this order, each later source winning over the earlier ones:

1. the user's file, ``$XDG_CONFIG_HOME/everbot-memory/config.toml`` (``~/.config/...``);
2. the project's file, ``everbot-memory.toml`` beside MEMORY.md;
3. the environment: ``EVERBOT_MEMORY_EXTRACTOR``, ``EVERBOT_MEMORY_MODEL``,
   ``EVERBOT_MEMORY_BASE_URL``, ``EVERBOT_MEMORY_TIMEOUT``, ``EVERBOT_MEMORY_IDLE_MINUTES``,
   ``EVERBOT_MEMORY_GROUP``, ``EVERBOT_MEMORY_CONSOLIDATE_DAYS``;
4. the command's flags (or the arguments a program passes to :class:`Memory`).

A file holds the same keys, e.g. ``extractor = "openai"``, ``model = "qwen3:8b"``,
``base_url = "http://localhost:11434/v1"``, ``timeout = 120``, ``idle_minutes = 30`` (how long
a Claude Code session must be idle before a sweep queues it), ``group = "work"`` (the groups the
Claude Code hooks show in this project; ``"work,none"`` adds the memories without a group) and
``consolidate_days = 30`` (``maintain`` consolidates when the last run is that old). API keys
stay in the environment (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``), never in these files.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = [
    "ALIASES",
    "ENVIRONMENT",
    "EXTRACTORS",
    "PROJECT_FILE",
    "Settings",
    "load_settings",
    "project_config_path",
    "user_config_path",
]

#: The names a user may give for an extractor.
EXTRACTORS: tuple[str, ...] = ("auto", "anthropic", "claude", "claude-cli", "openai", "rules")
#: Other names for an extractor: ``claude`` was the anthropic backend's first name.
ALIASES = {"claude": "anthropic"}
#: The environment variable of each setting.
ENVIRONMENT = {
    "extractor": "EVERBOT_MEMORY_EXTRACTOR",
    "model": "EVERBOT_MEMORY_MODEL",
    "base_url": "EVERBOT_MEMORY_BASE_URL",
    "timeout": "EVERBOT_MEMORY_TIMEOUT",
    "idle_minutes": "EVERBOT_MEMORY_IDLE_MINUTES",
    "group": "EVERBOT_MEMORY_GROUP",
    "consolidate_days": "EVERBOT_MEMORY_CONSOLIDATE_DAYS",
}
#: The project's file, beside the memory file.
PROJECT_FILE = "everbot-memory.toml"


@dataclass(frozen=True)
class Settings:
    """The settings in force, and where each one that is not a default came from."""

    extractor: str = "auto"
    model: str | None = None
    base_url: str | None = None
    timeout: float | None = None
    #: How long a Claude Code session must be idle before a sweep queues it (see ``sweep``).
    idle_minutes: float | None = None
    #: The groups the Claude Code hooks show in this project ("work", "work,none").
    group: str | None = None
    #: ``maintain`` also consolidates when the last consolidation is this many days old.
    consolidate_days: float | None = None
    #: For each setting given somewhere: the file, the variable or the flag that gave it.
    sources: Mapping[str, str] = field(default_factory=dict)

    def source(self, key: str) -> str:
        """Where ``key`` came from, as a person reads it ("the default" when nowhere)."""
        return self.sources.get(key, "the default")


def user_config_path() -> Path:
    """The user's config file (``$XDG_CONFIG_HOME`` honoured, else ``~/.config``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "everbot-memory" / "config.toml"


def project_config_path(memory_path: str | os.PathLike[str]) -> Path:
    """The project's config file: ``everbot-memory.toml`` beside the memory file."""
    return Path(memory_path).parent / PROJECT_FILE


def _read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 has no tomllib; tomli is the same parser
        import tomli as tomllib
    try:
        with path.open("rb") as handle:
            # Typed here: on 3.10 the parser is the tomli backport, which may have no stubs.
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", path) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text; save it as UTF-8 TOML", path) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", path) from exc


#: The settings that are numbers: the unit a message names, and whether 0 is allowed.
_NUMBERS = {
    "consolidate_days": ("a number of days above 0", False),
    "idle_minutes": ("a number of minutes (0 or more)", True),
    "timeout": ("a number of seconds above 0", False),
}


def _checked(key: str, value: Any, where: str) -> Any:
    """``value`` for ``key`` as the settings hold it; :class:`ConfigError` naming ``where``."""
    if key in _NUMBERS:
        said, zero = _NUMBERS[key]
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        low_enough = number >= 0 if zero else number > 0
        if isinstance(value, bool) or not (low_enough and number < math.inf):
            raise ConfigError(f"{where}: {key} {value!r} is not {said}")
        return number
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: {key} must be a non-empty string, not {value!r}")
    value = value.strip()
    if key == "group":
        from ..core.groups import filter_problem

        problem = filter_problem(value)
        if problem:
            raise ConfigError(f"{where}: group {value!r}: {problem}")
    if key == "extractor" and value not in EXTRACTORS:
        raise ConfigError(
            f"{where}: unknown extractor {value!r}; use one of {', '.join(EXTRACTORS)}"
        )
    return value


def load_settings(
    memory_path: str | os.PathLike[str] | None = None,
    *,
    extractor: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
) -> Settings:
    """The settings for the memory at ``memory_path`` (None: no project file), the given
    arguments winning over the environment, which wins over the files."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    files = [user_config_path()]
    if memory_path is not None:
        files.append(project_config_path(memory_path))
    for path in files:
        for key, value in _read_toml(path).items():
            if key not in ENVIRONMENT:
                raise ConfigError(
                    f"{path}: unknown setting {key!r}; the settings are {', '.join(ENVIRONMENT)}",
                    path,
                )
            values[key] = _checked(key, value, str(path))
            sources[key] = str(path)
    for key, variable in ENVIRONMENT.items():
        raw = os.environ.get(variable, "").strip()
        if raw:
            values[key] = _checked(key, raw, variable)
            sources[key] = variable
    given = {"extractor": extractor, "model": model, "base_url": base_url, "timeout": timeout}
    for key, value in given.items():
        if value is not None:
            flag = "--" + key.replace("_", "-")
            values[key] = _checked(key, value, flag)
            sources[key] = flag
    return Settings(**values, sources=sources)
