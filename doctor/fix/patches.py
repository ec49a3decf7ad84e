"""Source patches for installed engines, as transformations: locate the target by parsing (the function
and its capability branch), refuse when the file does not have the expected shape, touch nothing else.
Engines declare their patches (Engine.patches); this module applies and verifies them.

A patch inserts a `CUDA_CAPABILITY[0] == 12` branch in front of the branch that SM12x wrongly falls
into (`>= 9` / `> 8`: Hopper-sized tiles), and turns that `if` into `elif`.
"""

from __future__ import annotations

import ast
import py_compile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from doctor.engines.pysource import SourceShapeError, find_function
from doctor.fix.journal import FixError

MARK = "added by sm120-doctor"
SM12X_TEST = "_is_cuda and CUDA_CAPABILITY[0] == 12"


@dataclass(frozen=True)
class Patch:
    id: str
    rule_id: str  # the rule whose finding calls for it: --fix --unsafe-fixes reaches the patch from there
    package: str  # the installed distribution it edits
    relative_path: Callable[[Version], str]
    function: str
    anchor_test: str  # the branch SM12x falls into today, as ast.unparse prints its test
    branch: tuple[str, ...]  # the new branch body, relative indentation
    verify: Callable[[Path], None]


def patched_source(patch: Patch, text: str) -> str | None:
    """The new file text, or None when the SM12x branch is already there (upstream or a previous fix)."""
    try:
        function = find_function(text, patch.function)
    except SourceShapeError as exc:
        raise FixError(f"{patch.id}: unexpected file shape ({exc}); not patching") from exc
    tests = [ast.unparse(n.test) for n in ast.walk(function) if isinstance(n, ast.If)]
    if SM12X_TEST in tests:
        return None
    anchors = [n for n in ast.walk(function) if isinstance(n, ast.If) and ast.unparse(n.test) == patch.anchor_test]
    if len(anchors) != 1:
        raise FixError(f"{patch.id}: expected exactly one `if {patch.anchor_test}` in {patch.function}, "
                       f"found {len(anchors)}; the file was changed by hand or is an unknown version")
    anchor = anchors[0]
    lines = text.splitlines(keepends=True)
    line = lines[anchor.lineno - 1]
    indent = line[: anchor.col_offset]
    if line[anchor.col_offset:anchor.col_offset + 3] != "if " or indent.strip():
        raise FixError(f"{patch.id}: the `{patch.anchor_test}` branch is not a plain `if` at line {anchor.lineno}")
    newline = "\r\n" if line.endswith("\r\n") else "\n"
    inserted = [f"{indent}if {SM12X_TEST}:{newline}"]
    inserted += [f"{indent}    {body}{newline}" for body in patch.branch]
    lines[anchor.lineno - 1] = f"{indent}el{line[anchor.col_offset:]}"
    return "".join(lines[: anchor.lineno - 1] + inserted + lines[anchor.lineno - 1:])


def verify_patched_file(patch: Patch, path: Path) -> None:
    try:
        py_compile.compile(str(path), doraise=True, cfile=str(path) + ".sm120-doctor-check.pyc")
    except py_compile.PyCompileError as exc:
        raise FixError(f"{patch.id}: patched file does not compile: {exc.msg}") from exc
    finally:
        Path(str(path) + ".sm120-doctor-check.pyc").unlink(missing_ok=True)
    try:
        patch.verify(path)
    except SourceShapeError as exc:
        raise FixError(f"{patch.id}: patched file cannot be checked: {exc}") from exc
