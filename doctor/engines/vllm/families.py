"""vLLM's compiled extensions mapped to the kernel families they serve, with a verdict per family for the
GPU: native SASS, PTX JIT, or nothing (doctor.binaries.verdict_for on the architectures read from the wheel's
fatbins, or from the installed files when the probe read them)."""

from __future__ import annotations

from typing import Any

from doctor.binaries import BinaryInfo, verdict_for

FAMILIES = {
    "vllm/_C.abi3.so": "dense and quantized GEMM (cutlass_scaled_mm, FP8/NVFP4/Marlin), KV-cache ops, "
                       "custom all-reduce",
    "vllm/_C_stable_libtorch.abi3.so": "dense and quantized GEMM, KV-cache ops, custom all-reduce (from 0.23)",
    "vllm/_moe_C.abi3.so": "MoE routing and Marlin MoE (topk_softmax, moe_align, moe_wna16)",
    "vllm/_moe_C_stable_libtorch.abi3.so": "MoE routing and Marlin MoE (from 0.24)",
    "vllm/_qutlass_C.abi3.so": "QuTLASS MXFP4/NVFP4 activation quantization (SM100)",
    "vllm/_flashkda_C.abi3.so": "FlashKDA linear attention",
    "vllm/_deepselect_C.abi3.so": "DeepSeek sparse-attention top-k select (SM100)",
    "vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so": "FLASH_ATTN on SM8x-SM12x (FlashAttention 2)",
    "vllm/vllm_flash_attn/_vllm_fa3_C.abi3.so": "FLASH_ATTN on Hopper (FlashAttention 3)",
    "vllm/_flashmla_C.abi3.so": "FLASHMLA (Hopper and SM100)",
    "vllm/_flashmla_extension_C.abi3.so": "FLASHMLA sparse (Hopper and SM100)",
}


def family_verdicts(binaries: dict[str, dict[str, Any]], capability: tuple[int, int]) -> list[dict[str, Any]]:
    out = []
    for path, archs in sorted(binaries.items()):
        info = BinaryInfo(path=path, sass=list(archs.get("sass", [])), ptx=list(archs.get("ptx", [])),
                          size=int(archs.get("bytes") or archs.get("size") or 0), format="elf")
        verdict = verdict_for(info, capability)
        out.append({"file": path, "family": FAMILIES.get(path, "other kernels"), "verdict": verdict.verdict,
                    "deliberate": verdict.deliberate, "reason": verdict.reason, "sass": info.sass, "ptx": info.ptx})
    return out


def installed_binaries(library_details: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The probe's per-file archs of an installed vLLM, keyed like the wheel data (None when not probed)."""
    files = library_details.get("cuda_binaries")
    if not files:
        return None
    out = {}
    for entry in files:
        path = str(entry["path"])
        key = path[path.index("vllm/"):] if "vllm/" in path else path
        out[key] = {"sass": entry.get("sass", []), "ptx": entry.get("ptx", []), "bytes": entry.get("size", 0)}
    return out
