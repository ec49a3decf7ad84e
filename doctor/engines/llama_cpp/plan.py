"""llama.cpp's memory plan: does the requested placement fit each GPU, and if not, the least CPU offload
(`--n-cpu-moe` for MoE models, `-ngl` for dense ones) that does. In plan_summary's shape, so `check`, the
JSON report and the rules read it like any engine's plan; every figure says what it is.

The headroom kept free on each GPU is llama.cpp's own `--fit` target margin (1 GiB per device,
common/common.h `fit_params_target`), which covers the CUDA context the doctor does not model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from doctor.engines.llama_cpp.memory import CPU, Usage, usage
from doctor.engines.llama_cpp.options import ALL, AUTO, LlamaOptions
from doctor.engines.spi import Facts, Launch, LayoutShape, MemoryModel, Model
from doctor.probe.gguf import GgufModel

GiB = 1 << 30
MiB = 1 << 20
MARGIN = 1 * GiB
BORDERLINE = 1 * GiB
# A -hf GGUF that is not on disk is sized from an estimated tensor table: stock llama-quantize mixes within 0.2 %,
# Unsloth's dynamic mixes within 10 % of the published files (bench/RESULTS-gguf-estimate.md)
ESTIMATE_ERROR = 0.10


def evaluate(gguf: GgufModel, options: LlamaOptions, totals: list[int], flash_attention: bool,
             host_memory: int | None = None) -> dict[str, Any]:
    use = usage(gguf, options, [t - MARGIN for t in totals], flash_attention)
    gpus = use.gpus()
    left = [totals[i] - MARGIN - d.total for i, d in enumerate(gpus)]
    fullest = min(range(len(gpus)), key=lambda i: left[i]) if gpus else 0
    fits = bool(gpus) and all(x >= 0 for x in left)
    # an estimated table within its own error of the boundary, on either side: the real file decides
    uncertain = (bool(gguf.metadata.get("general.estimate")) and bool(gpus)
                 and abs(min(left)) <= ESTIMATE_ERROR * gpus[fullest].weights)
    reasons = [_device_line(d, totals[i]) for i, d in enumerate(gpus) if d.total or d.layers]
    cpu = use.devices[CPU]
    if cpu.weights or cpu.kv or cpu.recurrent:
        reasons.append(f"CPU: weights {cpu.weights / GiB:.2f} GiB, KV {(cpu.kv + cpu.recurrent) / GiB:.2f} GiB (host "
                       f"RAM; experts or layers there run at CPU speed)")
    if host_memory and cpu.weights + cpu.kv + cpu.recurrent > host_memory:
        reasons.append(f"host RAM {host_memory / GiB:.1f} GiB is smaller than what stays on the CPU")
    if not fits:
        worst = gpus[fullest].name if gpus else "GPU"
        reasons.append(f"does not fit: {worst} is {-min(left, default=0) / GiB:.2f} GiB short "
                       f"(llama.cpp: 'cudaMalloc failed: out of memory')")
    if uncertain:
        side = "shortfall" if not fits else "headroom"
        reasons.append(f"the {side} is within the {ESTIMATE_ERROR:.0%} error of the estimated GGUF's weights "
                       f"({ESTIMATE_ERROR * gpus[fullest].weights / GiB:.2f} GiB here): the real file decides")
    return {
        "tp": 1, "pp": max(1, sum(1 for d in gpus if d.layers)), "ep": 1, "gpus": len(totals), "valid": True,
        "fits": fits, "context_fits": fits, "borderline": fits and min(left, default=0) < BORDERLINE,
        "estimate_uncertain": uncertain,
        "weights_per_gpu_bytes": max((d.weights for d in gpus), default=0),
        "kv_bytes_per_token": use.kv_bytes_per_token, "kv_capacity_tokens": use.kv_cells,
        "kv_budget_bytes": left[fullest] if gpus else 0, "max_concurrent_requests": options.slots,
        "context_length": use.n_ctx, "kv_cache_dtype": f"k {options.cache_type_k} / v {options.cache_type_v}",
        "gpu_memory_bytes": min(totals, default=0), "flags": plan_flags(gguf, options, use),
        "reasons": reasons, "gpu_layers": use.gpu_layers, "layout": _layout(gguf, options, use, len(gpus)),
        "n_cpu_moe": options.n_cpu_moe,
        "devices": [_device_dict(d) for d in use.devices.values()],
        "weights_per_gpu_gib": round(max((d.weights for d in gpus), default=0) / GiB, 2),
        "gpu_memory_gib": round(min(totals, default=0) / GiB, 2), "kv_budget_gib": round(left[fullest] / GiB, 2)
        if gpus else 0.0, "verdict": "; ".join(reasons[-2:]),
    }


def _layout(gguf: GgufModel, options: LlamaOptions, use: Usage, n_gpus: int) -> str:
    text = f"{use.gpu_layers}/{gguf.block_count} layers on {n_gpus} GPU(s)"
    if options.cpu_moe:
        return text + ", all experts on CPU"
    return text + (f", experts of {options.n_cpu_moe} layer(s) on CPU" if options.n_cpu_moe else "")


def _device_line(d: Any, total: int) -> str:
    recurrent = f" + recurrent state {d.recurrent / MiB:.0f} MiB" if d.recurrent else ""
    return (f"{d.name}: weights {d.weights / GiB:.2f} GiB + KV {d.kv / GiB:.2f} GiB{recurrent} + compute "
            f"~{d.compute / MiB:.0f} MiB (estimate) + {MARGIN / GiB:.0f} GiB margin of {total / GiB:.2f} GiB; "
            f"{len(d.layers)} layer(s)")


def _device_dict(d: Any) -> dict[str, Any]:
    return {"device": d.name, "weights_bytes": d.weights, "kv_bytes": d.kv, "recurrent_bytes": d.recurrent,
            "compute_bytes_estimate": d.compute,
            "layers": len(d.layers)}


def plan_flags(gguf: GgufModel, options: LlamaOptions, use: Usage) -> list[str]:
    ngl = "all" if use.gpu_layers >= gguf.block_count and options.n_gpu_layers in (AUTO, ALL) else str(
        options.n_gpu_layers if options.n_gpu_layers >= 0 else use.gpu_layers)
    flags = ["-ngl", ngl, "-c", str(use.n_ctx)]
    if options.n_cpu_moe:
        flags += ["--n-cpu-moe", str(options.n_cpu_moe)]
    if options.cache_type_k != "f16" or options.cache_type_v != "f16":
        flags += ["-ctk", options.cache_type_k, "-ctv", options.cache_type_v]
    return flags


def best_offload(gguf: GgufModel, options: LlamaOptions, totals: list[int], flash_attention: bool,
                 host_memory: int | None) -> dict[str, Any] | None:
    """The least CPU offload that fits: experts of the first N layers for MoE, else fewer GPU layers."""
    n_layer = gguf.block_count
    if int(gguf.arch_value("expert_count", 0) or 0) > 1:
        candidates = [replace(options, n_cpu_moe=n, overrides=_cpu_moe(n)) for n in range(1, n_layer + 1)]
    else:
        candidates = [replace(options, n_gpu_layers=n) for n in range(n_layer, -1, -1)]
    for candidate in candidates:
        plan = evaluate(gguf, candidate, totals, flash_attention, host_memory)
        if plan["fits"]:
            return plan
    return None


def _cpu_moe(n: int) -> tuple[tuple[str, str], ...]:
    from doctor.engines.llama_cpp.options import FFN_EXPS_REGEX

    return tuple((rf"blk\.{i}{FFN_EXPS_REGEX}", "CPU") for i in range(n))


class LlamaCppMemory(MemoryModel):
    """llama.cpp's memory for the planner: its own placement (own_summary); the layout methods answer the
    `plan` command's TP x PP questions with a row split (TP) or a layer split (PP) of the same bytes."""

    engine = "llama.cpp"

    def __init__(self, version: str, gguf: GgufModel | None, options: LlamaOptions, flash_attention: bool) -> None:
        self.version, self.gguf, self.options, self.flash_attention = version, gguf, options, flash_attention

    def own_summary(self, facts: Facts, launch: Launch) -> dict[str, Any] | None:
        if self.gguf is None:
            return {"engine": self.engine, "engine_version": self.version, "requested": None, "best": None,
                    "notes": ["llama.cpp serves GGUF files: no memory plan for a non-GGUF model "
                              "(convert it with llama.cpp's convert_hf_to_gguf.py, then check the .gguf)"]}
        totals = [g.memory_total_bytes or 0 for g in facts.gpus]
        host = facts.host.memory_bytes
        requested = evaluate(self.gguf, self.options, totals, self.flash_attention, host)
        best = requested if requested["fits"] else best_offload(self.gguf, self.options, totals,
                                                                 self.flash_attention, host)
        notes = [f"weights from the GGUF tensor table: {self.gguf.tensor_bytes:,} bytes in {len(self.gguf.tensors)} "
                 f"tensors ({', '.join(f'{k} x{v}' for k, v in list(self.gguf.type_counts.items())[:6])})",
                 "compute buffers are estimates (llama.cpp sizes them from a reserved worst-case graph)"]
        if estimate := self.gguf.metadata.get("general.estimate"):
            notes.insert(0, f"the GGUF is {estimate}: its weights are an estimate (a few percent either way)")
        if self.options.n_gpu_layers == AUTO and self.options.fit and not requested["fits"]:
            notes.append("-ngl is auto and --fit is on: llama.cpp itself moves layers to the CPU (and shortens an "
                         "unset context down to 4096) until it fits, 1 GiB margin per GPU")
        return {"engine": self.engine, "engine_version": self.version, "requested": requested, "best": best,
                "any_fits": best is not None, "weights_source": "gguf", "notes": notes}

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        return {"page_size": 1, "margin_bytes": MARGIN, "slots": self.options.slots}

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        return total_bytes - MARGIN

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        return preload_free - weights

    def max_requests(self, tokens: int, context: int) -> int:
        return self.options.slots

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        return (f"weights {weights / GiB:.2f} GiB on the fullest GPU of {total / GiB:.2f} GiB; llama.cpp keeps "
                f"{MARGIN / GiB:.0f} GiB free (--fit margin), the rest holds the KV cache and compute buffers")

    def shortfall_hint(self) -> str:
        return "llama.cpp: offload experts (--n-cpu-moe N) or layers (-ngl N) to the CPU"

    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        flags = ["-ngl", "all"]
        if layout.tp > 1:
            flags += ["-sm", "row", "-ts", ",".join(["1"] * layout.tp)]
        elif layout.pp > 1:
            flags += ["-sm", "layer", "-ts", ",".join(["1"] * layout.pp)]
        if context_length:
            flags += ["-c", str(context_length)]
        return tuple(flags)
