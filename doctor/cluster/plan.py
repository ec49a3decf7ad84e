"""The multi-node plan of a cluster by one engine's memory formula, in the shape the rules read under `plan.*`
(doctor/plan/summary.py) plus the ranked layouts and the traffic between nodes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doctor.cluster.layouts import InterNode, make_multinode_plans
from doctor.cluster.nodes import Cluster
from doctor.errors import DoctorError
from doctor.launch import Launch
from doctor.plan.memory import MemoryModel
from doctor.plan.planner import Plan, PlanRequest
from doctor.plan.summary import _small, source_for
from doctor.plan.weights import UNKNOWN_QUANT

SHOWN = 12


def _sizes(launch: Launch) -> dict[str, int | None]:
    def num(key: str) -> int | None:
        value = launch.get(key)
        return value if isinstance(value, int) and value > 0 else None

    return {"tp": num("tp"), "pp": num("pp"), "ep": num("ep")}


def layout_requested(launch: Launch) -> bool:
    return any(_sizes(launch).values())


def small(plan: Plan) -> dict[str, Any]:
    return {**_small(plan), "inter_node": plan.comm.get("inter_node", {})}


def cluster_plan(cluster: Cluster, memory: MemoryModel, launch: Launch, net: InterNode,
                 environ: Mapping[str, str], offline: bool,
                 note: str | None = None) -> tuple[dict[str, Any] | None, tuple[Plan, ...]]:
    """Requested layout (the launch flags', else the best), best layout, the first layouts ranked; planning
    errors become a note, as on one node. Also every layout ranked, in full (what `plan` writes)."""
    node = cluster.nodes[0]
    if node.model is None:
        return None, ()
    notes = [note] if note else []
    context = launch.get("context_length")
    request = PlanRequest(memory=memory, **_sizes(launch), kv_cache_dtype=launch.get("kv_cache_dtype"),  # type: ignore[arg-type]
                          context_length=context if isinstance(context, int) else None)
    try:
        plans = make_multinode_plans(cluster.nodes, node.model, request, net, source_for(node, environ, offline))
    except DoctorError as exc:
        return {"error": str(exc), "requested": None, "best": None, "notes": notes}, ()
    best = next((p for p in plans if p.fits), None)
    if not layout_requested(launch):
        notes.append("no layout in the launch flags: the best layout is judged and launched")
    notes.extend(plans[0].memory.get("notes", []))
    summary = {"engine": memory.engine, "engine_version": memory.version, "requested": small(plans[0]),
               "best": small(best) if best else None, "any_fits": best is not None,
               "weights_source": plans[0].memory.get("weights_source"),
               "sizing_known": plans[0].memory.get("weights_source") != UNKNOWN_QUANT, "notes": notes,
               "layouts": [small(p) for p in plans[:SHOWN]], "layout_count": len(plans),
               "network": net.described}
    return summary, tuple(plans)
