"""What an engine's report may not show of another engine: its name, formulas or flags. Citations (a rule's
or a hardware profile's public references) may name any project."""

from __future__ import annotations

import json
from typing import Any


def without_citations(report: dict[str, Any]) -> str:
    """The report as text, less every `references` list (sources are allowed to name other projects)."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "references"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return json.dumps(strip(report))
