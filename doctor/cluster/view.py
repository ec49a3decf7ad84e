"""The `cluster` root of the rule context: nodes, what differs between them, the network, the multi-node plan
and the nodes that could not be checked. Rules in rules/cluster.toml read it; a single-node check has none."""

from __future__ import annotations

from typing import Any

from doctor.cluster.nodes import Cluster
from doctor.cluster.skew import skew

FAILED_KINDS = ("died", "timeout", "error")
GIB = 1 << 30


def cluster_view(cluster: Cluster, network: dict[str, Any], plan: dict[str, Any] | None) -> dict[str, Any]:
    differences = skew(cluster)
    problems = [p.to_dict() for p in cluster.problems]
    requested = (plan or {}).get("requested") or {}
    return {
        "origin": cluster.origin,
        "node_count": len(cluster.nodes),
        "names": list(cluster.names),
        "nodes": [{"name": f.node, "gpus": len(f.gpus), "gpu_models": sorted({g.name for g in f.gpus}),
                   "address": f.network.address if f.network else None} for f in cluster.nodes],
        "gpus_per_node": cluster.gpus_per_node,
        "skew": differences,
        "version_skew": [d for d in differences if d["kind"] == "version"],
        "gpu_model_skew": [d for d in differences if d["kind"] == "gpu-model"],
        "gpu_count_skew": [d for d in differences if d["kind"] == "gpu-count"],
        "network": network,
        "plan": plan,
        "multi_node": (requested.get("inter_node") or {}).get("nodes", 1) > 1,
        "problems": problems,
        "failed": [p for p in problems if p["kind"] in FAILED_KINDS],
        "gpu_less": [p for p in problems if p["kind"] == "no-gpu"],
        "unified_memory": unified_memory(cluster),
    }


def launch_world(tp: int, pp: object, gpus_per_node: int) -> dict[str, Any]:
    """The launch's own world (TP x PP, as the engine counts it) against one node's GPUs: whether the launch needs
    more than the node it starts on, known without a model (the plan's `multi_node` needs one)."""
    world = tp * (pp if isinstance(pp, int) and pp > 0 else 1)
    return {"launch_world": world, "launch_exceeds_node": gpus_per_node > 0 and world > gpus_per_node}


UNBALANCED = 0.9  # an engine's TP memory balance check refuses below 0.9 x the best rank (UMA011)


def unified_memory(cluster: Cluster) -> dict[str, Any] | None:
    """GB10 nodes: what each has available (MemAvailable at probe time) and those under 0.9 x the best one; None
    unless every node is unified memory with a probed MemAvailable."""
    available = {str(f.node): f.host.memory_available_bytes for f in cluster.nodes}
    if not all(f.gpus and f.gpus[0].unified_memory for f in cluster.nodes) or None in available.values():
        return None
    best = max(v for v in available.values() if v is not None)
    return {"available_gib": {n: round(v / GIB, 2) for n, v in available.items() if v is not None},
            "short_nodes": [n for n, v in available.items() if v is not None and v < UNBALANCED * best]}
