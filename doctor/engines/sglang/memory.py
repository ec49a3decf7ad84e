"""SGLang's memory arithmetic per version: the defaults `ServerArgs` derives from the GPU's size and the
KV-pool sizing of `ModelRunner.profile_max_num_token`.

Read from the released wheels (0.5.8 and 0.5.9 `python/sglang/srt/server_args.py`
`_handle_gpu_memory_settings` and `adjust_mem_fraction_for_vlm`; `model_executor/model_runner_kv_cache_mixin.py`
`profile_max_num_token`, `init_memory_pool`): every "GB" SGLang logs there is GiB (`/ (1 << 30)`), and
`gpu_mem` is `nvidia-smi --query-gpu=memory.total` in MiB (the minimum over the visible GPUs).
Nothing here imports SGLang or torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from doctor.facts import Model
from doctor.plan.arch import Piece
from doctor.plan.memory import LayoutShape, MemoryModel

GiB = 1 << 30
MiB = 1 << 20

# Memory in use before weights load, per GPU. Not a knob of SGLang but of the runtime, so it is an
# estimate: SGLang's own log on 8x H200 (sgl-project/sglang PR #11716) shows 1.10 GiB taken before
# `init_torch_distributed` (CUDA context, torch, cuBLAS handles) and ~2.0 GiB by NCCL/all-reduce setup
# ("Init torch distributed ends. mem usage=2.01 GB") for a TP8 world.
CUDA_CONTEXT_BYTES = int(1.10 * GiB)
DISTRIBUTED_INIT_BYTES = int(2.0 * GiB)

# ReqToTokenPool: int32 [max_num_reqs, context_len + 4], allocated after the KV budget is profiled
# but before the KV pool, so it is not part of the budget: it comes out of the reserved share.
REQ_TO_TOKEN_EXTRA = 4
# The one release where the default tiers move (small GPUs: 4096 chunk, 48/160 graph batch).
TIER_CHANGE = Version("0.5.14")


@dataclass(frozen=True)
class MemoryDefaults:
    """SGLang's memory defaults for one release and GPU."""

    version: str
    gpu_mem_mib: float
    chunked_prefill_size: int
    cuda_graph_max_bs: int
    reserved_mib: float
    mem_fraction_static: float
    vlm_factor: float = 1.0
    page_size: int = 1

    def to_dict(self) -> dict[str, object]:
        return {"version": self.version, "gpu_mem_mib": self.gpu_mem_mib,
                "chunked_prefill_size": self.chunked_prefill_size, "cuda_graph_max_bs": self.cuda_graph_max_bs,
                "reserved_mib": self.reserved_mib, "mem_fraction_static": round(self.mem_fraction_static, 4),
                "vlm_factor": round(self.vlm_factor, 4), "page_size": self.page_size}


def tiers(version: Version, gpu_mem_mib: float, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) for this GPU size, as `_handle_gpu_memory_settings`."""
    big_tp = tp >= 4
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        if version >= TIER_CHANGE:  # server_args.py `_handle_gpu_memory_settings`: 4096 and 48/160 from 0.5.14
            return 4096, 160 if big_tp else 48
        return 2048, 80 if big_tp else 24
    if gpu_mem_mib < 60 * 1024:
        return 4096, 160 if big_tp else 32
    if gpu_mem_mib < 160 * 1024:
        return 8192, 512 if big_tp else 256
    return 16384, 512


def vlm_factor(vision_layers: int, vision_hidden: int) -> float:
    """`adjust_mem_fraction_for_vlm`: 0.95 times a factor from the ViT's size against ViT-L/14."""
    ratio = vision_layers * vision_hidden**2 / (24 * 1024**2)
    dynamic = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return 0.95 * dynamic


def memory_defaults(version: str, gpu_mem_mib: float, *, tp: int, pp: int, dp_attention_size: int = 1,
                    speculative: bool = False, vision: tuple[int, int] | None = None,
                    chunked_prefill_size: int | None = None, cuda_graph_max_bs: int | None = None,
                    mem_fraction_static: float | None = None, page_size: int | None = None) -> MemoryDefaults:
    """What SGLang `version` sets when the user leaves these flags unset; user values win."""
    v = Version(version)
    chunk_default, bs_default = tiers(v, gpu_mem_mib, tp)
    chunk = chunked_prefill_size if chunked_prefill_size is not None else chunk_default
    bs = cuda_graph_max_bs if cuda_graph_max_bs is not None else bs_default
    reserved = 512 + max(chunk if chunk > 0 else 16384, 2048) * 1.5 + bs * 2 + tp * pp / 8 * 1024
    if dp_attention_size > 1:
        reserved += bs * dp_attention_size * 3
        if bs > 300:
            reserved += bs * dp_attention_size * 1.5
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    if speculative:
        reserved += 2 * 1024
    factor = vlm_factor(*vision) if vision else 1.0
    if mem_fraction_static is None:
        fraction = round((gpu_mem_mib - reserved) / gpu_mem_mib, 3) * factor
    else:
        fraction, factor = mem_fraction_static, 1.0
    return MemoryDefaults(version=version, gpu_mem_mib=gpu_mem_mib, chunked_prefill_size=chunk,
                          cuda_graph_max_bs=bs, reserved_mib=reserved, mem_fraction_static=fraction,
                          vlm_factor=factor, page_size=page_size or 1)


def preload_free_bytes(total_bytes: int, world_size: int, unified_memory: bool = False) -> int:
    """Free memory when SGLang measures it (after distributed init, before weights): the budget base."""
    overhead = CUDA_CONTEXT_BYTES + (DISTRIBUTED_INIT_BYTES if world_size > 1 else 0)
    return max(0, total_bytes - overhead)


def kv_budget_bytes(preload_free: int, weights: int, mem_fraction_static: float) -> int:
    """`profile_max_num_token`: rest = available_after_weights - pre_load_free * (1 - mem_fraction_static)."""
    available_after_weights = preload_free - weights
    return int(available_after_weights - preload_free * (1 - mem_fraction_static))


def max_running_requests(max_total_tokens: int, context_len: int) -> int:
    """`init_memory_pool` default when --max-running-requests is unset."""
    return min(max(int(max_total_tokens / context_len * 512), 2048), 4096)


def req_to_token_bytes(max_total_tokens: int, context_len: int) -> int:
    return max_running_requests(max_total_tokens, context_len) * (context_len + REQ_TO_TOKEN_EXTRA) * 4


def load_extra_pieces(model: Model) -> list[Piece]:
    """What SGLang allocates at load beyond the checkpoint: MLA's absorbed w_kc/w_vc, a bf16 copy of each
    layer's kv_b_proj (`post_load_weights`; fp8 kv_b_proj is dequantized to bf16 for it)."""
    a = model.attention
    if a.kind != "mla":
        return []
    nope = a.qk_nope_head_dim or 128
    per_layer = a.num_heads * (nope + a.v_head_dim) * (a.kv_lora_rank or 512) * 2
    return [Piece("engine", per_layer, "tp", layer) for layer in range(model.num_layers)]


class SGLangMemory(MemoryModel):
    """SGLang's formula behind the planner's interface; the user's memory flags (None: SGLang's default)."""

    engine = "SGLang"

    def __init__(self, version: str, mem_fraction_static: float | None = None,
                 chunked_prefill_size: int | None = None, cuda_graph_max_bs: int | None = None,
                 page_size: int | None = None) -> None:
        self.version = version
        self.knobs = {"mem_fraction_static": mem_fraction_static, "chunked_prefill_size": chunked_prefill_size,
                      "cuda_graph_max_bs": cuda_graph_max_bs, "page_size": page_size}

    def cache_key(self) -> tuple[Any, ...]:
        return ("sglang", self.version, tuple(sorted(self.knobs.items())))

    def arithmetic_key(self) -> tuple[Any, ...]:
        """Only the 0.5.14 tier change moves SGLang's memory arithmetic between releases (`tiers`)."""
        return ("sglang", Version(self.version) >= TIER_CHANGE, tuple(sorted(self.knobs.items())))

    def load_extras(self, model: Model) -> list[Piece]:
        return load_extra_pieces(model)

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        from doctor.plan.weights import vision_of

        return memory_defaults(self.version, total_bytes / MiB, tp=layout.tp, pp=layout.pp, speculative=speculative,
                               vision=vision_of(model), **self.knobs).to_dict()

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        return preload_free_bytes(total_bytes, world_size, unified_memory)

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        return kv_budget_bytes(preload_free, weights, settings["mem_fraction_static"])

    def max_requests(self, tokens: int, context: int) -> int:
        return max_running_requests(tokens, context)

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        fraction = settings["mem_fraction_static"]
        return (f"weights {weights / GiB:.2f} GiB on the fullest GPU of {total / GiB:.2f} GiB; SGLang "
                f"{self.version} keeps {fraction:.3f} of the {preload_free / GiB:.2f} GiB free at load "
                f"= {preload_free * fraction / GiB:.2f} GiB for weights + KV")

    def shortfall_hint(self) -> str:
        return "SGLang: 'Not enough memory. Please try to increase --mem-fraction-static'"

    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        flags = ["--tp-size", str(layout.tp)]
        if layout.pp > 1:
            flags += ["--pp-size", str(layout.pp)]
        if layout.ep > 1:
            flags += ["--ep-size", str(layout.ep)]
        flags += ["--mem-fraction-static", f"{settings['mem_fraction_static']:.3f}"]
        if explicit_kv or kv_dtype.startswith("fp8"):
            flags += ["--kv-cache-dtype", kv_dtype]
        if context_length:
            flags += ["--context-length", str(context_length)]
        if custom_all_reduce_off:
            flags.append("--disable-custom-all-reduce")
        return tuple(flags)
