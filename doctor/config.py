"""Project configuration for CI: `[tool.sm120-doctor]` in pyproject.toml, or a `sm120-doctor.toml` (same keys
at top level), found upward from the working directory like ruff's. Which rules run (`select`/`ignore`,
ID prefixes like ruff's), the gate (`fail-on`), default target (`hardware` or `facts`, `engine`),
`per-file-ignores` for launch files, and a `baseline`. Paths inside are relative to the config file."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doctor.errors import InputError

CONFIG_NAMES = ("sm120-doctor.toml", ".sm120-doctor.toml", "pyproject.toml")
TABLE = "sm120-doctor"
FAIL_ON = ("error", "warning", "info", "never")
KEYS = {"select", "ignore", "fail-on", "hardware", "facts", "engine", "per-file-ignores", "baseline"}


@dataclass(frozen=True)
class ProjectConfig:
    """The project's sm120-doctor settings (a config file or pyproject.toml's [tool] table), paths resolved."""

    path: Path | None = None  # the file the settings came from; None: no config file
    select: tuple[str, ...] = ()  # rule IDs or prefixes; empty: every rule
    ignore: tuple[str, ...] = ()
    fail_on: str | None = None
    hardware: str | None = None
    facts: Path | None = None
    engine: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    baseline: Path | None = None
    root: Path = field(default_factory=Path.cwd)  # what per-file-ignores patterns are relative to

    def keeps(self, rule_id: str, path: str | None = None) -> bool:
        """Whether a finding of `rule_id` (in launch file `path`, if any) survives select/ignore."""
        if self.select and not _matches(rule_id, self.select):
            return False
        if _matches(rule_id, self.ignore):
            return False
        return path is None or not _matches(rule_id, self.ignored_in(path))

    def ignored_in(self, path: str) -> tuple[str, ...]:
        relative = _relative(Path(path), self.root)
        return tuple(rule for pattern, rules in self.per_file_ignores
                     if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(Path(path).name, pattern)
                     for rule in rules)

    def check_selectors(self, rule_ids: Iterable[str]) -> None:
        """A selector that matches no rule is a typo: say so instead of silently selecting nothing."""
        known = list(rule_ids)
        selectors = [*self.select, *self.ignore, *(r for _, rules in self.per_file_ignores for r in rules)]
        for selector in selectors:
            if not any(rule.startswith(selector) for rule in known):
                where = f" in {self.path}" if self.path else ""
                raise InputError(f"rule selector {selector!r}{where} matches no rule (list them: sm120-doctor rules)")


def discover(start: Path | None = None) -> ProjectConfig:
    """The config that governs `start` (default: the working directory), or an empty one."""
    path = find_config(start or Path.cwd())
    return load_config(path) if path is not None else ProjectConfig()


def find_config(start: Path) -> Path | None:
    for folder in [start.resolve(), *start.resolve().parents]:
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file() and (name != "pyproject.toml" or TABLE in _read(candidate).get("tool", {})):
                return candidate
    return None


def load_config(path: Path) -> ProjectConfig:
    data = _read(path)
    table = data.get("tool", {}).get(TABLE) if path.name == "pyproject.toml" else data
    if not isinstance(table, dict):
        raise InputError(f"{path}: no [tool.{TABLE}] table")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise InputError(f"{path}: unknown setting {unknown[0]!r} (known: {', '.join(sorted(KEYS))})")
    root = path.resolve().parent
    fail_on = _optional_str(table, "fail-on", path)
    if fail_on is not None and fail_on not in FAIL_ON:
        raise InputError(f"{path}: fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    facts, baseline = _optional_str(table, "facts", path), _optional_str(table, "baseline", path)
    return ProjectConfig(path=path, root=root, select=_ids(table, "select", path), ignore=_ids(table, "ignore", path),
                         fail_on=fail_on, hardware=_optional_str(table, "hardware", path),
                         facts=root / facts if facts else None, engine=_strings(table, "engine", path),
                         per_file_ignores=_per_file(table, path), baseline=root / baseline if baseline else None)


def _read(path: Path) -> dict[str, Any]:
    try:  # imported here: most checks find no config file and never need a TOML parser
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not valid TOML: {exc}") from exc


def _optional_str(table: dict[str, Any], key: str, path: Path) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{path}: {key} must be a string")
    return value


def _strings(table: dict[str, Any], key: str, path: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{path}: {key} must be a list of strings")
    return tuple(value)


def _ids(table: dict[str, Any], key: str, path: Path) -> tuple[str, ...]:
    return tuple(v.strip().upper() for v in _strings(table, key, path))


def _per_file(table: dict[str, Any], path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    value = table.get("per-file-ignores", {})
    if not isinstance(value, dict):
        raise InputError(f"{path}: per-file-ignores must be a table of glob = [rule IDs]")
    return tuple((pattern, _ids(value, pattern, path)) for pattern in value)


def _matches(rule_id: str, selectors: Sequence[str]) -> bool:
    return any(rule_id.startswith(selector) for selector in selectors)


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), root)).as_posix()
    except ValueError:  # another drive (Windows)
        return path.as_posix()
