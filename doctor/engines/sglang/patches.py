"""SGLang's source patches for SM12x: capability-12 tiles where a release lacks them. Applied and verified by
doctor.fix.patches; each names the rule whose finding calls for it."""

from __future__ import annotations

import ast
from pathlib import Path

from packaging.version import Version

from doctor.engines.pysource import find_function
from doctor.engines.sglang import source as sglang_source
from doctor.engines.sglang.attention import extend_tiles
from doctor.engines.spi import MARK, SM12X_TEST, FixError, Patch


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
        id="sglang-extend-attention-sm12x", rule_id="SGL101", package="sglang", relative_path=_extend_path,
        function="_get_block_sizes_for_extend_attention", anchor_test="_is_cuda and CUDA_CAPABILITY[0] >= 9",
        branch=(f"# sm120/sm121: 99 KiB of shared memory per block; tiles of SGLang 0.5.9 (PR #14311), {MARK}",
                "if Lq <= 128:", "    BLOCK_M, BLOCK_N = (64, 128)", "elif Lq <= 256:",
                "    BLOCK_M, BLOCK_N = (64, 64)", "else:", "    BLOCK_M, BLOCK_N = (32, 32)"),
        verify=_verify_extend),
    "sglang-prefill-attention-sm12x": Patch(
        id="sglang-prefill-attention-sm12x", rule_id="SGL106", package="sglang", relative_path=_prefill_path,
        function="context_attention_fwd", anchor_test="(_is_cuda or _is_hip) and CUDA_CAPABILITY[0] > 8",
        branch=(f"# sm120/sm121: 99 KiB of shared memory per block (SGLang PR #27962), {MARK}", "BLOCK = 64"),
        verify=_verify_prefill),
}


def _capability_chain(function: ast.FunctionDef) -> ast.If | None:
    for node in ast.walk(function):
        if isinstance(node, ast.If) and "CUDA_CAPABILITY" in ast.unparse(node.test):
            return node
    return None
