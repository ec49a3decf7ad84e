"""The network between nodes as NCCL and Gloo would use it, from each node's network facts.

NCCL uses its IB verbs transport when an RDMA port is active (InfiniBand, or RoCE on Ethernet) and
NCCL_IB_DISABLE is not 1, else TCP sockets. NCCL_SOCKET_IFNAME is a comma-separated list of interface-name
prefixes, `^` excluding them and `=` asking for exact names; GLOO_SOCKET_IFNAME (torch.distributed's Gloo, which
the engines use for CPU-side groups) names interfaces exactly (NCCL docs, "Environment Variables":
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-socket-ifname; PyTorch
https://pytorch.org/docs/stable/distributed.html#choosing-the-network-interface-to-use).
"""

from __future__ import annotations

import re
from typing import Any

from doctor.cluster.layouts import InterNode
from doctor.cluster.nodes import Cluster
from doctor.pipeline.facts import Facts, Network, Nic, RdmaPort

# A DGX Spark's ConnectX-7 shows each QSFP port as two RDMA devices (rocep1s0f0 and its twin roceP2p1s0f0): one
# cable makes two ports ACTIVE, both reaching the same peer. More than two active means cables to different peers.
TWIN_FUNCTIONS = 2
COMPARED_SETTINGS = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_IB_DISABLE", "NCCL_NET")
_RATE = re.compile(r"^\s*([\d.]+)\s*Gb/sec")


def nccl_matches(spec: str, names: list[str]) -> list[str]:
    """The interfaces NCCL_SOCKET_IFNAME=`spec` selects among `names`."""
    exclude = spec.startswith("^")
    spec = spec.lstrip("^")
    exact = spec.startswith("=")
    wanted = [w for w in spec.lstrip("=").split(",") if w]
    hit = (lambda n: n in wanted) if exact else (lambda n: any(n.startswith(w) for w in wanted))
    return [n for n in names if hit(n) != exclude]


def ib_hca_matches(spec: str, ports: list[RdmaPort]) -> list[RdmaPort]:
    """The ports NCCL_IB_HCA=`spec` selects (src/transport/net_ib.cc: `^` excludes, `=` asks for exact device
    names, otherwise prefixes; an entry may name one port as `device:port`)."""
    exclude = spec.startswith("^")
    spec = spec.lstrip("^")
    exact = spec.startswith("=")
    wanted = [w.partition(":") for w in spec.lstrip("=").split(",") if w]

    def hit(port: RdmaPort) -> bool:
        return any((port.device == name if exact else port.device.startswith(name))
                   and (not number or number == str(port.port)) for name, _, number in wanted)
    return [p for p in ports if hit(p) != exclude]


def gloo_matches(spec: str, names: list[str]) -> list[str]:
    return [n for n in names if n in {w.strip() for w in spec.split(",")}]


def _up(net: Network) -> list[Nic]:
    return [nic for nic in net.nics if nic.operstate in ("up", "unknown")]


def _active_rdma_gbps(net: Network) -> list[float]:
    rates = []
    for port in net.rdma:
        if port.state and "ACTIVE" in port.state:
            match = _RATE.match(port.rate or "")
            rates.append(float(match.group(1)) if match else 0.0)
    return rates


def node_network(facts: Facts) -> dict[str, Any]:
    """One node's view: transport, link speed, GPUDirect RDMA readiness, and interface settings that name
    nothing usable."""
    net = facts.network
    if net is None or not (net.nics or net.rdma):  # no probe behind it (a profile, or only Ray's address)
        return {"node": facts.node, "known": False}
    up = _up(net)
    names = [nic.name for nic in up]
    rdma_rates = _active_rdma_gbps(net)
    rdma = bool(rdma_rates) and net.settings.get("NCCL_IB_DISABLE") != "1"
    socket_spec = net.settings.get("NCCL_SOCKET_IFNAME")
    chosen = nccl_matches(socket_spec, names) if socket_spec else [n.name for n in up if n.device]
    speeds = [nic.speed_mbps / 1000 for nic in up if nic.name in chosen and nic.speed_mbps]
    gbps = max(rdma_rates) if rdma and any(rdma_rates) else (max(speeds) if speeds else None)
    return {"node": facts.node, "known": True, "address": net.address, "transport": "rdma" if rdma else "tcp",
            "roce": rdma and any(p.link_layer == "Ethernet" for p in net.rdma),
            "gbps": gbps, "interfaces_up": names, "socket_interfaces": chosen,
            "rdma_active_ports": len(rdma_rates) if rdma else 0,
            "gpudirect_rdma": _gpudirect(net) if rdma else None, "peermem": net.peermem,
            "nvidia_open_module": net.nvidia_open_module, "settings": dict(net.settings),
            "interface_problems": _interface_problems(net.settings, names),
            "ib_hca_unmatched": _ib_hca_unmatched(net)}


def _ib_hca_unmatched(net: Network) -> bool:
    """NCCL_IB_HCA is set and selects none of the node's active RDMA ports, which exist: NCCL's IB transport skips
    ports that are not ACTIVE and finds no device ("NET/IB : No device found."), so NCCL goes over sockets."""
    spec = net.settings.get("NCCL_IB_HCA")
    active = [p for p in net.rdma if p.state and "ACTIVE" in p.state]
    disabled = net.settings.get("NCCL_IB_DISABLE") == "1"
    return bool(spec and active and not disabled and not ib_hca_matches(spec, active))


def _gpudirect(net: Network) -> bool | None:
    """nvidia_peermem loaded, or the open kernel module (DMA-BUF); None when neither is known."""
    if net.peermem or net.nvidia_open_module:
        return True
    if net.peermem is None and net.nvidia_open_module is None:
        return None
    return False


def _interface_problems(settings: dict[str, str], names: list[str]) -> list[str]:
    problems = []
    nccl = settings.get("NCCL_SOCKET_IFNAME")
    if nccl and not nccl_matches(nccl, names):
        problems.append(f"NCCL_SOCKET_IFNAME={nccl} selects no interface that is up (up: {', '.join(names) or 'none'})")
    gloo = settings.get("GLOO_SOCKET_IFNAME")
    if gloo and not gloo_matches(gloo, names):
        problems.append(f"GLOO_SOCKET_IFNAME={gloo} names no interface that is up (up: {', '.join(names) or 'none'})")
    return problems


def network_view(cluster: Cluster) -> dict[str, Any]:
    nodes = [node_network(f) for f in cluster.nodes]
    known = [n for n in nodes if n["known"]]
    return {
        "nodes": nodes,
        "unknown_nodes": [n["node"] for n in nodes if not n["known"]],
        "tcp_nodes": [n["node"] for n in known if n["transport"] == "tcp"],
        "gpudirect_missing_nodes": [n["node"] for n in known if n.get("gpudirect_rdma") is False],
        "interface_problems": [{"node": n["node"], "problem": p} for n in known for p in n["interface_problems"]],
        "setting_mismatches": _setting_mismatches(known),
        "ib_hca_unmatched_nodes": [n["node"] for n in known if n["ib_hca_unmatched"]],
        "roce_unpinned_nodes": [n["node"] for n in known if n["roce"] and n["rdma_active_ports"] > TWIN_FUNCTIONS
                                and not n["settings"].get("NCCL_IB_HCA")],
    }


def _setting_mismatches(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from doctor.cluster.skew import summary

    out = []
    for name in COMPARED_SETTINGS:
        values = {str(n["node"]): n["settings"].get(name, "unset") for n in nodes}
        if len(set(values.values())) > 1:
            out.append({"setting": name, "values": values, "summary": summary(values)})
    return out


def inter_node(view: dict[str, Any]) -> InterNode:
    """The slowest node's network: what every inter-node transfer is bounded by."""
    nodes = view["nodes"]
    if not nodes or view["unknown_nodes"]:
        return InterNode("unknown")
    transport = "tcp" if view["tcp_nodes"] else "rdma"
    speeds = [n["gbps"] for n in nodes]
    gbps = None if None in speeds else min(speeds)
    words = "RDMA" if transport == "rdma" else "TCP sockets"
    return InterNode(transport, gbps, f"{words} at {gbps:g} Gb/s" if gbps else f"{words} (link speed unknown)")
