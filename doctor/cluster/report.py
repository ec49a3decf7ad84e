"""What a cluster check found: every node's own report, the findings about the cluster as a whole, the
multi-node plan and each node's launch commands per engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from doctor import __version__
from doctor.cluster.nodes import Cluster
from doctor.findings import SEVERITIES, Finding, any_at_or_above, severity_counts
from doctor.pipeline.report import REPORT_SCHEMA_VERSION, Report
from doctor.plan.planner import Plan


@dataclass(frozen=True)
class NodeFinding:
    """A finding of the per-node checks, once, with the nodes that gave it (empty: every node)."""

    finding: Finding
    nodes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = self.finding.to_dict()
        if self.nodes:
            data["nodes"] = list(self.nodes)
        return data


@dataclass(frozen=True)
class ClusterReport:
    cluster: Cluster
    reports: tuple[Report, ...]  # one per node, in node-rank order
    view: dict[str, Any]  # the `cluster` rule-context root
    findings: tuple[NodeFinding, ...]  # cluster rules first, then the merged per-node findings
    launches: tuple[dict[str, Any], ...] = ()  # per engine: layout and every node's commands
    layouts: tuple[Plan, ...] = ()  # the planned engine's multi-node layouts, ranked, in full (`plan` writes them)

    def counts(self) -> dict[str, int]:
        return severity_counts([f.finding.severity for f in self.findings])

    def worst_at_or_above(self, threshold: str) -> bool:
        return any_at_or_above([f.finding.severity for f in self.findings], threshold)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "tool": {"name": "sm120-doctor", "version": __version__},
            "cluster": self.view,
            "findings": [f.to_dict() for f in self.findings],
            "summary": self.counts(),
            "launches": list(self.launches),
            "nodes": [{"node": name, "facts": report.facts.to_dict(),
                       "analyses": [a.to_dict() for a in report.analyses], "launches": list(report.launches)}
                      for name, report in zip(self.cluster.names, self.reports, strict=True)],
        }


def merge_node_findings(names: tuple[str, ...], reports: tuple[Report, ...]) -> list[NodeFinding]:
    """Each distinct finding once; one that not every node gave names its nodes."""
    nodes_of: dict[tuple[str, str], list[str]] = {}
    first: dict[tuple[str, str], Finding] = {}
    for name, report in zip(names, reports, strict=True):
        for finding in report.findings:
            key = (finding.id, finding.message)
            first.setdefault(key, finding)
            nodes_of.setdefault(key, []).append(name)
    merged = [NodeFinding(f, () if len(nodes_of[k]) == len(names) else tuple(nodes_of[k])) for k, f in first.items()]
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(merged, key=lambda n: (order[n.finding.severity], n.finding.id))
