"""A cluster as facts: one Facts per node (several `--facts` files, or gathered through Ray), each named, plus
the nodes that could not be checked (died mid-probe, timed out, no GPU) and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Facts
from doctor.validation.facts import load_facts

MAX_NODES = 1024


@dataclass(frozen=True)
class NodeProblem:
    """A node left out of the check: `kind` is died | timeout | error | no-gpu."""

    node: str
    kind: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "kind": self.kind, "detail": self.detail}


@dataclass(frozen=True)
class Cluster:
    """The nodes of one deployment in launch order (node rank), each with a unique `Facts.node` name."""

    nodes: tuple[Facts, ...]
    problems: tuple[NodeProblem, ...] = ()
    origin: str = "facts files"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(str(f.node) for f in self.nodes)

    @property
    def gpus_per_node(self) -> int:
        return min(len(f.gpus) for f in self.nodes)

    def replace_nodes(self, nodes: Sequence[Facts]) -> Cluster:
        return Cluster(tuple(nodes), self.problems, self.origin)


def make_cluster(facts: Sequence[Facts], fallback_names: Sequence[str], origin: str,
                 problems: Sequence[NodeProblem] = ()) -> Cluster:
    """Name every node (its recorded name, else the fallback), keep those with GPUs, note the others.
    With no node that has a GPU there is nothing to check: one InputError."""
    if len(facts) > MAX_NODES:
        raise InputError(f"{len(facts)} nodes: the doctor checks at most {MAX_NODES}")
    named = unique_names([f.node or fallback for f, fallback in zip(facts, fallback_names, strict=True)])
    nodes, left_out = [], list(problems)
    for node_facts, name in zip(facts, named, strict=True):
        if node_facts.gpus:
            nodes.append(node_facts.replace(node=name))
        else:
            left_out.append(NodeProblem(name, "no-gpu", "no GPU in its facts: not part of the deployment"))
    if not nodes:
        checked = ", ".join(named) or "none"
        raise InputError(f"no node with a GPU among the {len(facts)} node(s) of the {origin} ({checked})")
    return Cluster(tuple(nodes), tuple(left_out), origin)


def unique_names(names: Sequence[str]) -> list[str]:
    """Names as given; a repeated one gets `#2`, `#3` (two snapshots of one host, or a profile twice)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def load_cluster(paths: Sequence[Path]) -> Cluster:
    """Several facts files, one per node, in node-rank order."""
    facts = [load_facts(path) for path in paths]
    return make_cluster(facts, [path.stem for path in paths], "facts files")


def profile_cluster(name: str, nodes: int) -> Cluster:
    """`--hardware NAME --nodes N`: N identical nodes of a built-in profile (a report's "2x DGX Spark")."""
    from doctor.hardware import load_profile

    if nodes > MAX_NODES:
        raise InputError(f"{nodes} nodes: the doctor checks at most {MAX_NODES}")
    facts = load_profile(name)
    return make_cluster([facts] * nodes, [name] * nodes, f"profile {name} x {nodes}")
