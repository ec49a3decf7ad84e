"""Launch commands in YAML: docker-compose services (`entrypoint:` + `command:`) and Kubernetes containers
(`command:` + `args:`, anywhere in a manifest: Pods, Deployments, Jobs, CRDs that embed a pod template),
parsed with PyYAML's node API so every value keeps its line."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

import yaml

from doctor.errors import InputError
from doctor.lint.pins import image_entrypoint
from doctor.lint.site import Command

KUBERNETES_CONTAINER_LISTS = {"containers", "initContainers", "ephemeralContainers"}
COMMAND_KEYS = ("entrypoint", "command", "args")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it: fast, and no deep recursion
KUBE_VARIABLE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")  # `$(MODEL)`: Kubernetes env expansion


def yaml_commands(text: str) -> list[Command]:
    try:
        documents = list(yaml.compose_all(text, Loader=LOADER))
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {_yaml_problem(exc)}") from exc
    except RecursionError as exc:
        raise InputError("YAML nested too deeply to read") from exc
    commands: list[Command] = []
    seen: set[int] = set()
    try:
        for document in documents:
            if document is not None:
                commands.extend(_walk(document, in_container_list=False, seen=seen))
    except RecursionError as exc:
        raise InputError("YAML nested too deeply to read") from exc
    return commands


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{problem} (line {mark.line + 1})" if mark is not None else problem


def _walk(node: yaml.Node, in_container_list: bool, seen: set[int]) -> Iterator[Command]:
    """Every container command under `node`; an aliased node is visited once (`*a` repeated a billion times
    is one node in the graph, and must not be a billion walks)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _walk(item, in_container_list, seen)
    elif isinstance(node, yaml.MappingNode):
        keys = _keys(node)
        if any(key in keys for key in COMMAND_KEYS):
            command = _container_command(keys, kubernetes=in_container_list or "args" in keys)
            if command is not None:
                yield command
        for name, (_, value) in keys.items():
            yield from _walk(value, name in KUBERNETES_CONTAINER_LISTS, seen)


def _keys(node: yaml.MappingNode) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    return {key.value: (key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)}


def _container_command(keys: dict[str, tuple[yaml.Node, yaml.Node]], kubernetes: bool) -> Command | None:
    image = _scalar(keys.get("image"))
    env = _environment(keys)
    if kubernetes:  # `command` replaces the image's ENTRYPOINT, `args` its CMD
        first, second, kept = "command", "args", "command" not in keys
    else:  # compose: `entrypoint` replaces the ENTRYPOINT, `command` the CMD
        first, second, kept = "entrypoint", "command", "entrypoint" not in keys
    parts = [keys[k] for k in (first, second) if k in keys]
    argv = [word for _, value in parts for word in _words(value, env)]
    if not argv:
        return None
    line = min(key.start_mark.line for key, _ in parts) + 1
    end_line = max(_last_line(value) for _, value in parts)
    image_key = keys.get("image")
    return Command(argv=tuple(argv), line=line, end_line=max(end_line, line), env=env, image=image,
                   image_line=image_key[0].start_mark.line + 1 if image_key else None,
                   entrypoint=image_entrypoint(image) if kept else (), script_line=_script_line(parts[-1][1]))


def _last_line(node: yaml.Node) -> int:
    """1-based line of the last character of a value (a block node's end mark sits on the next key)."""
    if isinstance(node, yaml.SequenceNode | yaml.MappingNode) and node.value:
        last = node.value[-1]
        return _last_line(last[1] if isinstance(last, tuple) else last)
    end = node.end_mark
    return end.line if end.column == 0 and end.line > node.start_mark.line else end.line + 1


def _words(node: yaml.Node, env: dict[str, str]) -> list[str]:
    if isinstance(node, yaml.SequenceNode):
        return [_kube_expand(str(item.value), env) for item in node.value if isinstance(item, yaml.ScalarNode)]
    if isinstance(node, yaml.ScalarNode) and node.value:
        try:
            return [_kube_expand(w, env) for w in shlex.split(node.value)]
        except ValueError:
            return node.value.split()
    return []


def _kube_expand(word: str, env: dict[str, str]) -> str:
    return KUBE_VARIABLE.sub(lambda m: env.get(m.group(1), m.group(0)), word)


def _script_line(node: yaml.Node) -> int | None:
    """The file line of a literal-block (`|`) script's first line: there a script line is a file line."""
    last = node.value[-1] if isinstance(node, yaml.SequenceNode) and node.value else node
    if isinstance(last, yaml.ScalarNode) and last.style == "|":
        return last.start_mark.line + 2
    return None


def _scalar(entry: tuple[yaml.Node, yaml.Node] | None) -> str | None:
    if entry is None or not isinstance(entry[1], yaml.ScalarNode):
        return None
    return str(entry[1].value) or None


def _environment(keys: dict[str, tuple[yaml.Node, yaml.Node]]) -> dict[str, str]:
    """compose `environment:` (mapping or `- K=V` list) or Kubernetes `env:` (`- name: K` / `value: V`)."""
    env: dict[str, str] = {}
    for name in ("environment", "env"):
        node = keys[name][1] if name in keys else None
        if isinstance(node, yaml.MappingNode):
            env.update({k: str(v.value) for k, (_, v) in _keys(node).items() if isinstance(v, yaml.ScalarNode)})
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                env.update(_env_item(item))
    return env


def _env_item(item: yaml.Node) -> dict[str, str]:
    if isinstance(item, yaml.ScalarNode):
        name, eq, value = str(item.value).partition("=")
        return {name: value} if eq else {}
    if isinstance(item, yaml.MappingNode):
        fields = {k: v for k, (_, v) in _keys(item).items()}
        name, value = fields.get("name"), fields.get("value")
        if isinstance(name, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode):
            return {str(name.value): str(value.value)}
    return {}
