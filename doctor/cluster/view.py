"""The `cluster` root of the rule context: nodes, what differs between them, the network, the multi-node plan
and the nodes that could not be checked. Rules in rules/cluster.toml read it; a single-node check has none."""

from __future__ import annotations

from typing import Any

from doctor.cluster.nodes import Cluster
from doctor.cluster.skew import skew

FAILED_KINDS = ("died", "timeout", "error")


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
    }
