"""When no layout fits: the arithmetic and what would (more GPUs of the same kind, fewer routed experts)."""

from __future__ import annotations

import dataclasses
from typing import Any

from doctor.pipeline.facts import Facts, Model
from doctor.plan.planner import GiB, Plan, PlanRequest, make_plans
from doctor.plan.weights import WeightSource

MAX_GPUS = 16


def _with_gpus(facts: Facts, count: int) -> Facts:
    """The same GPU `count` times; links unknown (treated as SYS), so the verdict is about memory."""
    base = facts.gpus[0]
    gpus = tuple(dataclasses.replace(base, index=i, cuda_index=i) for i in range(count))
    return facts.replace(gpus=gpus, topology=())


def no_fit_advice(facts: Facts, model: Model, req: PlanRequest, source: WeightSource, best: Plan) -> dict[str, Any]:
    loaded = sum(p.nbytes for p in source.pieces if p.kind != "mtp" or req.speculative)
    total_memory = sum(g.memory_total_bytes or 0 for g in facts.gpus)
    advice: dict[str, Any] = {
        "loaded_weight_bytes": loaded, "total_gpu_memory_bytes": total_memory,
        "closest_layout": {"tp": best.tp, "pp": best.pp, "ep": best.ep,
                           "weights_per_gpu_bytes": best.weights_per_gpu_bytes,
                           "kv_budget_bytes": best.kv_budget_bytes},
    }
    free_req = dataclasses.replace(req, tp=None, pp=None, ep=None)
    for count in range(len(facts.gpus) + 1, MAX_GPUS + 1):
        plans = [p for p in make_plans(_with_gpus(facts, count), model, free_req, source) if p.fits]
        if plans:
            top = max(plans, key=lambda p: p.kv_capacity_tokens)
            advice["min_gpus"] = {"gpus": count, "tp": top.tp, "pp": top.pp,
                                  "weights_per_gpu_bytes": top.weights_per_gpu_bytes,
                                  "kv_capacity_tokens": top.kv_capacity_tokens}
            break
    advice["max_routed_experts"] = _max_experts(model, best)
    lines = [f"weights to load {loaded / GiB:.1f} GiB vs {len(facts.gpus)} x "
             f"{facts.gpus[0].memory_total_bytes / GiB if facts.gpus[0].memory_total_bytes else 0:.1f} GiB = "
             f"{total_memory / GiB:.1f} GiB of GPU memory in all",
             f"closest layout TP{best.tp} PP{best.pp}: {best.weights_per_gpu_bytes / GiB:.1f} GiB on the fullest GPU, "
             f"{-best.kv_budget_bytes / GiB:.1f} GiB short before any KV cache"]
    if "min_gpus" in advice:
        m = advice["min_gpus"]
        lines.append(f"fits on {m['gpus']} such GPUs (TP{m['tp']} PP{m['pp']}: {m['weights_per_gpu_bytes'] / GiB:.1f} "
                     f"GiB/GPU, {m['kv_capacity_tokens']:,} KV tokens)")
    else:
        lines.append(f"no layout of up to {MAX_GPUS} such GPUs fits")
    if advice["max_routed_experts"] is not None:
        experts = model.moe.routed_experts if model.moe else 0
        lines.append(f"expert pruning: at most {advice['max_routed_experts']} of {experts} routed experts fit the "
                     f"weights on TP{best.tp} PP{best.pp}, with nothing left for a KV cache")
    advice["lines"] = lines
    return advice


def _max_experts(model: Model, best: Plan) -> int | None:
    """Routed experts that would fit on the fullest stage of `best` with the KV budget at zero."""
    if model.moe is None or not best.stages:
        return None
    stage = max(best.stages, key=lambda s: s["weights_bytes"])
    experts = stage["by_kind"].get("routed_experts", 0)
    if experts <= 0:
        return None
    per_expert = experts / model.moe.routed_experts
    room = experts + stage["kv_budget_bytes"]  # the budget is negative when it does not fit
    return max(0, int(room // per_expert))
