"""Each node's launch commands, per engine analysed: the engine's composed command of the head node (the user's
flags and the safe fixes) turned into the multi-node layout by the engine's `node_launches`."""

from __future__ import annotations

from typing import Any

from doctor.cluster.node_commands import MultiNode, NodeRole
from doctor.cluster.nodes import Cluster
from doctor.engines import registry
from doctor.engines.run import LaunchCommand
from doctor.launch import Launch
from doctor.pipeline.report import Report

COMMAND_FIELDS = ("engine", "version", "argv", "env", "notes", "applied", "files")


def node_launch_sets(cluster: Cluster, head: Report, plans: dict[str | None, dict[str, Any] | None],
                     planned: dict[str, Any] | None) -> list[dict[str, Any]]:
    composed = {command["engine"]: command for command in head.launches}
    out = []
    for analysis in head.analyses:
        run = analysis.run
        if run is None or analysis.engine not in composed:
            continue
        engine = registry.get_for(run.library)
        layout, notes = choose_layout(cluster, plans.get(analysis.engine), planned, run.launch)
        base = LaunchCommand(**{k: composed[analysis.engine][k] for k in COMMAND_FIELDS})
        per_node = engine.node_launches(run, base, layout)
        if per_node is None:
            notes.append(f"the doctor does not know how {engine.display_name} launches over several nodes")
        out.append({"engine": engine.name, "version": run.library.version,
                    "layout": {"tp": layout.tp, "pp": layout.pp, "ep": layout.ep, "nodes": len(layout.nodes)},
                    "nodes": [n.to_dict() for n in per_node or []], "notes": notes})
    return out


def choose_layout(cluster: Cluster, own: dict[str, Any] | None, planned: dict[str, Any] | None,
                  launch: Launch) -> tuple[MultiNode, list[str]]:
    """The engine's own plan's layout, else the launch flags', else another engine's plan (said in a note)."""
    notes: list[str] = []
    source = own if own and own.get("requested") else None
    sizes = _flag_sizes(launch, cluster)
    if source is None and sizes is None and planned is not None:
        source = planned
        notes.append(f"layout from the {planned['engine']} {planned['engine_version']} plan: this engine has no "
                     f"memory model in the doctor")
    if source is not None:
        chosen = source["requested"]
        tp, pp, ep = chosen["tp"], chosen["pp"], chosen["ep"]
        if not chosen["fits"]:
            notes.append(f"TP{tp} x PP{pp} does not fit (see the memory findings): the commands are for it anyway")
    else:
        tp, pp, ep = sizes or (cluster.gpus_per_node, len(cluster.nodes), 1)
    count = min(len(cluster.nodes), -(-tp * pp // cluster.gpus_per_node))
    if count < len(cluster.nodes):
        notes.append(f"TP{tp} x PP{pp} uses {count} of the {len(cluster.nodes)} nodes")
    roles = tuple(NodeRole(f.node or f"node{i}", i, (f.network.address if f.network else None) or f.node or f"node{i}")
                  for i, f in enumerate(cluster.nodes[:count]))
    return MultiNode(tp, pp, ep, roles), notes


def _flag_sizes(launch: Launch, cluster: Cluster) -> tuple[int, int, int] | None:
    values = {k: launch.get(k) for k in ("tp", "pp", "ep")}
    if not any(isinstance(v, int) and v > 0 for v in values.values()):
        return None
    pp = values["pp"] if isinstance(values["pp"], int) and values["pp"] > 0 else 1
    tp = values["tp"] if isinstance(values["tp"], int) and values["tp"] > 0 else \
        max(1, cluster.gpus_per_node * len(cluster.nodes) // pp)
    ep = values["ep"] if isinstance(values["ep"], int) and values["ep"] > 0 else 1
    return tp, pp, ep
