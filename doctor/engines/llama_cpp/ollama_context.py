"""What context Ollama gives a model on these GPUs, and whether llama-server can hold it (the `llama_cpp.ollama`
view rules OLL080-OLL089 read): only for a llama.cpp build an Ollama release runs (0.30.0 on, llama-server)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from doctor.engines.llama_cpp.bundles import ollama_context
from doctor.engines.llama_cpp.options import LlamaOptions
from doctor.engines.llama_cpp.plan import evaluate
from doctor.engines.spi import EngineRun
from doctor.probe.gguf import GgufModel

# Contexts to offer in a fix, largest first: Ollama's own tiers and the powers of two between them.
CANDIDATES = (262144, 131072, 65536, 32768, 16384, 8192, 4096, 2048)


def ollama_release(run: EngineRun) -> str | None:
    implied = str(run.library.details.get("implied_by", ""))
    return implied.removeprefix("ollama==") if implied.startswith("ollama==") else None


def ollama_view(run: EngineRun, gguf: GgufModel | None, options: LlamaOptions,
                flash_attention: bool) -> dict[str, Any] | None:
    """The context Ollama picks (its source and tier), and with a GGUF whether weights + KV + compute fit the GPUs
    whole at it and the largest context that does; None for a build no Ollama release runs."""
    release = ollama_release(run)
    totals = [g.memory_total_bytes for g in run.facts.gpus if g.memory_total_bytes]
    if release is None or not totals:
        return None
    model = run.facts.model
    context = ollama_context(release, run.facts.env, totals, model.max_position_embeddings if model else None)
    view = {"release": release, **context.view(), "fits": None, "largest_fitting": None}
    if gguf is None:
        return {**view, "fit_text": fit_text(view)}
    host = run.facts.host.memory_bytes

    def fits(per_slot: int) -> bool:
        sized = replace(options, ctx_size=per_slot * context.parallel)
        return bool(evaluate(gguf, sized, totals, flash_attention, host)["fits"])

    view["fits"] = fits(context.effective)
    view["largest_fitting"] = next((c for c in CANDIDATES if c <= context.effective and fits(c)), None)
    view["fit_text"] = fit_text(view)
    return view


def fit_text(view: dict[str, Any]) -> str:
    """One sentence for a fix: the largest context (of Ollama's tiers and the powers of two between) at which the
    model's weights, KV cache and compute buffer fit the GPUs whole, or what to do without a model."""
    largest, parallel = view.get("largest_fitting"), view.get("parallel") or 1
    slots = f" per slot with OLLAMA_NUM_PARALLEL={parallel}" if parallel > 1 else ""
    if view.get("fits") is None:
        return ("Without the GGUF the doctor cannot size it: check the model's KV cache with "
                "`sm120-doctor check MODEL.gguf --engine ollama==X` and keep `ollama ps` at 100% GPU.")
    if largest is None:
        return "Even a 2048-token context does not fit this model whole on these GPUs: use a smaller quantization."
    return (f"OLLAMA_CONTEXT_LENGTH={largest} is the largest of 2048 x 2^k that fits this model whole on these GPUs"
            f"{slots} (the doctor's estimate, 1 GiB margin per GPU).")
