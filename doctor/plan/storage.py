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
- AWQ/GPTQ b bits, group g: packed weight, fp16 scales [in/g, out], packed zeros [in/g, out*b/32]; GPTQ also
  an int32 `g_idx` [in] (AutoRound's own format and AWQ have none);
- bitsandbytes 4-bit: uint8 [numel/2], fp32 absmax per 64 (double-quantized: uint8 absmax plus fp32 per 256
  blocks and the 256-entry code book), 16-entry quant map; 8-bit: int8 plus fp32 SCB per row;
- HQQ b bits, group g: packed uint8 (3-bit: ten per int32) plus fp16 scale and zero per group;
- ModelOpt W4A8_AWQ: packed int4 plus bf16 scales per 128 and a bf16 pre_quant_scale per input channel.
"""

from __future__ import annotations

from doctor.pipeline.facts import Quantization

DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "bf16": 2, "fp16": 2, "fp32": 4}


def dense_bytes(numel: int, dtype: str) -> int:
    return numel * DTYPE_BYTES.get(dtype, 2)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


HQQ_BITS = {8: 1.0, 4: 0.5, 3: 0.4, 2: 0.25, 1: 0.125}  # HQQ packs 3-bit values ten to an int32
BNB_BLOCK = 64  # bitsandbytes 4-bit blocksize (transformers' default)
BNB_NESTED_BLOCK = 256  # double quantization: one fp32 absmax per 256 absmax bytes


def linear_bytes(out: int, inp: int, q: Quantization | None, dtype: str) -> int:
    """Bytes of one [out, in] weight; `q` None means stored in the model dtype."""
    numel = out * inp
    if q is None:
        return dense_bytes(numel, dtype)
    scheme = q.scheme
    packed = _packed_bytes(scheme, numel, out, inp, q)
    if packed is not None:
        return packed
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
    if scheme in ("awq", "gptq", "auto-round"):
        bits, group = q.bits or 4, q.group_size or 128
        groups = _ceil(inp, group)
        g_idx = inp * 4 if scheme == "gptq" else 0  # GPTQ stores the int32 act-order map; AWQ and AutoRound don't
        return numel * bits // 8 + groups * out * 2 + groups * out * bits // 8 + g_idx
    return dense_bytes(numel, dtype)


def _packed_bytes(scheme: str, numel: int, out: int, inp: int, q: Quantization) -> int | None:
    """The schemes added for mixed and library formats; None for the others."""
    group = q.group_size
    if scheme.startswith(("int2-", "int3-")) or (scheme.startswith("int") and scheme.endswith("-asym")):
        bits = q.bits or int(scheme[3])
        groups = _ceil(inp, group or 128)
        zeros = out * groups * bits // 8 if scheme.endswith("-asym") else 0
        return numel * bits // 8 + out * groups * 2 + zeros + 8
    if scheme == "mxfp8":
        return numel + out * _ceil(inp, 32)
    if scheme == "w4a8-awq":  # ModelOpt: packed int4, bf16 scale per 128, pre_quant_scale per input channel
        return numel // 2 + out * _ceil(inp, group or 128) * 2 + inp * 2 + 8
    if scheme in ("bnb-4bit", "bnb-4bit-dq"):
        blocks = _ceil(numel, BNB_BLOCK)
        if scheme == "bnb-4bit":
            return numel // 2 + blocks * 4 + 16 * 4
        return numel // 2 + blocks + _ceil(blocks, BNB_NESTED_BLOCK) * 4 + (16 + 256) * 4 + 4
    if scheme == "bnb-8bit":
        return numel + out * 4
    if scheme == "hqq":
        return int(numel * HQQ_BITS.get(q.bits or 4, 0.5)) + _ceil(numel, group or 64) * 4  # fp16 scale + zero
    return None


KNOWN_SCHEMES = {"bf16", "fp16", "fp32", "int4-w4a16", "nvfp4", "mxfp4", "mxfp8", "fp8-block", "fp8-channel",
                 "int8-w8a8", "int8-w8a16", "fp8-tensor", "awq", "gptq", "auto-round", "w4a8-awq", "bnb-4bit",
                 "bnb-4bit-dq", "bnb-8bit", "hqq", "int2-w2a16", "int3-w3a16", "int2-w2a16-asym",
                 "int3-w3a16-asym", "int4-w4a16-asym", "int8-w8a16-asym"}


def known_scheme(q: Quantization) -> bool:
    """Can the weights be sized from the config: every scheme in the checkpoint has a storage layout here."""
    return q.scheme in KNOWN_SCHEMES and all(m.scheme in KNOWN_SCHEMES or m.scheme == "none" for m in q.modules)
