"""Plans over several nodes: TP inside a node, PP (and EP, where it rides the TP group) across nodes, memory
per GPU by the engine's formula (doctor/plan/planner.py), and the inter-node traffic each layout implies per
token; ranked like the single-node plans.

Engines place ranks as rank = pp_rank * tp + tp_rank and fill node 0 first (a node-rank flag, or vLLM's Ray
placement group), so with TP <= GPUs per node each pipeline stage sits inside one node and only stage
boundaries cross the network; a TP larger than a node puts every all-reduce on the network.

Traffic per token (activations are 16-bit between layers):
- a pipeline boundary sends the hidden states and the residual (vLLM's `IntermediateTensors`
  {"hidden_states", "residual"} in models/deepseek_v2.py; the other engines send the same pair): 2 x hidden x 2 bytes;
- a TP group that spans nodes all-reduces hidden x 2 bytes twice per layer (attention output, MLP/MoE output);
  a ring all-reduce moves 2(n-1)/n of it through every link, so through each node's NIC;
- EP across nodes with an all-to-all backend (DeepEP) dispatches each token to top_k experts and combines
  them back: 2 x top_k x hidden x 2 bytes per MoE layer, the remote share (k-1)/k of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Facts, Gpu, Link, Model
from doctor.plan.layouts import Comm, Layout, communication, invalid_reasons
from doctor.plan.planner import Plan, PlanRequest, plan_layout
from doctor.plan.weights import WeightSource, weight_source

ACTIVATION_BYTES = 2
GBIT = 1e9 / 8  # bytes per second in one Gb/s


@dataclass(frozen=True)
class InterNode:
    """The network between the nodes, as the slowest node sees it."""

    transport: str  # rdma | tcp | unknown
    gbps: float | None = None  # link speed NCCL would use, Gb/s
    described: str = "a network the facts do not describe"


@dataclass(frozen=True)
class Span:
    """Where a layout's groups sit across nodes."""

    nodes_used: int
    tp_nodes: int  # how many nodes one TP group spans
    pp_crossings: int  # pipeline stage boundaries between nodes
    ep_nodes: int  # how many nodes one EP group spans


def merge_nodes(nodes: Sequence[Facts]) -> Facts:
    """One Facts for the planner: every node's GPUs numbered in launch order, each node's own links, the
    first node's host and libraries. No link joins two nodes (the network is planned here, not there)."""
    if not nodes:
        raise InputError("a cluster needs at least one node with a GPU")
    gpus: list[Gpu] = []
    links: list[Link] = []
    for facts in nodes:
        offset = len(gpus)
        gpus += [dataclasses.replace(gpu, index=offset + i, cuda_index=offset + i) for i, gpu in enumerate(facts.gpus)]
        links += [dataclasses.replace(link, a=link.a + offset, b=link.b + offset) for link in facts.topology]
    return nodes[0].replace(gpus=tuple(gpus), topology=tuple(links))


def span(layout: Layout, gpus_per_node: int) -> Span:
    nodes_used = -(-layout.gpus // gpus_per_node)
    tp_nodes = max(1, layout.tp // gpus_per_node)
    crossings = 0 if tp_nodes > 1 else sum(
        1 for stage in range(1, layout.pp) if (stage * layout.tp) % gpus_per_node == 0)
    ep_nodes = max(1, -(-layout.ep // gpus_per_node)) if layout.ep > 1 else 1
    return Span(nodes_used, tp_nodes, crossings, ep_nodes)


def node_layouts(model: Model, gpus_per_node: int, node_count: int) -> list[Layout]:
    """Valid layouts on whole nodes whose TP groups either fit inside a node or are whole nodes."""
    out = []
    for nodes in range(1, node_count + 1):
        world = nodes * gpus_per_node
        for tp in (d for d in range(1, world + 1) if world % d == 0):
            if gpus_per_node % tp and tp % gpus_per_node:
                continue
            eps = [1] if model.moe is None else [e for e in range(1, tp + 1) if tp % e == 0]
            for ep in eps:
                layout = Layout(tp, world // tp, ep)
                if not invalid_reasons(model, layout):
                    out.append(layout)
    return out


def traffic(model: Model, layout: Layout, where: Span) -> dict[str, int]:
    """Bytes per token that cross between nodes, by cause (each node's NIC carries this much)."""
    hidden = model.hidden_size * ACTIVATION_BYTES
    out = {"pp_boundary_bytes": 2 * hidden * where.pp_crossings, "tp_all_reduce_bytes": 0, "ep_all_to_all_bytes": 0}
    if where.tp_nodes > 1:
        n = layout.tp
        out["tp_all_reduce_bytes"] = int(model.num_layers * 2 * hidden * 2 * (n - 1) / n)
    if where.ep_nodes > 1 and model.moe is not None:
        moe_layers = model.num_layers - model.moe.first_dense_layers
        k = where.ep_nodes
        out["ep_all_to_all_bytes"] = int(moe_layers * 2 * model.moe.top_k * hidden * (k - 1) / k)
    out["total_bytes"] = sum(out.values())
    return out


def inter_node_comm(node: Facts, layout: Layout, gpus_per_node: int, net: InterNode,
                    model: Model) -> tuple[Comm, dict[str, Any]]:
    """The communication path of a layout over nodes like `node`, and the traffic between them."""
    where = span(layout, gpus_per_node)
    local = communication(node, Layout(min(layout.tp, gpus_per_node), 1, min(layout.ep, gpus_per_node)))
    moved = traffic(model, layout, where)
    reasons, cost = list(local.reasons), local.cost + 1.5 * (layout.pp - 1)
    tcp = net.transport != "rdma"
    if where.pp_crossings:
        reasons.append(f"PP{layout.pp}: {where.pp_crossings} stage boundar{'y' if where.pp_crossings == 1 else 'ies'} "
                       f"between nodes over {net.described}, {_size(moved['pp_boundary_bytes'])}/token")
        cost += 0.5 * where.pp_crossings * (2 if tcp else 1)
    if where.tp_nodes > 1:
        reasons.append(f"TP{layout.tp} spans {where.tp_nodes} nodes: every all-reduce crosses {net.described}, "
                       f"{_size(moved['tp_all_reduce_bytes'])}/token through each node's link")
        cost += 16.0 if tcp else 8.0
    if where.ep_nodes > 1:
        reasons.append(f"EP{layout.ep} spans {where.ep_nodes} nodes: an all-to-all backend would move "
                       f"{_size(moved['ep_all_to_all_bytes'])}/token between them")
        cost += 8.0 if tcp else 4.0
    ceiling = _ceiling(moved["total_bytes"], net.gbps)
    if ceiling is not None:
        reasons.append(f"the inter-node link ({net.gbps:g} Gb/s) caps throughput at about {ceiling:,} tokens/s")
    comm = Comm(local.tp_link, "NET" if where.nodes_used > 1 and layout.pp > 1 else local.pp_link,
                local.custom_all_reduce, cost, tuple(reasons))
    detail = {"nodes": where.nodes_used, "tp_nodes": where.tp_nodes, "pp_crossings": where.pp_crossings,
              "ep_nodes": where.ep_nodes, "tp_across_nodes": where.tp_nodes > 1,
              "ep_across_nodes": where.ep_nodes > 1, "transport": net.transport, "link_gbps": net.gbps,
              "tokens_per_s_ceiling": ceiling, **moved}
    return comm, detail


def _ceiling(total_bytes: int, gbps: float | None) -> int | None:
    return int(gbps * GBIT / total_bytes) if gbps and total_bytes else None


def _size(nbytes: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes} B"


def make_multinode_plans(nodes: Sequence[Facts], model: Model, req: PlanRequest, net: InterNode,
                         source: WeightSource | None = None) -> list[Plan]:
    """Every layout on whole nodes, best first; a requested layout (req.tp/pp/ep) first whatever it scores.
    Each plan's `comm["inter_node"]` holds its traffic between nodes."""
    gpus_per_node = min(len(f.gpus) for f in nodes) if nodes else 0
    if gpus_per_node == 0:
        raise InputError("a node has no GPU: a multi-node plan needs GPUs on every node")
    merged = merge_nodes([f.replace(gpus=f.gpus[:gpus_per_node]) for f in nodes])
    source = source or weight_source(model)
    layouts = node_layouts(model, gpus_per_node, len(nodes))
    wanted = _wanted(req, gpus_per_node, len(nodes))
    if wanted is not None:
        layouts = [wanted, *(lay for lay in layouts if lay != wanted)]
    plans = [_plan(merged, nodes[0], model, lay, req, net, gpus_per_node, source) for lay in layouts]
    if wanted is None:
        return sorted(plans, key=lambda p: -p.rank_score)
    return [plans[0], *sorted(plans[1:], key=lambda p: -p.rank_score)]


def _wanted(req: PlanRequest, gpus_per_node: int, node_count: int) -> Layout | None:
    if not (req.tp or req.pp or req.ep):
        return None
    pp = req.pp or 1
    return Layout(req.tp or max(1, gpus_per_node * node_count // pp), pp, req.ep or 1)


def _plan(merged: Facts, node: Facts, model: Model, layout: Layout, req: PlanRequest, net: InterNode,
          gpus_per_node: int, source: WeightSource) -> Plan:
    comm, detail = inter_node_comm(node, layout, gpus_per_node, net, model)
    plan = plan_layout(merged, model, layout, req, source, comm=comm)
    return dataclasses.replace(plan, comm={**plan.comm, "inter_node": detail})
