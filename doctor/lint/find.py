"""Which files are launch files, what kind each is, and the engine launches in them (file and line)."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from doctor.engines.images import image_engine
from doctor.errors import InputError
from doctor.lint.argv import EngineLaunch, Script, recognise
from doctor.lint.dockerfile import dockerfile_commands
from doctor.lint.pins import image_pin, nearest_pin, pip_pins
from doctor.lint.recipes import recipe_from_text
from doctor.lint.shell import shell_commands
from doctor.lint.site import Command, LaunchSite, Pin
from doctor.lint.suppress import suppressed_at
from doctor.lint.systemd import systemd_commands
from doctor.lint.yamlfile import yaml_commands

MAX_FILE_BYTES = 4 << 20  # launch files are small; anything bigger is not one
MAX_SCRIPT_DEPTH = 3  # `bash -c "bash -c ..."` nests at most this deep
DOCKERFILE_NAMES = ("Dockerfile", "Dockerfile.*", "*.Dockerfile", "*.dockerfile", "Containerfile", "Containerfile.*")
SHELL_SUFFIXES = (".sh", ".bash", ".zsh")
YAML_SUFFIXES = (".yml", ".yaml")
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"}
Extractor = Callable[[str], list[Command]]


def file_kind(path: Path, head: str = "") -> str | None:
    """dockerfile | yaml | systemd | shell, from the name (or a shell shebang); None for other files."""
    name = path.name
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in DOCKERFILE_NAMES):
        return "dockerfile"
    if name.endswith(YAML_SUFFIXES):
        return "yaml"
    if name.endswith(".service"):
        return "systemd"
    if name.endswith(SHELL_SUFFIXES) or (head.startswith("#!") and "sh" in head.splitlines()[0]):
        return "shell"
    return None


EXTRACTORS: dict[str, Extractor] = {"dockerfile": dockerfile_commands, "yaml": yaml_commands,
                                    "systemd": systemd_commands, "shell": shell_commands}


def expand_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given; directories walked for launch files (hidden and virtualenv folders skipped); each file
    once, however often it is named."""
    out: dict[Path, Path] = {}
    for path in paths:
        if path.is_dir():
            found = list(_walk(path))
        elif path.exists():
            found = [path]
        else:
            raise InputError(f"no such file: {path}")
        for file in found:
            out.setdefault(file.resolve(), file)
    return list(out.values())


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(root) / name
            if file_kind(path, _head(path)) is not None:
                yield path


def launches_in_file(path: Path, shown: str | None = None) -> list[LaunchSite]:
    """Every engine launch in `path`; files of no known kind are read as shell scripts."""
    text = read_launch_file(path)
    kind = file_kind(path, text[:200]) or "shell"
    try:
        commands = EXTRACTORS[kind](text)
    except InputError as exc:
        raise InputError(f"{shown or path}: {exc}") from exc
    lines = text.splitlines()
    pins = pip_pins(lines)
    sites: list[LaunchSite] = []
    for command in commands:
        sites.extend(_sites(command, shown or path.as_posix(), lines, pins, depth=0))
    recipe = recipe_from_text(text, kind).view() if sites else None
    return [replace(site, recipe=recipe) for site in sites] if recipe else sites


def read_launch_file(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"{path} is {path.stat().st_size} bytes; a launch file is at most {MAX_FILE_BYTES}")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text") from exc


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(200).decode("utf-8", "replace")
    except OSError:
        return ""


def _sites(command: Command, shown: str, lines: list[str], pins: list[Pin], depth: int) -> Iterator[LaunchSite]:
    found = recognise(command.argv, entrypoint=command.entrypoint)
    if isinstance(found, Script) and depth < MAX_SCRIPT_DEPTH:
        env = {**command.env, **found.env}
        image = found.image or command.image
        first = command.script_line if found.image is None else None
        for inner in shell_commands(found.text, first_line=first or command.line, variables=env,
                                    one_line=first is None):
            inner = replace(inner, env={**env, **inner.env}, image=image,
                            image_line=command.image_line if found.image is None else command.line)
            yield from _sites(inner, shown, lines, pins, depth + 1)
    elif isinstance(found, EngineLaunch):
        yield _site(found, command, shown, lines, pins)


def _site(found: EngineLaunch, command: Command, shown: str, lines: list[str], pins: list[Pin]) -> LaunchSite:
    image = found.image or command.image
    image_line = command.image_line if found.image is None else command.line
    pin = image_pin(image, image_line) if image and image_engine(image) == found.engine else None
    pin = pin or nearest_pin(found.engine, command.line, pins)
    notes: list[str] = []
    model = found.model
    if model is not None and "$" in model:
        notes.append(f"model {model} is a variable this file does not set: analysed without a model")
        model = None
    elif model is None:
        notes.append("the launch names no model: analysed without one")
    return LaunchSite(path=shown, line=command.line, end_line=command.end_line, engine=found.engine, model=model,
                      engine_args=found.engine_args, argv=found.argv, env={**command.env, **found.env}, pin=pin,
                      suppressed=suppressed_at(lines, command.line, command.end_line), notes=tuple(notes),
                      image=image)
