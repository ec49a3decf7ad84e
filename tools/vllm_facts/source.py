"""A vLLM wheel read as source: its Python modules parsed (never imported) and names resolved through their
imports, so an annotation in `arg_utils.py` can be followed to the `Literal` or `Enum` it names."""

from __future__ import annotations

import ast
import zipfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

MAX_HOPS = 12  # re-export chains (vllm.config -> vllm.config.model) are short; a loop is not followed forever


@dataclass(frozen=True)
class Found:
    """A top-level definition: the module it lives in, its file, and the node (ClassDef, Assign, ...)."""

    module: str
    path: str
    node: ast.AST


class WheelSource:
    def __init__(self, wheel: Path) -> None:
        self.wheel = Path(wheel)
        self.archive = zipfile.ZipFile(self.wheel)
        self._trees: dict[str, ast.Module | None] = {}

    def close(self) -> None:
        self.archive.close()

    @cached_property
    def names(self) -> list[str]:
        return self.archive.namelist()

    @cached_property
    def _name_set(self) -> set[str]:
        return set(self.names)

    def has(self, path: str) -> bool:
        return path in self._name_set

    def text(self, path: str) -> str:
        return self.archive.read(path).decode("utf-8")

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self.text(path)) if self.has(path) else None
            except (SyntaxError, UnicodeDecodeError):
                self._trees[path] = None
        return self._trees[path]

    def module_path(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if self.has(candidate):
                return candidate
        return None

    def lookup(self, module: str, name: str, hops: int = 0) -> Found | None:
        """The top-level definition of `name` as seen from `module`, following `from X import name`."""
        path = self.module_path(module)
        tree = self.tree(path) if path else None
        if tree is None or hops > MAX_HOPS:
            return None
        imported: tuple[str, str] | None = None
        starred: list[str] = []  # `from .types import *`: looked in when nothing names it here
        for node in top_level(tree):
            if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name:
                return Found(module, path, node)  # type: ignore[arg-type]
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return Found(module, path, node)  # type: ignore[arg-type]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name \
                    and node.value is not None:
                return Found(module, path, node)  # type: ignore[arg-type]
            if isinstance(node, ast.ImportFrom) and imported is None:
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        imported = (absolute_module(module, path or "", node), alias.name)
                    elif alias.name == "*":
                        starred.append(absolute_module(module, path or "", node))
        if imported is not None:
            return self.lookup(imported[0], imported[1], hops + 1)
        for other in starred:
            if found := self.lookup(other, name, hops + 1):
                return found
        return None

    def function(self, path: str, name: str, cls: str | None = None) -> ast.FunctionDef | None:
        tree = self.tree(path)
        if tree is None:
            return None
        scope: list[ast.stmt] = tree.body
        if cls is not None:
            owner = next((n for n in top_level(tree) if isinstance(n, ast.ClassDef) and n.name == cls), None)
            if owner is None:
                return None
            scope = owner.body
        return next((n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name), None)


def top_level(tree: ast.Module) -> list[ast.stmt]:
    """Module statements, looking inside top-level `if`/`try` blocks (TYPE_CHECKING imports, fallbacks)."""
    out: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.If):
            out += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            out += [*node.body, *[s for h in node.handlers for s in h.body], *node.orelse]
        else:
            out.append(node)
    return out


def absolute_module(module: str, path: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def module_of(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
