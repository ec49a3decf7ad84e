"""How SGLang picks its attention backend and the Triton extend-attention tiles, per version.

Read from the released wheels (sglang/srt/layers/attention/triton_ops/extend_attention.py, server_args.py):
`_get_block_sizes_for_extend_attention`
and `ServerArgs._handle_attention_backend_compatibility`. Until 0.5.9 capability 12.x fell into the
`major >= 9` (Hopper) branch; PR #14311 added a `== 12` branch.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from doctor.engines.spi import Model, release
from doctor.kernels.tiles import next_power_of_2

V0_5_9, V0_5_11, V0_5_13 = Version("0.5.9"), Version("0.5.11"), Version("0.5.13")


@dataclass(frozen=True)
class ExtendPath:
    """One way the model reaches the extend kernel: q/k head dim Lq, v head dim Lv."""

    name: str
    lq: int
    lv: int
    kv_group: int
    when: str


@dataclass(frozen=True)
class ExtendTiles:
    """Tile sizes and pipelining of SGLang's extend-attention kernel."""

    block_dmodel: int
    block_dpe: int
    block_dv: int
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int = 1


# 0.5.6.post1 and 0.5.6.post2 pick trtllm_mha for MHA models when `is_blackwell()` (majors 10 and 12; PR #14291);
# 0.5.7 narrows it to `is_sm100_supported()` (PR #14842). Read from the 0.5.6, 0.5.6.post1, 0.5.6.post2 and 0.5.7
# wheels: sglang/srt/server_args.py `_handle_attention_backend_compatibility`, sglang/srt/utils/common.py.
TRTLLM_MHA_ON_SM12X = (Version("0.5.6.post1"), Version("0.5.7"))  # [first, end)
# architectures whose model-specific branch picks the backend first in those releases (Llama4: triton off SM100/SM90;
# Olmo2: fa3 on sm >= 80)
OWN_DEFAULT_ARCHS = ("Llama4", "Olmo2ForCausalLM")


def default_attention_backend(version: Version, model: Model, capability: tuple[int, int],
                              flashinfer_available: bool = True, no_spec_or_topk_one: bool = True) -> str:
    """`no_spec_or_topk_one`: SGLang's `is_no_spec_infer_or_topk_one` (no --speculative-eagle-topk, or 1 with a
    page size of 1), which the trtllm_mha defaults require."""
    major = capability[0]
    if model.attention.kind == "mla":
        return {9: "fa3", 10: "flashinfer"}.get(major, "triton")
    if model.family == "gpt_oss":
        return {9: "fa3", 10: "trtllm_mha"}.get(major, "triton")
    if major == 9:
        return "fa3"
    first, end = TRTLLM_MHA_ON_SM12X
    if major == 10 or (major == 12 and first <= version < end and no_spec_or_topk_one
                       and not any(a in model.architecture for a in OWN_DEFAULT_ARCHS)):
        return "trtllm_mha"
    if model.attention.sinks and release(version) >= Version("0.5.23"):
        return "triton"
    return "flashinfer" if flashinfer_available else "triton"


def attention_kernel_revision(version: Version) -> int:
    """Source revision of the Triton attention kernels (doctor.kernels.attention_smem.LATEST_REVISION):
    0.5.10 rewrote the grouped decode kernel (q cast to the KV dtype, MLA reads V as K^T) and extend's
    v_scale handling (sgl-project/sglang python/sglang/srt/layers/attention/triton_ops at v0.5.10)."""
    return 1 if release(version) < Version("0.5.10") else 2


def extend_paths(model: Model, tp: int) -> list[ExtendPath]:
    att = model.attention
    local_heads = max(1, att.num_heads // max(tp, 1))
    if att.kind == "mla":
        latent = (att.kv_lora_rank or 0) + (att.qk_rope_head_dim or 0)
        return [
            ExtendPath("mla-fresh-prefill", att.head_dim, att.v_head_dim, 1,
                       "first prefill chunk with no cached prefix (MHA form)"),
            ExtendPath("mla-absorbed", latent, att.kv_lora_rank or 0, local_heads,
                       "prefix-cache hit, later chunks of a chunked prefill, piecewise CUDA graph, speculative"),
        ]
    local_kv = max(1, att.num_kv_heads // max(tp, 1))
    return [ExtendPath("prefill", att.head_dim, att.v_head_dim, max(1, local_heads // local_kv),
                       "every prefill (extend) batch")]


def extend_tiles(version: Version, capability: tuple[int, int], lq: int, lv: int) -> ExtendTiles:
    dmodel, dpe = _split_head_dim(lq)
    block_m, block_n = _extend_blocks(release(version), capability, lq)
    return ExtendTiles(dmodel, dpe, next_power_of_2(lv), block_m, block_n, 4 if lq <= 64 else 8)


def _split_head_dim(lq: int) -> tuple[int, int]:
    return {576: (512, 64), 288: (256, 32), 192: (128, 64)}.get(lq, (next_power_of_2(lq), 0))


def _extend_blocks(version: Version, capability: tuple[int, int], lq: int) -> tuple[int, int]:
    major, minor = capability
    small, medium = lq <= 128, lq <= 256
    if major == 12 and version >= V0_5_9:
        return (64, 128) if small else (64, 64) if medium else (32, 32)
    if major == 10 and version >= V0_5_11:
        return (64, 64) if medium else (16, 64)
    if major >= 9:
        if version >= V0_5_13:
            return (128, 64) if small else (64, 64) if medium else (32, 64)
        return (128, 64) if medium else (32, 64)
    if major == 8 and minor in (6, 9):
        return (64, 128) if small else (64, 64) if medium else (32, 32)
    if major == 8:
        return (128, 128) if small else (64, 64) if medium else (32, 64)
    return (64, 64) if small else (32, 32)
