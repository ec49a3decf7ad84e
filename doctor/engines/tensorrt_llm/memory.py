"""TensorRT-LLM's memory arithmetic for the planner (PyTorch backend, `KvCacheCreator` in
tensorrt_llm/_torch/pyexecutor/_util.py; bench/RESULTS-memory-trtllm.md checks it against public logs).

After the weights load, a warm-up over `max_num_tokens` dummy context tokens measures:
- torch's peak (the weights plus the activations),
- what is in use outside torch (total - cudaMemGetInfo's free - torch's current): the CUDA context, NCCL, CUDA
  graphs, the small KV pool of the estimation run, and on unified memory (GB10) everything the host holds of the
  pool: its own use, other processes and the page cache of the checkpoint it just read.
The KV cache then gets `(total - peak + estimation pool) x free_gpu_memory_fraction` (`_cal_max_tokens`), i.e. the
fraction of what is free AFTER the profiling run, not of the total. The default fraction is 0.9 in every release
the doctor knows. `kv_cache_config.max_tokens`, when set, caps the tokens ("the smaller value will be used").

KV per token charges every attention layer the full K and V (`_get_cache_size_per_token`:
`get_num_attention_layers()` x kv_heads/TP x head_dim x 2): gpt-oss's sliding-window layers are not split off
(the 1.1.0rc3 log prints `kv size is 73728` for gpt-oss-120b: 36 layers x 8 x 64 x 2 x 2 bytes).

MXFP4 experts on the CUTLASS MoE backend (the SM12x path) are allocated padded: `MXFP4WeightCutlassFusedMoEMethod`
(`weight_alignment = 128`) rounds hidden and the per-rank intermediate up to 128, so gpt-oss's 2880 x 2880 experts
load as 2944 x 2944 (tensorrt_llm/_torch/modules/fused_moe/quantization.py): 63.32 GiB for gpt-oss-120b where the
checkpoint holds 60.77 GiB."""

from __future__ import annotations

from typing import Any

from doctor.engines.spi import ExpertSplit, LayoutShape, MemoryModel, Model
from doctor.engines.tensorrt_llm import knowledge as kb
from doctor.plan.kv import KvShape
from doctor.plan.weights import RankWeights

GiB = 1 << 30
RUNTIME_RESERVE = 2 * GiB  # an assumption, not a measurement: CUDA context + NCCL + CUDA graphs
# The weights' largest measured error: Qwen3-235B-A22B-FP8 at TP8 predicted 27.65 GiB against the 28.85 GiB the
# 1.0.0rc log's free-memory difference shows (-4.16 %, bench/RESULTS-memory-trtllm.md); a shortfall inside it is
# not certain.
WEIGHTS_ERROR = 0.042
DEFAULT_MAX_BATCH_SIZE = 2048  # BuildConfig.max_batch_size, trtllm-serve's default
DEFAULT_MAX_NUM_TOKENS = 8192  # BuildConfig.max_num_tokens, trtllm-serve's default
TOKENS_PER_BLOCK = 32  # KvCacheConfig.tokens_per_block default
CUTLASS_MXFP4_ALIGNMENT = 128  # MXFP4WeightCutlassFusedMoEMethod.weight_alignment


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def loads_expert_split(split: ExpertSplit) -> bool:
    """MXFP4 experts: the fused-MoE MXFP4 methods allocate round_up(intermediate_size_per_partition,
    weight_alignment) (tensorrt_llm/_torch/modules/fused_moe/quantization.py,
    https://github.com/NVIDIA/TensorRT-LLM/blob/a98a9061d72f6fd39f5d055ebdd2c6878a100e2c/tensorrt_llm/_torch/modules/fused_moe/quantization.py)."""
    return split.scheme == "mxfp4"


def cutlass_mxfp4_scale(model: Model, tp: int) -> float:
    """Experts' bytes as the CUTLASS MXFP4 method allocates them over the checkpoint's: hidden and the per-rank
    intermediate rounded up to 128 (weights, block scales and biases alike)."""
    assert model.moe is not None
    inter = model.moe.intermediate_size // max(tp, 1)
    hidden = model.hidden_size
    return (round_up(inter, CUTLASS_MXFP4_ALIGNMENT) / inter) * \
        (round_up(hidden, CUTLASS_MXFP4_ALIGNMENT) / hidden)


def estimation_tokens(max_num_tokens: int, max_seq_len: int, tokens_per_block: int,
                      overlap_scheduler: bool = True) -> int:
    """KV tokens the profiling run holds (`KvCacheCreator._get_token_num_for_estimation`): dummy context requests of
    min(max_num_tokens, max_seq_len) tokens filling max_num_tokens, each with one generated token more (two with the
    overlap scheduler), rounded up to whole blocks per request. It is used outside torch during profiling and
    `_cal_max_tokens` adds it back to what is free."""
    length = min(max_num_tokens, max_seq_len)
    requests, rest = divmod(max_num_tokens, length)
    extra = 2 if overlap_scheduler else 1
    blocks = requests * -(-(length + extra) // tokens_per_block)
    if rest:
        blocks += -(-(rest + extra) // tokens_per_block)
    return blocks * tokens_per_block


def profiling_activation(model: Model, tokens: int, tp: int) -> int:
    """Torch's peak above the weights in the estimation run over `tokens` context tokens on a rank: the residual
    stream and norms, QKV and the attention output, or the fused-MoE workspaces (bf16), whichever is larger."""
    a = model.attention
    hidden = tokens * model.hidden_size * 2 * 4
    heads, kv_heads = max(a.num_heads // tp, 1), max(a.num_kv_heads // tp, 1)
    attention = tokens * (heads * a.head_dim * 2 + kv_heads * (a.head_dim + a.v_head_dim)) * 2
    if model.moe is not None:
        n, k = model.moe.intermediate_size // max(tp, 1), model.moe.top_k
        mlp = tokens * k * (max(2 * n, model.hidden_size) + n) * 2 + tokens * k * model.hidden_size * 2
    else:
        mlp = tokens * 3 * (model.intermediate_size or 4 * model.hidden_size) // max(tp, 1) * 2
    return hidden + max(attention, mlp)


class TensorRTLLMMemory(MemoryModel):
    engine = "TensorRT-LLM"

    def __init__(self, version: str, free_gpu_memory_fraction: float | None, max_batch_size: int | None,
                 tokens_per_block: int | None = None, max_num_tokens: int | None = None,
                 max_tokens: int | None = None, outside_torch_bytes: int | None = None,
                 host_use_bytes: int | None = None) -> None:
        """`outside_torch_bytes`: what a log or probe measured outside torch at profiling (replaces the assumed
        RUNTIME_RESERVE and host use); `host_use_bytes`: on unified memory, what the host holds of the pool
        (pool - MemAvailable), added to RUNTIME_RESERVE."""
        self.version = version
        self.fraction = free_gpu_memory_fraction or kb.FREE_GPU_MEMORY_FRACTION
        self.max_batch_size = max_batch_size or DEFAULT_MAX_BATCH_SIZE
        self.tokens_per_block = tokens_per_block or TOKENS_PER_BLOCK
        self.max_num_tokens = max_num_tokens or DEFAULT_MAX_NUM_TOKENS
        self.max_tokens = max_tokens
        self.outside_torch = outside_torch_bytes
        self.host_use = host_use_bytes or 0

    def cache_key(self) -> tuple[Any, ...] | None:
        return (self.engine, self.version, self.fraction, self.max_batch_size, self.tokens_per_block,
                self.max_num_tokens, self.max_tokens, self.outside_torch, self.host_use)

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        return {"free_gpu_memory_fraction": self.fraction, "page_size": self.tokens_per_block,
                "runtime_reserve_bytes": RUNTIME_RESERVE, "max_batch_size": self.max_batch_size,
                "max_num_tokens": self.max_num_tokens, "max_tokens": self.max_tokens,
                "activation_bytes": profiling_activation(model, self.max_num_tokens, layout.tp),
                "outside_torch_bytes": self.outside_torch, "host_use_bytes": self.host_use}

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        """What torch may fill on this GPU: the total less what is in use outside torch at profiling."""
        if self.outside_torch is not None:
            return max(0, total_bytes - self.outside_torch)
        return max(0, total_bytes - RUNTIME_RESERVE - (self.host_use if unified_memory else 0))

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        after_profiling = preload_free - weights - settings["activation_bytes"]
        if after_profiling <= 0:
            return after_profiling
        return int(after_profiling * settings["free_gpu_memory_fraction"])

    def kv_tokens(self, budget: int, shape: KvShape, settings: dict[str, Any]) -> int:
        """`int(available // kv_size_per_token)` over every attention layer (no sliding-window split), capped by
        kv_cache_config.max_tokens; the manager then allocates whole blocks."""
        if budget <= 0 or shape.cell_bytes <= 0:
            return 0
        tokens = budget // shape.cell_bytes
        if settings.get("max_tokens"):
            tokens = min(tokens, settings["max_tokens"])
        return round_up(tokens, settings["page_size"])

    def weights_bytes(self, rank: RankWeights, model: Model, layout: LayoutShape) -> int:
        experts = rank.by_kind.get("routed_experts", 0)
        if not experts or model.moe is None or model.quantization.for_experts().scheme != "mxfp4":
            return rank.bytes
        return rank.bytes - experts + int(experts * cutlass_mxfp4_scale(model, layout.tp))

    def max_requests(self, tokens: int, context: int) -> int:
        return self.max_batch_size

    def borderline_bytes(self, weights: int, default: int) -> int:
        return max(default, int(weights * WEIGHTS_ERROR))

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        after = preload_free - weights - settings["activation_bytes"]
        outside = (f"{settings['outside_torch_bytes'] / GiB:.2f} GiB measured outside torch"
                   if settings["outside_torch_bytes"] is not None else
                   f"assuming {RUNTIME_RESERVE / GiB:.0f} GiB of runtime use"
                   + (f" and {settings['host_use_bytes'] / GiB:.2f} GiB held by the host" if settings["host_use_bytes"]
                      else ""))
        return (f"weights {weights / GiB:.2f} GiB on the fullest GPU of {total / GiB:.2f} GiB; TensorRT-LLM "
                f"{self.version} gives {settings['free_gpu_memory_fraction']:.2f} of the {after / GiB:.2f} GiB free "
                f"after its profiling run to the KV cache ({outside})")

    def loads_expert_split(self, split: ExpertSplit) -> bool:
        return loads_expert_split(split)

    def own_reasons(self, reasons: list[str]) -> list[str]:
        """Drop the planner's note on custom all-reduce: trtllm-serve has no such switch."""
        return [r for r in reasons if not r.startswith("custom all-reduce")]

    def shortfall_hint(self) -> str:
        return "TensorRT-LLM: the weights leave no free memory for the KV cache; use more GPUs (tp_size/pp_size)"

    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        flags = ["--tp_size", str(layout.tp)]
        if layout.pp > 1:
            flags += ["--pp_size", str(layout.pp)]
        if layout.ep > 1:
            flags += ["--ep_size", str(layout.ep)]
        flags += ["--kv_cache_free_gpu_memory_fraction", f"{settings['free_gpu_memory_fraction']:.2f}"]
        if context_length:
            flags += ["--max_seq_len", str(context_length)]
        return tuple(flags)
