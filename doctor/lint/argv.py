"""Recognise an engine launch in an argv, by the launchers each engine declares (`Engine.launchers`:
`python -m MODULE`, `COMMAND [SUBCOMMAND]`), behind env assignments, `env`, `exec`, `nohup`,
`docker run IMAGE`, or inside `sh -c SCRIPT`; split out the model and the flags."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from doctor.engines import registry
from doctor.engines.infer import PYTHON, split_model
from doctor.engines.run import Launcher
from doctor.lint.pins import image_entrypoint

SHELLS = {"sh", "bash", "dash", "zsh", "ash"}
CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CALLER_ARGS = {"$@", "$*", "${@}", "${*}"}  # "pass through whatever the caller adds": not a flag of ours
# `docker run` options that take no value (everything else with a leading dash takes one).
DOCKER_SWITCHES = {"-d", "--detach", "-i", "--interactive", "-t", "--tty", "-it", "-ti", "--rm", "--init",
                   "--privileged", "-P", "--publish-all", "--read-only", "--sig-proxy", "--no-healthcheck",
                   "-q", "--quiet", "--oom-kill-disable"}


@dataclass(frozen=True)
class EngineLaunch:
    engine: str
    model: str | None
    engine_args: tuple[str, ...]
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    image: str | None = None


@dataclass(frozen=True)
class Script:
    """`sh -c TEXT`: the launch, if any, is inside TEXT (a shell script)."""

    text: str
    env: dict[str, str] = field(default_factory=dict)
    image: str | None = None


def recognise(argv: Sequence[str], entrypoint: Sequence[str] = ()) -> EngineLaunch | Script | None:
    """The engine launch in `argv`, or the script it runs, or None. `entrypoint` is what the container runs
    before `argv` when `argv` itself names no launcher (an engine image's ENTRYPOINT). A `docker run` in
    `argv` brings its own image (returned as `image`) and entrypoint."""
    argv = [a for a in argv if a not in CALLER_ARGS]
    env: dict[str, str] = {}
    image = None
    container = _container_run(argv)
    if container is not None:
        image, argv, env, keeps_entrypoint = container
        entrypoint = image_entrypoint(image) if keeps_entrypoint else ()
    start = _skip_wrappers(argv, env)
    argv = argv[start:]
    if len(argv) >= 2 and argv[0].rsplit("/", 1)[-1] in SHELLS:
        script = _shell_script(argv)
        return Script(text=script, env=env, image=image) if script is not None else None
    found = _launcher(argv)
    if found is None and entrypoint and _launcher(list(entrypoint)) is not None:
        argv = [*entrypoint, *argv]
        found = _launcher(argv)
    if found is None:
        return None
    engine, args_at, launcher = found
    model, engine_args = split_model(launcher, argv[args_at:])
    engine_args = launcher.engine_args(engine_args)
    return EngineLaunch(engine=engine, model=model, engine_args=tuple(engine_args), argv=tuple(argv), env=env,
                        image=image)


def _skip_wrappers(argv: list[str], env: dict[str, str]) -> int:
    """Index of the first real word after `A=B`, `env [-i] A=B`, `exec`, `nohup`, `time`, `sudo [-E]`."""
    i = 0
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if eq and ENV_NAME.match(name):
            env[name] = value
        elif word in ("env", "exec", "nohup", "time", "command", "sudo") or (
                word.startswith("-") and i > 0 and argv[i - 1] in ("env", "sudo", "exec")):
            pass
        else:
            return i
        i += 1
    return i


def _launcher(argv: list[str]) -> tuple[str, int, Launcher] | None:
    """(engine name, index where the engine's own arguments start, the launcher that matched)."""
    for i, word in enumerate(argv):
        base = word.rsplit("/", 1)[-1]
        module = argv[at] if PYTHON.match(base) and (at := _module_index(argv, i + 1)) is not None else None
        for name, launcher in _launchers():
            if module is not None and launcher.module == module and _words_at(argv, at + 1, launcher):  # type: ignore[operator]
                return name, at + 1 + len(launcher.words), launcher  # type: ignore[operator]
            if launcher.command is not None and base == launcher.command and _words_at(argv, i + 1, launcher):
                return name, i + 1 + len(launcher.words), launcher
    return None


def _words_at(argv: list[str], start: int, launcher: Launcher) -> bool:
    """Do the launcher's subcommand words (`serve api_server`) follow at `start`?"""
    words = launcher.words
    return tuple(argv[start:start + len(words)]) == words


def _launchers() -> list[tuple[str, Launcher]]:
    return [(name, launcher) for name, engine in registry.engines().items() for launcher in engine.launchers]


def _module_index(argv: list[str], i: int) -> int | None:
    """After `python`: skip interpreter switches (`-u`, `-X dev`) to the module name that follows `-m`."""
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "-m":
            return i + 1 if i + 1 < len(argv) else None
        i += 2 if argv[i] in ("-X", "-W") else 1
    return None


def _container_run(argv: list[str]) -> tuple[str, list[str], dict[str, str], bool] | None:
    """`docker run [opts] IMAGE [CMD...]` → (image, the command it runs (`--entrypoint` first), -e variables,
    whether the image's own entrypoint still runs), or None when argv is no container run."""
    for i, word in enumerate(argv[:-1]):
        if word.rsplit("/", 1)[-1] in CONTAINER_TOOLS and argv[i + 1] in ("run", "create"):
            return _parse_run_options(argv[i + 2:])
    return None


def _parse_run_options(rest: list[str]) -> tuple[str, list[str], dict[str, str], bool] | None:
    env: dict[str, str] = {}
    entrypoint: list[str] = []
    i = 0
    while i < len(rest) and rest[i].startswith("-"):
        option, eq, inline = rest[i].partition("=")
        value = inline if eq else (rest[i + 1] if i + 1 < len(rest) else "")
        if option in ("-e", "--env"):
            name, has_value, text = value.partition("=")
            if has_value:
                env[name] = text
        if option == "--entrypoint":
            entrypoint = [value]
        i += 1 if eq or option in DOCKER_SWITCHES else 2
    if i >= len(rest):
        return None
    return rest[i], [*entrypoint, *rest[i + 1:]], env, not entrypoint


def _shell_script(argv: list[str]) -> str | None:
    """`bash -lc 'TEXT'` / `sh -c TEXT` → TEXT; a shell running a file or reading stdin → None."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        if "c" in argv[i][1:] and not argv[i].startswith("--"):
            return argv[i + 1] if i + 1 < len(argv) else None
        i += 1
    return None
