"""The per-layer decisions of a built model, grouped. Runs inside the engine's own environment (each runner
passes its engine's way of reading one layer); imports nothing of the doctor."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import torch

Decide = Callable[[torch.nn.Module], "dict[str, Any] | None"]


def walk_layers(model: torch.nn.Module, decide: Decide) -> list[dict[str, Any]]:
    """Decisions grouped by (layer class, decision): how many layers, the first one's name."""
    groups: dict[str, dict[str, Any]] = {}
    for name, module in model.named_modules():
        decision = decide(module)
        if decision is None:
            continue
        key = json.dumps([type(module).__name__, decision], sort_keys=True)
        if key not in groups:
            groups[key] = {"layer": type(module).__name__, "first": name, "count": 0, **decision}
        groups[key]["count"] += 1
    return list(groups.values())
