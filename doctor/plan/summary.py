"""The plan as `check` sees it: the requested layout (launch flags, else TP over all GPUs) plus the best
plan, as a small dict for the analysis, the rule context (`plan.*`) and the reports."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from doctor.errors import DoctorError
from doctor.launch import Launch
from doctor.pipeline.facts import Facts
from doctor.plan.memory import MemoryModel
from doctor.plan.planner import Plan, PlanRequest, make_plans
from doctor.plan.safetensors import checkpoint_pieces, index_total_size
from doctor.plan.weights import UNKNOWN_QUANT, WeightSource, weight_source

KEEP = ("tp", "pp", "ep", "gpus", "valid", "fits", "context_fits", "borderline", "weights_per_gpu_bytes",
        "kv_bytes_per_token", "kv_capacity_tokens", "kv_budget_bytes", "max_concurrent_requests", "context_length",
        "kv_cache_dtype", "gpu_memory_bytes", "flags", "reasons", "short_of_gpus_only", "kernel_shapes",
        "kernel_shape_only", "kernel_shape_tps", "kernel_shape_risks")


def request_from_launch(launch: Launch, memory: MemoryModel, gpu_count: int) -> PlanRequest:
    def num(key: str) -> Any:
        value = launch.get(key)
        return value if isinstance(value, int | float) and value > 0 else None

    pp = num("pp") or 1
    return PlanRequest(memory=memory, tp=num("tp") or max(1, gpu_count // pp), pp=pp, ep=num("ep") or 1,
                       kv_cache_dtype=launch.get("kv_cache_dtype"),  # type: ignore[arg-type]
                       context_length=num("context_length"))


def source_for(facts: Facts, environ: Mapping[str, str], offline: bool) -> WeightSource:
    assert facts.model is not None
    pieces, kind = checkpoint_pieces(facts.model, environ, offline)
    source_path = facts.model.source_path
    measured = index_total_size(Path(source_path)) if pieces is None and source_path else None
    return weight_source(facts.model, pieces, kind, measured)


def plan_summary(facts: Facts, launch: Launch, memory: MemoryModel, note: str | None = None,
                 environ: Mapping[str, str] | None = None, offline: bool = True,
                 numbers_only: bool = False) -> dict[str, Any] | None:
    """None when there is nothing to plan (no model or no GPU); planning errors become a note.
    `numbers_only`: the caller reads verdicts, not sentences (a what-if run that only asks which rules
    fire), so a plan of another engine version with the same memory arithmetic may stand in."""
    if facts.model is None or not facts.gpus:
        return None
    own = memory.own_summary(facts, launch)
    if own is not None:
        return own
    request = request_from_launch(launch, memory, len(facts.gpus))
    basis = (facts.model, facts.gpus, facts.topology)  # all a plan reads of the facts
    layout = (request.tp, request.pp, request.ep, request.kv_cache_dtype, request.context_length, note, offline)
    exact, loose = memory.cache_key(), memory.arithmetic_key()
    keys = [] if environ else [k for k in (("exact", exact), ("arithmetic", loose)) if k[1] is not None]
    for kind, key in keys:
        if kind == "arithmetic" and not numbers_only:
            continue
        hit = _SUMMARIES.get((kind, tuple(map(id, basis)), key, layout))
        if hit is not None and all(a is b for a, b in zip(hit[0], basis, strict=True)):
            return hit[1]
    summary = _summary(facts, request, memory, note, environ, offline)
    if len(_SUMMARIES) > 64:
        _SUMMARIES.clear()
    for kind, key in keys:
        _SUMMARIES[(kind, tuple(map(id, basis)), key, layout)] = (basis, summary)
    return summary


# A run is planned more than once: check's launch recheck re-analyses it with the composed flags, and the
# lowest-clearing-release search re-analyses it per candidate release. Summaries are memoised per facts
# basis (held, so ids stay unique), engine memory settings and requested layout.
_SUMMARIES: dict[tuple[Any, ...], tuple[tuple[Any, ...], dict[str, Any]]] = {}


def _summary(facts: Facts, request: PlanRequest, memory: MemoryModel, note: str | None,
             environ: Mapping[str, str] | None, offline: bool) -> dict[str, Any]:
    assert facts.model is not None
    try:
        plans = make_plans(facts, facts.model, request, source_for(facts, environ or {}, offline))
    except DoctorError as exc:
        return {"error": str(exc), "requested": None, "best": None, "notes": [note] if note else []}
    best = next((p for p in plans if p.fits), None)
    notes = [note] if note else []
    notes.extend(plans[0].memory.get("notes", []))
    return {"engine": memory.engine, "engine_version": memory.version,
            "requested": _small(plans[0]), "best": _small(best) if best else None,
            "any_fits": best is not None, "weights_source": plans[0].memory.get("weights_source"),
            "sizing_known": plans[0].memory.get("weights_source") != UNKNOWN_QUANT, "notes": notes}


def _small(plan: Plan) -> dict[str, Any]:
    data = plan.to_dict()
    small = {key: data[key] for key in KEEP}
    gib = 1 << 30
    small.update(weights_per_gpu_gib=round(plan.weights_per_gpu_bytes / gib, 2),
                 kv_budget_gib=round(plan.kv_budget_bytes / gib, 2),
                 gpu_memory_gib=round(plan.gpu_memory_bytes / gib, 2),
                 verdict="; ".join(plan.reasons[:3]))
    if plan.memory.get("state_cache"):  # hybrid models: the engine's recurrent-state blocks (MemoryModel.state_cache)
        small["state_cache"] = plan.memory["state_cache"]
    return small
