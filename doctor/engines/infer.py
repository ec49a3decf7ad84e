"""Which engine a launch belongs to, when the user names none and none is installed: the command pasted after
`--` (`COMMAND [WORDS] MODEL ...`, `python -m MODULE ...`, by the launchers each engine declares), else the
one engine whose flag vocabulary takes every flag given (`Engine.accepts_launch`, plug-ins included)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from doctor.engines import registry
from doctor.engines.run import Launcher

PYTHON = re.compile(r"^python(\d(\.\d+)?)?$")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Inferred:
    engine: str  # the registry name
    how: str  # "command": the launch command was pasted; "flags": only this engine takes the flags
    flags: tuple[str, ...]  # the engine's own flags (the command words and the model taken out)
    model: str | None = None  # the model the pasted command names


def infer_engine(argv: Sequence[str]) -> Inferred | None:
    """The engine `argv` launches, or None when it names no launcher and zero or several engines take its
    flags."""
    argv = list(argv)
    if not argv:
        return None
    pasted = from_command(argv)
    if pasted is not None:
        return pasted
    accepting = [name for name, engine in registry.engines().items() if engine.accepts_launch(argv)]
    return Inferred(engine=accepting[0], how="flags", flags=tuple(argv)) if len(accepting) == 1 else None


def launch_env(argv: Sequence[str]) -> dict[str, str]:
    """The variables a pasted launch command sets for itself: `[env] VAR=VALUE ... COMMAND ...`, as a shell
    would export them to the engine."""
    words = list(argv[1:] if argv and argv[0] == "env" else argv)
    assigned: dict[str, str] = {}
    for word in words:
        if not ENV_ASSIGNMENT.match(word):
            break
        name, _, value = word.partition("=")
        assigned[name] = value
    return assigned


def from_command(argv: list[str]) -> Inferred | None:
    """`[VAR=VALUE ...] COMMAND [WORDS] [MODEL] FLAGS` or `python -m MODULE [WORDS] FLAGS`, by the launchers."""
    argv = argv[1:] if argv and argv[0] == "env" else argv
    start = next((i for i, word in enumerate(argv) if not ENV_ASSIGNMENT.match(word)), len(argv))
    words = argv[start:]
    if not words or words[0].startswith("-"):
        return None
    head = words[0].rsplit("/", 1)[-1]
    module_at = 2 if PYTHON.match(head) and len(words) > 2 and words[1] == "-m" else None
    for name, engine in registry.engines().items():
        for launcher in engine.launchers:
            rest = _after(launcher, words, head, module_at)
            if rest is not None:
                model, flags = split_model(launcher, rest)
                return Inferred(engine=name, how="command", flags=tuple(launcher.engine_args(flags)), model=model)
    return None


def _after(launcher: Launcher, words: list[str], head: str, module_at: int | None) -> list[str] | None:
    """The words after the launcher's command (or module) and subcommand, None when it is not this one."""
    if module_at is not None and launcher.module == words[module_at]:
        at = module_at + 1
    elif launcher.command is not None and head == launcher.command:
        at = 1
    else:
        return None
    wanted = launcher.words
    return words[at + len(wanted):] if tuple(words[at:at + len(wanted)]) == wanted else None


def split_model(launcher: Launcher, args: list[str]) -> tuple[str | None, list[str]]:
    """The model a launch names (its positional argument or a model flag, the first one given) and the rest of its
    arguments; `lint` reads launch files with the same split."""
    model: str | None = None
    if launcher.positional_model and args and not args[0].startswith("-"):
        model, args = args[0], args[1:]
    flags: list[str] = []
    i = 0
    while i < len(args):
        flag, eq, inline = args[i].partition("=")
        if flag in launcher.model_flags and model is None:
            model = inline if eq else (args[i + 1] if i + 1 < len(args) else None)
            i += 1 if eq else 2
            continue
        flags.append(args[i])
        i += 1
    return model, flags
