"""The envelope every `--format json` output shares, and the published schemas it validates against.

Each command writes one JSON object: `schema_version` (of that command's schema), `tool`, then its payload.
The schemas are doctor/formats/schema/<name>.schema.json (draft 2020-12), shipped in the wheel; the table
of command → schema is in README.md and docs/json-output.md."""

from __future__ import annotations

import json
from typing import Any

from doctor import __version__

SCHEMA_VERSION = "1"  # every document's, until one of them changes shape
TOOL = {"name": "sm120-doctor", "version": __version__}

# command → the schema its `--format json` document validates against (check over several nodes: cluster-report)
SCHEMAS: dict[str, str] = {
    "check": "report", "diagnose": "diagnose", "lint": "lint", "snapshot": "facts", "plan": "plan",
    "kernels": "kernels", "smem": "smem", "binaries": "binaries", "engines": "engines", "rules": "rules",
    "explain": "explain", "hardware": "hardware", "models": "models",
}


def document(**payload: Any) -> dict[str, Any]:
    """`payload` behind the envelope: schema_version first, then tool."""
    return {"schema_version": SCHEMA_VERSION, "tool": dict(TOOL), **payload}


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2)


def schema(name: str) -> dict[str, Any]:
    """The published JSON Schema `name` (report, plan, ...), as shipped in the package."""
    from importlib import resources  # not on check's path: it only renders

    text = (resources.files("doctor.formats") / "schema" / f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def schema_names() -> list[str]:
    from importlib import resources

    folder = resources.files("doctor.formats") / "schema"
    return sorted(p.name.removesuffix(".schema.json") for p in folder.iterdir() if p.name.endswith(".schema.json"))
