"""What an engine's report may not show of another engine: its name, formulas or flags. Citations (a rule's
or a hardware profile's public references) may name any project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = str(Path(__file__).resolve().parents[2])


def without_citations(report: dict[str, Any]) -> str:
    """The report as text, less every `references` list (sources are allowed to name other projects) and less
    the checkout's own path (a clone under `.../vllm-work/` must not look like a vLLM mention)."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "references"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return json.dumps(strip(report)).replace(json.dumps(REPO)[1:-1], "<repo>")


def without_checkout_path(text: str) -> str:
    """Console text less the checkout's own path."""
    return text.replace(REPO, "<repo>")
