"""Where SGLang keeps the files the doctor reads, per version, and what their functions return for a
given GPU — evaluated from the installed source (doctor.engines.pysource), never imported."""

from __future__ import annotations

from pathlib import Path

from packaging.version import Version

from doctor.engines.pysource import SourceShapeError, evaluate_function
from doctor.engines.sglang.attention import ExtendTiles
from doctor.versions import release

V0_5_16 = Version("0.5.16")
EXTEND_FUNCTION = "_get_block_sizes_for_extend_attention"


def extend_attention_file(site: Path, version: Version) -> Path:
    if release(version) >= V0_5_16:
        return site / "sglang/kernels/ops/attention/extend_attention.py"
    return site / "sglang/srt/layers/attention/triton_ops/extend_attention.py"


def prefill_attention_file(site: Path, version: Version) -> Path:
    """`context_attention_fwd` (vision/prefill attention); moved with extend attention in 0.5.16."""
    return extend_attention_file(site, version).with_name("prefill_attention.py")


def gpu_env(capability: tuple[int, int]) -> dict[str, object]:
    """Module-level names the tile functions test, bound as on a CUDA machine with this GPU."""
    return {"CUDA_CAPABILITY": tuple(capability), "_is_cuda": True, "_is_hip": False, "_is_gfx95": False,
            "_is_triton_ge_37": False, "_is_npu": False, "_is_cpu": False, "_is_xpu": False}


def extend_tiles_from_source(path: Path, capability: tuple[int, int], lq: int, lv: int) -> ExtendTiles:
    result = evaluate_function(path, EXTEND_FUNCTION, {"Lq": lq, "Lv": lv}, gpu_env(capability))
    if not (isinstance(result, tuple) and len(result) == 6 and all(isinstance(v, int) for v in result)):
        raise SourceShapeError(f"{EXTEND_FUNCTION} returned {result!r}, expected six integers")
    dmodel, dpe, dv, block_m, block_n, warps = result
    return ExtendTiles(dmodel, dpe, dv, block_m, block_n, warps)
