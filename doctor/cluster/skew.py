"""What differs between the nodes of a deployment: engine, torch, CUDA runtime, NCCL, triton and driver versions,
GPU models and counts. Every rank of an engine must run the same code on the same kind of GPU: NCCL refuses or
hangs between mismatched versions, and a TP group runs at the pace of its slowest GPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doctor.cluster.nodes import Cluster
from doctor.engines import registry
from doctor.pipeline.facts import Facts

NOT_INSTALLED = "not installed"
LIBRARIES = ("torch", "triton", "nccl", "flashinfer-python", "sgl-kernel", "transformers")
LABELS = {"nccl": "NCCL", "flashinfer-python": "FlashInfer"}


def _library(name: str) -> Callable[[Facts], str | None]:
    def version(facts: Facts) -> str | None:
        library = facts.library(name)
        return library.version if library is not None else NOT_INSTALLED

    return version


def _torch_cuda(facts: Facts) -> str | None:
    torch = facts.library("torch")
    value = torch.details.get("cuda_version") if torch is not None else None
    return str(value) if value else None


def _gpu_models(facts: Facts) -> str | None:
    return ", ".join(sorted({g.name for g in facts.gpus})) or None


def compared() -> list[tuple[str, str, Callable[[Facts], str | None]]]:
    """(what, kind, value of a node) for everything that must match across nodes."""
    engines = sorted({e.package for e in registry.engines().values()})
    items: list[tuple[str, str, Callable[[Facts], str | None]]] = [
        (LABELS.get(name, name), "version", _library(name)) for name in (*engines, *LIBRARIES)]
    items += [
        ("CUDA runtime (torch build)", "version", _torch_cuda),
        ("NVIDIA driver", "version", lambda f: f.driver.driver_version),
        ("CUDA driver API", "version", lambda f: f.driver.cuda_driver_version),
        ("GPU model", "gpu-model", _gpu_models),
        ("GPU count", "gpu-count", lambda f: str(len(f.gpus))),
    ]
    return items


def skew(cluster: Cluster) -> list[dict[str, Any]]:
    """One entry per compared item whose known values differ between nodes, with every node's value."""
    out = []
    for what, kind, value_of in compared():
        values = {str(f.node): value_of(f) for f in cluster.nodes}
        known = {node: v for node, v in values.items() if v is not None}
        if len(set(known.values())) < 2 or set(known.values()) == {NOT_INSTALLED}:
            continue
        out.append({"what": what, "kind": kind, "values": known, "summary": summary(known),
                    "distinct": sorted(set(known.values()))})
    return out


def summary(values: dict[str, str]) -> str:
    """`2.9.1 on node-a, node-c; 2.8.0 on node-b`: each value once, with the nodes that have it."""
    by_value: dict[str, list[str]] = {}
    for node, value in values.items():
        by_value.setdefault(value, []).append(node)
    return "; ".join(f"{value} on {', '.join(nodes)}" for value, nodes in by_value.items())
