"""Build recipes in a launch file: the GPU targets a source build compiles for (`cmake -DCMAKE_CUDA_ARCHITECTURES`,
TORCH_CUDA_ARCH_LIST, FLASHINFER_CUDA_ARCH_LIST, vLLM's `torch_cuda_arch_list` and llama.cpp's `CUDA_DOCKER_ARCH`
build arguments), `GGML_NATIVE`, the PyTorch index a `pip install torch` reads (`.../whl/cu126`), and the CUDA
toolkit the build runs with (a Dockerfile's `nvidia/cuda:X-devel` or NGC PyTorch stage). The arch lists become
the variables `doctor.buildargs` reads; the rest is `recipe.*` for the rules."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from doctor.engines.images import image_facts
from doctor.lint.dockerfile import instructions
from doctor.lint.shell import expand, shell_commands

# build argument / variable → the arch-list variable doctor.buildargs parses it as
ARCH_NAMES = {"TORCH_CUDA_ARCH_LIST": "TORCH_CUDA_ARCH_LIST", "torch_cuda_arch_list": "TORCH_CUDA_ARCH_LIST",
              "FLASHINFER_CUDA_ARCH_LIST": "FLASHINFER_CUDA_ARCH_LIST", "CMAKE_CUDA_ARCHITECTURES":
              "CMAKE_CUDA_ARCHITECTURES", "CUDAARCHS": "CUDAARCHS", "CUDA_DOCKER_ARCH": "CMAKE_CUDA_ARCHITECTURES"}
_CMAKE_DEFINE = re.compile(r"^-D([A-Za-z_][A-Za-z0-9_]*)(?::[A-Z]+)?=(.*)$")
_TORCH_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?(cu(\d{2,3})|cpu|rocm[\d.]+)(?:/|$)")
_ON = {"on", "1", "yes", "true"}
_OFF = {"off", "0", "no", "false"}


@dataclass
class Recipe:
    variables: dict[str, str] = field(default_factory=dict)  # arch lists as doctor.buildargs names them
    lines: dict[str, int] = field(default_factory=dict)  # where each fact was read
    ggml_native: bool | None = None  # a llama.cpp CMake configure: GGML_NATIVE as it resolves (default ON)
    torch_index: str | None = None  # cu126, cu128, cpu: the PyTorch wheel index `pip install torch` reads
    toolkit: str | None = None  # the CUDA toolkit (nvcc) the build stage has
    toolkit_source: str | None = None
    dockerfile: bool = False

    def view(self) -> dict[str, Any] | None:
        if not (self.variables or self.ggml_native is not None or self.torch_index or self.toolkit):
            return None
        cuda = self.torch_index[2:] if self.torch_index and self.torch_index.startswith("cu") else None
        return {"variables": dict(self.variables), "lines": dict(self.lines), "ggml_native": self.ggml_native,
                "torch_index": self.torch_index,
                "torch_index_cuda": f"{cuda[:-1]}.{cuda[-1]}" if cuda else None,
                "toolkit": self.toolkit, "toolkit_source": self.toolkit_source, "in_image": self.dockerfile,
                "arch_targets": _targets(self.variables)}


def recipe_from_text(text: str, kind: str) -> Recipe:
    recipe = Recipe(dockerfile=kind in ("dockerfile", "yaml"))
    if kind == "yaml":
        _compose_build_args(text, recipe)
        commands: Iterator[tuple[int, list[str], dict[str, str]]] = _yaml_scripts(text)
        for line, argv, env in commands:
            _read_command(recipe, line, argv, env)
        return recipe
    commands = _dockerfile_commands(text, recipe) if kind == "dockerfile" else _shell_commands(text)
    for line, argv, env in commands:
        _read_command(recipe, line, argv, env)
    return recipe


def _compose_build_args(text: str, recipe: Recipe) -> None:
    """docker-compose `build: {args: {torch_cuda_arch_list: "12.0"}}` (a mapping or `- NAME=VALUE` list): the
    image the service builds takes them as its build arguments."""
    import yaml

    try:
        documents = list(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except (yaml.YAMLError, RecursionError):
        return  # the launch extractor reports unreadable YAML
    seen: set[int] = set()
    for node in documents:
        for args in _build_args_nodes(node, 0, seen):
            _record(recipe, _yaml_pairs(args), args.start_mark.line + 1)


def _yaml_scripts(text: str) -> Iterator[tuple[int, list[str], dict[str, str]]]:
    """The shell a container runs (`command: bash -c "pip install ... && vllm serve ..."`, a `|` block)."""
    import yaml

    try:
        documents = list(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except (yaml.YAMLError, RecursionError):
        return
    seen: set[int] = set()
    for node in documents:
        for scalar in _scalars(node, 0, seen):
            if any(word in scalar.value for word in ("pip", "cmake", "docker build")):
                for command in shell_commands(scalar.value, first_line=scalar.start_mark.line + 1, one_line=True):
                    yield command.line, list(command.argv), dict(command.env)


def _scalars(node: Any, depth: int, seen: set[int]) -> Iterator[Any]:
    """Every scalar under `node`, each node once: an alias bomb is one node per anchor, not a billion walks."""
    import yaml

    if depth > 32 or id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _scalars(item, depth + 1, seen)
    elif isinstance(node, yaml.MappingNode):
        for _, value in node.value:
            yield from _scalars(value, depth + 1, seen)


def _build_args_nodes(node: Any, depth: int, seen: set[int]) -> Iterator[Any]:
    import yaml

    if depth > 8 or id(node) in seen or not isinstance(node, yaml.MappingNode):
        return
    seen.add(id(node))
    for key, value in node.value:
        if key.value == "build" and isinstance(value, yaml.MappingNode):
            yield from (v for k, v in value.value if k.value == "args")
        else:
            yield from _build_args_nodes(value, depth + 1, seen)


def _yaml_pairs(node: Any) -> dict[str, str]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return {str(k.value): str(v.value) for k, v in node.value if isinstance(v, yaml.ScalarNode)}
    if isinstance(node, yaml.SequenceNode):
        pairs = (str(item.value).partition("=") for item in node.value if isinstance(item, yaml.ScalarNode))
        return {name: value for name, eq, value in pairs if eq}
    return {}


def _shell_commands(text: str) -> Iterator[tuple[int, list[str], dict[str, str]]]:
    for command in shell_commands(text):
        yield command.line, list(command.argv), dict(command.env)


def _dockerfile_commands(text: str, recipe: Recipe) -> Iterator[tuple[int, list[str], dict[str, str]]]:
    """RUN lines as shell commands, with the ARG/ENV values in force; FROM images for the toolkit."""
    variables: dict[str, str] = {}
    for instruction in instructions(text):
        if instruction.keyword in ("ARG", "ENV"):
            assigned = _assignments(instruction.text, variables, instruction.keyword)
            variables.update(assigned)
            _record(recipe, assigned, instruction.line)
        elif instruction.keyword == "FROM":
            _from_toolkit(recipe, instruction.text, variables, instruction.line)
        elif instruction.keyword == "RUN":
            for command in shell_commands(instruction.text, first_line=instruction.line, variables=variables,
                                          one_line=True):
                yield command.line, list(command.argv), {**variables, **command.env}


def _assignments(text: str, variables: dict[str, str], keyword: str) -> dict[str, str]:
    try:
        words = expand(shlex.split(text), variables)
    except ValueError:
        words = text.split()
    if keyword == "ENV" and len(words) >= 2 and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    return {name: value for name, eq, value in (w.partition("=") for w in words) if eq}


def _from_toolkit(recipe: Recipe, text: str, variables: dict[str, str], line: int) -> None:
    words = [w for w in expand(text.split(), variables) if not w.startswith("--")]
    image = image_facts(words[0]) if words else None
    if image is not None and image.toolkit and image.cuda:
        recipe.toolkit, recipe.toolkit_source = image.cuda, f"FROM {words[0]} (line {line})"


def _record(recipe: Recipe, assigned: dict[str, str], line: int) -> None:
    for name, value in assigned.items():
        target = ARCH_NAMES.get(name)
        value = value.strip().strip("'\"")
        if target and _names_targets(target, value):
            if recipe.variables.get(target) != value:
                recipe.lines[target] = line
            recipe.variables[target] = value
        elif name == "CMAKE_ARGS":  # llama-cpp-python: CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=120"
            _cmake_defines(recipe, _split(value), line)


def _names_targets(name: str, value: str) -> bool:
    """Only a list with at least one target it can parse (`default`, `${ARCHS}` are no list)."""
    from doctor.buildargs import parse_arch_list

    targets, _, native = parse_arch_list(name, value, None)
    return bool(targets) or native


def _read_command(recipe: Recipe, line: int, argv: list[str], env: dict[str, str]) -> None:
    leading = _leading_assignments(argv)
    _record(recipe, {**{k: v for k, v in env.items() if k in ARCH_NAMES or k == "CMAKE_ARGS"}, **leading}, line)
    words = _without_wrappers(argv[len(leading):])
    if not words:
        return
    program = words[0].rsplit("/", 1)[-1]
    if program in ("sh", "bash", "dash", "zsh") and len(words) > 2 and words[1].startswith("-") and "c" in words[1]:
        for command in shell_commands(words[2], first_line=line, one_line=True):
            _read_command(recipe, command.line, list(command.argv), {**env, **command.env})
    elif program == "cmake":
        _cmake(recipe, words[1:], line)
    elif program in ("docker", "podman", "buildah") and "build" in words[1:3]:
        _record(recipe, _build_args(words), line)
    elif _is_pip_install(words):
        _pip(recipe, words, line)


def _without_wrappers(words: list[str]) -> list[str]:
    """`sudo -E docker build ...` → `docker build ...`."""
    i = 0
    while i < len(words) and (words[i] in ("sudo", "env", "exec", "nohup", "time", "command")
                              or (i > 0 and words[i].startswith("-") and words[i - 1] in ("sudo", "env"))):
        i += 1
    return words[i:]


def _build_args(words: list[str]) -> dict[str, str]:
    """`docker build --build-arg torch_cuda_arch_list="12.0 12.1" .`: the build arguments it passes."""
    out: dict[str, str] = {}
    for i, word in enumerate(words):
        value = word.partition("=")[2] if word.startswith("--build-arg=") else (
            words[i + 1] if word == "--build-arg" and i + 1 < len(words) else None)
        if value:
            name, eq, text = value.partition("=")
            if eq:
                out[name] = text
    return out


def _leading_assignments(argv: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for word in argv:
        name, eq, value = word.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            break
        out[name] = value
    return out


def _cmake(recipe: Recipe, args: list[str], line: int) -> None:
    defines = _cmake_defines(recipe, args, line)
    if "--build" in args or "--install" in args:
        return
    if any(name.startswith("GGML_") or name.startswith("LLAMA_") for name in defines):  # a llama.cpp configure
        native = defines.get("GGML_NATIVE")
        if native is None:
            recipe.ggml_native = recipe.ggml_native if recipe.ggml_native is not None else True  # CMake default
        else:
            recipe.ggml_native = native.lower() in _ON and native.lower() not in _OFF
        recipe.lines.setdefault("GGML_NATIVE", line)


def _cmake_defines(recipe: Recipe, args: list[str], line: int) -> dict[str, str]:
    defines: dict[str, str] = {}
    pending = False
    for arg in args:
        if arg == "-D":
            pending = True
            continue
        match = _CMAKE_DEFINE.match(arg if not pending else f"-D{arg}")
        pending = False
        if match:
            defines[match.group(1)] = match.group(2).strip("'\"")
    _record(recipe, {k: v for k, v in defines.items() if k in ("CMAKE_CUDA_ARCHITECTURES", "CUDAARCHS")}, line)
    return defines


def _is_pip_install(words: list[str]) -> bool:
    names = [w.rsplit("/", 1)[-1] for w in words[:4]]
    return "install" in words[:5] and any(n in ("pip", "pip3", "uv") or n.startswith("pip3.") for n in names)


def _pip(recipe: Recipe, words: list[str], line: int) -> None:
    installs_torch = any(re.match(r"^torch(?:$|[=<>~!\[ ])", w) for w in words)
    for word in words:
        match = _TORCH_INDEX.search(word)
        if match and installs_torch:
            recipe.torch_index = match.group(1)
            recipe.lines["torch_index"] = line


def _split(value: str) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def _targets(variables: dict[str, str]) -> list[str]:
    from doctor.buildargs import parse_arch_list

    out: list[str] = []
    for name, value in variables.items():
        targets, _, _ = parse_arch_list(name, value, None)
        out += [a.token for a in targets]
    return out
