"""Source patches for installed engines, as transformations: locate the target by parsing (the function
and its capability branch), refuse when the file does not have the expected shape, touch nothing else.

Each patch inserts a `CUDA_CAPABILITY[0] == 12` branch in front of the branch that SM12x wrongly falls
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
from doctor.engines.sglang import source as sglang_source
from doctor.engines.sglang.attention import extend_tiles
from doctor.fix.journal import FixError

MARK = "added by sm120-doctor"
SM12X_TEST = "_is_cuda and CUDA_CAPABILITY[0] == 12"


@dataclass(frozen=True)
class Patch:
    id: str
    rule_id: str
    relative_path: Callable[[Version], str]
    function: str
    anchor_test: str  # the branch SM12x falls into today, as ast.unparse prints its test
    branch: tuple[str, ...]  # the new branch body, relative indentation
    verify: Callable[[Path], None]


def _extend_path(version: Version) -> str:
    return str(sglang_source.extend_attention_file(Path(), version))


def _prefill_path(version: Version) -> str:
    return str(sglang_source.prefill_attention_file(Path(), version))


def _verify_extend(path: Path) -> None:
    """The patched function gives 0.5.9's SM12x tiles on 12.x; verified by evaluating the new source."""
    for capability in ((12, 0), (12, 1)):
        for lq, lv in ((64, 64), (128, 128), (192, 128), (256, 256), (576, 512)):
            got = sglang_source.extend_tiles_from_source(path, capability, lq, lv)
            want = extend_tiles(Version("0.5.9"), capability, lq, lv)
            if got != want:
                raise FixError(f"patched extend attention gives {got} for Lq {lq} on {capability}, expected {want}")


def _verify_prefill(path: Path) -> None:
    function = find_function(path.read_text(encoding="utf-8"), "context_attention_fwd")
    first = _capability_chain(function)
    if first is None or ast.unparse(first.test) != SM12X_TEST or "BLOCK = 64" not in ast.unparse(first.body):
        raise FixError("patched context_attention_fwd does not start with the SM12x BLOCK = 64 branch")


PATCHES = {
    "sglang-extend-attention-sm12x": Patch(
        id="sglang-extend-attention-sm12x", rule_id="SGL101", relative_path=_extend_path,
        function="_get_block_sizes_for_extend_attention", anchor_test="_is_cuda and CUDA_CAPABILITY[0] >= 9",
        branch=(f"# sm120/sm121: 99 KiB of shared memory per block; tiles of SGLang 0.5.9 (PR #14311), {MARK}",
                "if Lq <= 128:", "    BLOCK_M, BLOCK_N = (64, 128)", "elif Lq <= 256:",
                "    BLOCK_M, BLOCK_N = (64, 64)", "else:", "    BLOCK_M, BLOCK_N = (32, 32)"),
        verify=_verify_extend),
    "sglang-prefill-attention-sm12x": Patch(
        id="sglang-prefill-attention-sm12x", rule_id="SGL102", relative_path=_prefill_path,
        function="context_attention_fwd", anchor_test="(_is_cuda or _is_hip) and CUDA_CAPABILITY[0] > 8",
        branch=(f"# sm120/sm121: 99 KiB of shared memory per block (SGLang PR #27962), {MARK}", "BLOCK = 64"),
        verify=_verify_prefill),
}


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


def _capability_chain(function: ast.FunctionDef) -> ast.If | None:
    for node in ast.walk(function):
        if isinstance(node, ast.If) and "CUDA_CAPABILITY" in ast.unparse(node.test):
            return node
    return None
