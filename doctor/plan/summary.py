"""The plan as `check` sees it: the requested layout (launch flags, else TP over all GPUs) plus the best
plan, as a small dict for the analysis, the rule context (`plan.*`) and the reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doctor.engines import version_of
from doctor.errors import DoctorError
from doctor.facts import Facts
from doctor.launch import Launch
from doctor.plan.planner import DEFAULT_SGLANG, Plan, PlanRequest, make_plans
from doctor.plan.safetensors import checkpoint_pieces
from doctor.plan.weights import WeightSource, weight_source

KEEP = ("tp", "pp", "ep", "gpus", "valid", "fits", "context_fits", "borderline", "weights_per_gpu_bytes",
        "kv_bytes_per_token", "kv_capacity_tokens", "kv_budget_bytes", "max_concurrent_requests", "context_length",
        "kv_cache_dtype", "gpu_memory_bytes", "flags", "reasons")


def engine_version(facts: Facts) -> tuple[str, str | None]:
    """(version, note): SGLang's installed or what-if version, else the default this doctor assumes."""
    library = facts.library("sglang")
    if library is not None and version_of(library) is not None:
        return library.version, None
    return DEFAULT_SGLANG, f"SGLang not installed: memory defaults of SGLang {DEFAULT_SGLANG} assumed"


def request_from_launch(launch: Launch, version: str, gpu_count: int) -> PlanRequest:
    def num(key: str) -> Any:
        value = launch.get(key)
        return value if isinstance(value, int | float) and value > 0 else None

    pp = num("pp") or 1
    return PlanRequest(engine_version=version, tp=num("tp") or max(1, gpu_count // pp), pp=pp, ep=num("ep") or 1,
                       kv_cache_dtype=launch.get("kv_cache_dtype"),  # type: ignore[arg-type]
                       mem_fraction_static=num("mem_fraction_static"), context_length=num("context_length"),
                       page_size=num("page_size"), chunked_prefill_size=launch.get("chunked_prefill_size"),  # type: ignore[arg-type]
                       cuda_graph_max_bs=num("cuda_graph_max_bs"))


def source_for(facts: Facts, environ: Mapping[str, str], offline: bool) -> WeightSource:
    assert facts.model is not None
    pieces, kind = checkpoint_pieces(facts.model, environ, offline)
    return weight_source(facts.model, pieces, kind)


def plan_summary(facts: Facts, launch: Launch, environ: Mapping[str, str] | None = None,
                 offline: bool = True) -> dict[str, Any] | None:
    """None when there is nothing to plan (no model or no GPU); planning errors become a note."""
    if facts.model is None or not facts.gpus:
        return None
    version, note = engine_version(facts)
    try:
        request = request_from_launch(launch, version, len(facts.gpus))
        plans = make_plans(facts, facts.model, request, source_for(facts, environ or {}, offline))
    except DoctorError as exc:
        return {"error": str(exc), "requested": None, "best": None, "notes": [note] if note else []}
    best = next((p for p in plans if p.fits), None)
    notes = [note] if note else []
    notes.extend(plans[0].memory.get("notes", []))
    return {"engine_version": version, "requested": _small(plans[0]), "best": _small(best) if best else None,
            "any_fits": best is not None, "weights_source": plans[0].memory.get("weights_source"), "notes": notes}


def _small(plan: Plan) -> dict[str, Any]:
    data = plan.to_dict()
    small = {key: data[key] for key in KEEP}
    gib = 1 << 30
    small.update(weights_per_gpu_gib=round(plan.weights_per_gpu_bytes / gib, 2),
                 kv_budget_gib=round(plan.kv_budget_bytes / gib, 2),
                 gpu_memory_gib=round(plan.gpu_memory_bytes / gib, 2),
                 verdict="; ".join(plan.reasons[:3]))
    return small
