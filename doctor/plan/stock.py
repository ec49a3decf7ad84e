"""Stock memory models: the two formulas serving engines use to size their KV cache, as ready MemoryModels
an engine configures instead of writing the planner's seven questions itself.

- FreeFractionMemory: after the weights load, the KV cache takes a fraction of the memory still free
  (LMDeploy's `--cache-max-entry-count`, TensorRT-LLM's `free_gpu_memory_fraction`).
- UtilisationMemory: the engine may use a fraction of the GPU's total memory; the KV cache gets what the
  weights and the runtime leave of it (vLLM's `--gpu-memory-utilization`, SGLang's `--mem-fraction-static`).

Both assume `runtime_reserve` bytes per GPU for what the engine holds besides weights and KV (CUDA context,
NCCL, activations, graphs) and say so in every plan. Override a method for what differs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doctor.pipeline.facts import Model
from doctor.plan.memory import LayoutShape, MemoryModel

GiB = 1 << 30


@dataclass(frozen=True)
class LayoutFlags:
    """How the engine's CLI spells a layout. A parallelism without a flag is one the engine cannot launch:
    the planner never offers it (no `pp` flag: no pipeline layouts)."""

    tp: str | None = "--tp"
    pp: str | None = None
    ep: str | None = None
    fraction: str | None = None
    context: str | None = None
    kv_dtype: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # plan dtype → flags that select it


class StockMemory(MemoryModel):
    """What both stock formulas share; subclasses say how the fraction turns into a KV budget."""

    formula = ""

    def __init__(self, engine: str, version: str, *, fraction: float, knob: str, flags: LayoutFlags,
                 page_size: int = 1, runtime_reserve: int = 2 * GiB, max_batch_size: int | None = None,
                 kv_param_bytes: Mapping[str, int] | None = None) -> None:
        self.engine = engine
        self.version = version
        self.fraction = fraction
        self.knob = knob
        self.flags = flags
        self.page_size = page_size
        self.runtime_reserve = runtime_reserve
        self.max_batch_size = max_batch_size
        self.kv_param_bytes = dict(kv_param_bytes or {})

    def cache_key(self) -> tuple[Any, ...] | None:
        return (type(self).__qualname__, self.engine, self.version, *self.arithmetic_key()[1:])  # type: ignore[index]

    def arithmetic_key(self) -> tuple[Any, ...] | None:
        return (type(self).__qualname__, self.fraction, self.knob, self.flags.pp, self.flags.ep, self.page_size,
                self.runtime_reserve, self.max_batch_size, tuple(sorted(self.kv_param_bytes.items())))

    def layout_problems(self, tp: int, ep: int, pp: int = 1) -> list[str]:
        problems = []
        if pp > 1 and self.flags.pp is None:
            problems.append(f"{self.engine} has no pipeline parallelism (no PP flag): PP {pp} cannot be launched")
        if ep > 1 and self.flags.ep is None:
            problems.append(f"{self.engine} has no expert-parallel size flag: EP {ep} cannot be launched")
        if tp > 1 and self.flags.tp is None:
            problems.append(f"{self.engine} has no tensor-parallel flag: TP {tp} cannot be launched")
        return problems

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        return {self.knob: self.fraction, "page_size": self.page_size, "total_bytes": total_bytes,
                "runtime_reserve_bytes": self.runtime_reserve, "max_batch_size": self.max_batch_size}

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        return max(0, total_bytes - self.runtime_reserve)

    def max_requests(self, tokens: int, context: int) -> int:
        return self.max_batch_size if self.max_batch_size else 1 << 31

    def kv_cell_bytes(self, model: Model, attn_tp: int, layers: int, dtype: str) -> int | None:
        """The planner's cell plus the engine's per-token quantisation parameters (scales, zeros) for K and V
        of each head, where `kv_param_bytes` names the dtype."""
        extra = self.kv_param_bytes.get(dtype)
        if not extra or model.attention.kind == "mla":
            return None
        from doctor.plan.kv import cell_bytes

        heads = max(1, model.attention.num_kv_heads // attn_tp)
        return cell_bytes(model, attn_tp, layers, dtype) + heads * 2 * extra * layers

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        return (f"weights {weights / GiB:.2f} GiB on the fullest GPU of {total / GiB:.2f} GiB; {self.label} "
                f"{self.formula.format(fraction=settings[self.knob], knob=self.knob)} (assuming "
                f"{self.runtime_reserve / GiB:.1f} GiB of runtime use per GPU)")

    def shortfall_hint(self) -> str:
        return f"{self.engine}: the weights leave no memory for the KV cache; use more GPUs or raise {self.knob}"

    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        flags: list[str] = []
        for flag, size in ((self.flags.tp, layout.tp), (self.flags.pp, layout.pp), (self.flags.ep, layout.ep)):
            if flag and (size > 1 or flag == self.flags.tp):
                flags += [flag, str(size)]
        if self.flags.fraction:
            flags += [self.flags.fraction, f"{settings[self.knob]:g}"]
        if explicit_kv and kv_dtype in self.flags.kv_dtype:
            flags += list(self.flags.kv_dtype[kv_dtype])
        if context_length and self.flags.context:
            flags += [self.flags.context, str(context_length)]
        return tuple(flags)


class FreeFractionMemory(StockMemory):
    """KV cache = fraction x (memory free after the weights load)."""

    formula = "gives {fraction:g} of the memory free after load to the KV cache ({knob})"

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        after_load = preload_free - weights
        return int(after_load * settings[self.knob]) if after_load > 0 else after_load


class UtilisationMemory(StockMemory):
    """KV cache = fraction x total memory - weights - runtime use."""

    formula = "may use {fraction:g} of the GPU's memory ({knob}); the KV cache gets what weights and runtime leave"

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        allowed = int(settings["total_bytes"] * settings[self.knob])
        return allowed - weights - settings["runtime_reserve_bytes"]
