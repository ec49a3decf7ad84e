"""Read SGLang's server-argument definitions from a released wheel as source text (never imported).

Two styles exist: `parser.add_argument("--flag", "--alias", choices=[...])` in `sglang/srt/server_args.py`
(every release), and from 0.5.23 also annotated fields in `sglang/srt/arg_groups/fields/*.py`
(`tp_size: A[int, Arg(help=..., aliases=["--tensor-parallel-size"], choices=CHOICES)] = 1`), whose flag
is `--` + the field name with dashes unless `cli_name` or `no_cli=True` says otherwise.
"""

from __future__ import annotations

import ast
import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tests.wheels import download_wheel

ARG_FILES = ("sglang/srt/server_args.py",)
FIELD_DIR = "sglang/srt/arg_groups/fields/"
CHOICES_FILE = "sglang/srt/arg_groups/choices.py"


@dataclass
class ServerArgsSource:
    version: str
    flags: set[str] = field(default_factory=set)
    choices: dict[str, list[str] | None] = field(default_factory=dict)  # None: not a literal list
    texts: dict[str, str] = field(default_factory=dict)  # every .py file read, for string facts

    def text(self, *, contains: str) -> list[str]:
        return [name for name, text in self.texts.items() if contains in text]


@cache
def server_args(version: str) -> ServerArgsSource:
    wheel = download_wheel("sglang", version)
    out = ServerArgsSource(version)
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if _wanted(n)]
        for name in names:
            out.texts[name] = archive.read(name).decode("utf-8", errors="replace")
    constants: dict[str, list[str]] = {}
    for name in [*ARG_FILES, CHOICES_FILE, *sorted(n for n in out.texts if n.startswith(FIELD_DIR))]:
        if name in out.texts:
            constants.update(_list_constants(ast.parse(out.texts[name])))
    for name in ARG_FILES:
        _add_argument_calls(ast.parse(out.texts[name]), constants, out)
    for name in [*ARG_FILES, *sorted(n for n in out.texts if n.startswith(FIELD_DIR))]:
        _annotated_fields(ast.parse(out.texts[name]), constants, out)
    return out


# Only the files that hold server arguments and the version facts the rules rely on
WANTED = ("server_args.py", "/environ.py", "extend_attention.py", "fused_moe_triton_config.py")


def _wanted(name: str) -> bool:
    return name.endswith(".py") and name.startswith(("sglang/srt/", "sglang/kernels/")) and (
        name.endswith(WANTED) or "/arg_groups/" in name)


def wheel_file_text(version: str, path: str) -> str | None:
    return server_args(version).texts.get(path)


def _list_constants(tree: ast.AST) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        strings = _strings(value, {}) if value is not None else None
        if target and strings is not None:
            found[target] = strings
    return found


def _strings(node: ast.AST | None, constants: dict[str, list[str]]) -> list[str] | None:
    if isinstance(node, ast.List | ast.Tuple):
        items = [_strings(e, constants) for e in node.elts]
        if all(i is not None for i in items):
            return [s for i in items for s in i]  # type: ignore[union-attr]
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _strings(node.left, constants), _strings(node.right, constants)
        if left is not None and right is not None:
            return left + right
    return None


def _add_argument_calls(tree: ast.AST, constants: dict[str, list[str]], out: ServerArgsSource) -> None:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                 and a.value.startswith("--")]
        choices = next((_strings(k.value, constants) for k in node.keywords if k.arg == "choices"), None)
        for flag in names:
            out.flags.add(flag)
            if any(k.arg == "choices" for k in node.keywords):
                out.choices[flag] = choices


def _annotated_fields(tree: ast.AST, constants: dict[str, list[str]], out: ServerArgsSource) -> None:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(node.annotation, ast.Subscript)):
            continue
        annotation = node.annotation
        if not (isinstance(annotation.value, ast.Name) and annotation.value.id in ("A", "Annotated")):
            continue
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        arg = next((p for p in parts[1:] if isinstance(p, ast.Call) and getattr(p.func, "id", "") == "Arg"), None)
        if any(isinstance(p, ast.Call) and getattr(p.func, "id", "") == "Derived" for p in parts[1:]):
            continue
        keywords = {k.arg: k.value for k in arg.keywords} if arg is not None else {}
        no_cli = keywords.get("no_cli")
        if isinstance(no_cli, ast.Constant) and no_cli.value is True:
            continue
        cli = keywords.get("cli_name")
        primary = cli.value if isinstance(cli, ast.Constant) and isinstance(cli.value, str) else None
        flag = primary if primary and primary.startswith("--") else "--" + (primary or node.target.id).replace("_", "-")
        flags = [flag, *(_strings(keywords.get("aliases"), constants) or [])]
        for name in flags:
            out.flags.add(name)
            if "choices" in keywords:
                out.choices[name] = _strings(keywords["choices"], constants)


def wheel_path(version: str) -> Path:
    return download_wheel("sglang", version)
