"""Launch commands in systemd units: `ExecStart=` (prefixes `-@:+!` dropped) with the unit's
`Environment=` values, continuation lines joined, `${VAR}`/`$VAR` expanded from those values."""

from __future__ import annotations

import shlex

from doctor.lint.shell import expand
from doctor.lint.site import Command

EXEC_KEYS = {"ExecStart", "ExecStartPre", "ExecStartPost"}


def systemd_commands(text: str) -> list[Command]:
    env: dict[str, str] = {}
    commands: list[Command] = []
    for line, end_line, key, value in _settings(text):
        if key == "Environment":
            env.update(_assignments(value))
        elif key in EXEC_KEYS and value:
            words = _split(value.lstrip("-@:+!"))
            commands.append(Command(argv=tuple(expand(words, env)), line=line, end_line=end_line, env=dict(env)))
    return commands


def _settings(text: str) -> list[tuple[int, int, str, str]]:
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        start, value = i, lines[i].strip()
        while value.endswith("\\") and i + 1 < len(lines):
            i += 1
            following = lines[i].strip()
            value = value[:-1] + ("" if following.startswith(("#", ";")) else " " + following)
        key, eq, rest = value.partition("=")
        if eq and not value.startswith(("#", ";", "[")):
            out.append((start + 1, i + 1, key.strip(), rest.strip()))
        i += 1
    return out


def _assignments(value: str) -> dict[str, str]:
    pairs = (word.partition("=") for word in _split(value))
    return {name: text for name, eq, text in pairs if eq}


def _split(value: str) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()
