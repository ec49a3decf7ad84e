"""Bytes a checkpoint stores for one linear weight [out, in] under a quantization scheme, scales included.

Layouts as the checkpoints store them (per-tensor tables of downloaded checkpoints, model_inspector.py
reports at https://github.com/gogongxt/python/tree/ec9962697819add8f24ce1b180cf98ca6a53c40f/scripts/models):
- compressed-tensors int4 pack-quantized, group g: `weight_packed` int32 [out, in/8], `weight_scale`
  bf16 [out, in/g], `weight_shape` int32 [2] (symmetric: no zero points);
- ModelOpt NVFP4: `weight` uint8 [out, in/2], `weight_scale` fp8 [out, in/16], `weight_scale_2` and
  `input_scale` fp32 scalars;
- FP8 block [bn, bk]: fp8 [out, in] plus fp32 `weight_scale_inv` [ceil(out/bn), ceil(in/bk)];
- FP8 per channel: fp8 plus fp32 [out, 1]; per tensor: fp8 plus one fp32;
- MXFP4: uint8 blocks [out, in/2] plus uint8 E8M0 scales [out, in/32];
- AWQ/GPTQ b bits, group g: packed weight, fp16 scales [in/g, out], packed zeros [in/g, out*b/32].
"""

from __future__ import annotations

from doctor.pipeline.facts import Quantization

DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "bf16": 2, "fp16": 2, "fp32": 4}


def dense_bytes(numel: int, dtype: str) -> int:
    return numel * DTYPE_BYTES.get(dtype, 2)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def linear_bytes(out: int, inp: int, q: Quantization | None, dtype: str) -> int:
    """Bytes of one [out, in] weight; `q` None means stored in the model dtype."""
    numel = out * inp
    if q is None:
        return dense_bytes(numel, dtype)
    scheme = q.scheme
    if scheme == "int4-w4a16":
        group = q.group_size or 128
        return numel // 2 + out * _ceil(inp, group) * 2 + 8
    if scheme == "nvfp4":
        return numel // 2 + out * _ceil(inp, q.group_size or 16) + 8
    if scheme == "mxfp4":
        return numel // 2 + out * _ceil(inp, 32)
    if scheme == "fp8-block":
        bn, bk = (q.block_shape or (128, 128))[:2]
        return numel + _ceil(out, bn) * _ceil(inp, bk) * 4
    if scheme in ("fp8-channel", "int8-w8a8", "int8-w8a16"):
        return numel + out * 4
    if scheme == "fp8-tensor":
        return numel + 8
    if scheme in ("awq", "gptq"):
        bits, group = q.bits or 4, q.group_size or 128
        groups = _ceil(inp, group)
        return numel * bits // 8 + groups * out * 2 + groups * out * bits // 8
    return dense_bytes(numel, dtype)


def known_scheme(q: Quantization) -> bool:
    return q.scheme in {"bf16", "fp16", "fp32", "int4-w4a16", "nvfp4", "mxfp4", "fp8-block", "fp8-channel",
                        "int8-w8a8", "int8-w8a16", "fp8-tensor", "awq", "gptq"}
