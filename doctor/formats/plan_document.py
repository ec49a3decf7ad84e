"""`plan --format json` (schema/plan.schema.json): one shape for one node and for several. A single machine
is the degenerate cluster: one entry in `nodes`, `network` null, no per-node `launches`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doctor.formats.document import document
from doctor.pipeline.facts import Facts
from doctor.plan.planner import Plan


def node_entry(facts: Facts) -> dict[str, Any]:
    """A node as the plan names it: its name (none on one machine), where its facts came from, its GPUs."""
    return {"name": facts.node, "hardware": facts.source.name or facts.source.kind, "gpus": len(facts.gpus),
            "gpu_models": sorted({g.name for g in facts.gpus})}


def plan_document(*, model: str | None, nodes: Sequence[Facts], engine: str, engine_version: str | None,
                  weights_source: str | None, notes: Sequence[str], plans: Sequence[Plan],
                  network: str | None = None, advice: dict[str, Any] | None = None,
                  launches: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Every layout ranked (the requested one first when the flags ask for one), the requested and the best
    that fits repeated under their own keys."""
    layouts = [p.to_dict() for p in plans]
    best = next((layout for layout in layouts if layout["fits"]), None)
    return document(model=model, engine=engine, engine_version=engine_version, weights_source=weights_source,
                    nodes=[node_entry(f) for f in nodes], network=network, notes=list(notes),
                    requested=layouts[0] if layouts else None, best=best, any_fits=best is not None,
                    layout_count=len(layouts), layouts=layouts, advice=advice, launches=list(launches))
