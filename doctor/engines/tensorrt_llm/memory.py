"""TensorRT-LLM's memory arithmetic for the planner: after the weights load and a warm-up pass, the KV cache
takes `kv_cache_config.free_gpu_memory_fraction` of the memory still free (not of the total); the default is
0.9 in every release the doctor knows (trtllm-serve's `--free_gpu_memory_fraction` and `KvCacheConfig`).

What is still free after load is the GPU's memory less the weights and less the runtime's own use (CUDA
context, NCCL, the warm-up's activation peak, CUDA graphs). The doctor does not measure that here: it assumes
RUNTIME_RESERVE per GPU and says so in every plan."""

from __future__ import annotations

from typing import Any

from doctor.engines.spi import ExpertSplit
from doctor.engines.tensorrt_llm import knowledge as kb
from doctor.pipeline.facts import Model
from doctor.plan.memory import LayoutShape, MemoryModel

GiB = 1 << 30
RUNTIME_RESERVE = 2 * GiB  # an assumption, not a measurement: context + NCCL + warm-up activations
DEFAULT_MAX_BATCH_SIZE = 2048  # BuildConfig.max_batch_size, trtllm-serve's default
TOKENS_PER_BLOCK = 32  # KvCacheConfig.tokens_per_block default


def loads_expert_split(split: ExpertSplit) -> bool:
    """MXFP4 experts: the fused-MoE MXFP4 methods allocate round_up(intermediate_size_per_partition,
    weight_alignment) (tensorrt_llm/_torch/modules/fused_moe/quantization.py,
    https://github.com/NVIDIA/TensorRT-LLM/blob/a98a9061d72f6fd39f5d055ebdd2c6878a100e2c/tensorrt_llm/_torch/modules/fused_moe/quantization.py)."""
    return split.scheme == "mxfp4"


class TensorRTLLMMemory(MemoryModel):
    engine = "TensorRT-LLM"

    def __init__(self, version: str, free_gpu_memory_fraction: float | None, max_batch_size: int | None,
                 tokens_per_block: int | None = None) -> None:
        self.version = version
        self.fraction = free_gpu_memory_fraction or kb.FREE_GPU_MEMORY_FRACTION
        self.max_batch_size = max_batch_size or DEFAULT_MAX_BATCH_SIZE
        self.tokens_per_block = tokens_per_block or TOKENS_PER_BLOCK

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        return {"free_gpu_memory_fraction": self.fraction, "page_size": self.tokens_per_block,
                "runtime_reserve_bytes": RUNTIME_RESERVE, "max_batch_size": self.max_batch_size}

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        return max(0, total_bytes - RUNTIME_RESERVE)

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        after_load = preload_free - weights
        return int(after_load * settings["free_gpu_memory_fraction"]) if after_load > 0 else after_load

    def max_requests(self, tokens: int, context: int) -> int:
        return self.max_batch_size

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        after = preload_free - weights
        return (f"weights {weights / GiB:.2f} GiB on the fullest GPU of {total / GiB:.2f} GiB; TensorRT-LLM "
                f"{self.version} gives {settings['free_gpu_memory_fraction']:.2f} of the {after / GiB:.2f} GiB free "
                f"after load to the KV cache (assuming {RUNTIME_RESERVE / GiB:.0f} GiB of runtime use per GPU)")

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
