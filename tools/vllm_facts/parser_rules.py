"""What a release's FlexibleArgumentParser does around argparse, read from its source
(`vllm/utils/argparse_utils.py`, `vllm/utils/__init__.py` before 0.12): the action it puts in place of
BooleanOptionalAction (and the inverse spellings that adds), and how it rewrites `-O` before parsing."""

from __future__ import annotations

import ast
import re
from typing import Any

from tools.vllm_facts.source import WheelSource, top_level

ARGPARSE_UTILS = ("vllm/utils/argparse_utils.py", "vllm/utils/__init__.py")
ATTACHED_O = re.compile(r"""processed_args\s*\+=\s*\[\s*["'](--optimization-level)["']"""
                        r"""|processed_args\.append\(f?["'](-O\.level)=""")
SEPARATE_O = re.compile(r"""arg\s*==\s*["']-O["']\s+and\s+i\s*\+\s*1\s*<\s*len\(args\)\s+and\s+"""
                        r"""args\[i\s*\+\s*1\]\s+in\s*\{([^}]*)\}""")


def dash_o(source: WheelSource) -> dict[str, Any] | None:
    """How the release's FlexibleArgumentParser.parse_args rewrites `-O` before argparse sees it: `-O3` /
    `-O=3` to `--optimization-level 3` (0.12+) or `-O.level=3` (before), `-O 3` likewise when the next word
    is a level, and (0.12 only) `-O.key` to `-cc.key`. None when the release has no such rewrite."""
    for path in ARGPARSE_UTILS:
        text = source.text(path) if source.has(path) else ""
        attached = ATTACHED_O.search(text)
        if attached is None:
            continue
        separate = SEPARATE_O.search(text)
        return {"attached": attached.group(1) or attached.group(2),
                "separate_levels": re.findall(r"""["']([^"']+)["']""", separate.group(1)) if separate else [],
                "attached_skips_dot": bool(re.search(r"""arg\[2\]\s*!=\s*["']\.["']""", text)),
                "dotted_to": "-cc" if re.search(r"""arg\.replace\(\s*["']-O["'],\s*["']-cc["']""", text) else None,
                "file": path}
    return None


def inverse_prefixes(source: WheelSource) -> dict[str, str]:
    """`{"--enable-": "--disable-", ...}` when the release's FlexibleArgumentParser registers an action in
    place of BooleanOptionalAction (`self.register("action", BooleanOptionalAction, EnableDisableAction)`)
    whose class has `_inverse_prefixes`; empty when it does not."""
    for path in ARGPARSE_UTILS:
        tree = source.tree(path)
        if tree is None:
            continue
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and func_name(n.func) == "register"):
            if len(call.args) == 3 and func_name(call.args[1]) == "BooleanOptionalAction" \
                    and isinstance(call.args[2], ast.Name):
                return _class_prefixes(tree, call.args[2].id)
    return {}


def _class_prefixes(tree: ast.Module, name: str) -> dict[str, str]:
    cls = next((n for n in top_level(tree) if isinstance(n, ast.ClassDef) and n.name == name), None)
    for stmt in cls.body if cls else []:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_inverse_prefixes"
                                                for t in stmt.targets) and isinstance(stmt.value, ast.Dict):
            return {k.value: v.value for k, v in zip(stmt.value.keys, stmt.value.values, strict=True)
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
    return {}


def func_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
