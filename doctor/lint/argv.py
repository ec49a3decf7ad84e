"""Recognise an engine launch in an argv: `python3 -m sglang.launch_server`, `sglang serve`, `vllm serve`,
`python -m vllm.entrypoints.openai.api_server`, `trtllm-serve`, `llama-server`, behind env assignments,
`env`, `exec`, `nohup`, `docker run IMAGE`, or inside `sh -c SCRIPT`; split out the model and the flags."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from doctor.lint.pins import image_entrypoint

PYTHON = re.compile(r"^python(\d(\.\d+)?)?$")
SHELLS = {"sh", "bash", "dash", "zsh", "ash"}
CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODULES = {"sglang.launch_server": "sglang", "vllm.entrypoints.openai.api_server": "vllm"}
SUBCOMMANDS = {"sglang": ("serve", "sglang"), "vllm": ("serve", "vllm")}  # `sglang serve`, `vllm serve`
BINARIES = {"trtllm-serve": "tensorrt-llm", "llama-server": "llama.cpp"}
# The flags that name the model, per engine (SGLang: `--model-path`/`--model`, server_args.py).
MODEL_FLAGS = {"sglang": ("--model-path", "--model"), "vllm": ("--model",), "tensorrt-llm": ("--model",),
               "llama.cpp": ("-hf", "--hf-repo", "-m", "--model")}
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
    engine, args_at, positional_model = found
    model, engine_args = _split_model(engine, argv[args_at:], positional_model)
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


def _launcher(argv: list[str]) -> tuple[str, int, bool] | None:
    """(engine, index where its own arguments start, whether the model may be positional)."""
    for i, word in enumerate(argv):
        base = word.rsplit("/", 1)[-1]
        following = argv[i + 1] if i + 1 < len(argv) else None
        if PYTHON.match(base):
            module_at = _module_index(argv, i + 1)
            if module_at is not None and argv[module_at] in MODULES:
                return MODULES[argv[module_at]], module_at + 1, False
        for engine, (subcommand, binary) in SUBCOMMANDS.items():
            if base == binary and following == subcommand:
                return engine, i + 2, engine == "vllm"
        if base in BINARIES:
            skip = 2 if base == "trtllm-serve" and following == "serve" else 1
            return BINARIES[base], i + skip, base == "trtllm-serve"
    return None


def _module_index(argv: list[str], i: int) -> int | None:
    """After `python`: skip interpreter switches (`-u`, `-X dev`) to the module name that follows `-m`."""
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "-m":
            return i + 1 if i + 1 < len(argv) else None
        i += 2 if argv[i] in ("-X", "-W") else 1
    return None


def _split_model(engine: str, args: list[str], positional: bool) -> tuple[str | None, list[str]]:
    flags = MODEL_FLAGS[engine]
    model: str | None = None
    rest: list[str] = []
    i = 0
    while i < len(args):
        flag, eq, inline = args[i].partition("=")
        if flag in flags and model is None:
            model = inline if eq else (args[i + 1] if i + 1 < len(args) else None)
            i += 1 if eq else 2
            continue
        if positional and model is None and i == 0 and not args[i].startswith("-"):
            model = args[i]
        else:
            rest.append(args[i])
        i += 1
    return model, rest


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
