"""JSON rendering of a Report; the document validates against schema/report.schema.json."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from doctor.report import Report


def render_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2)


def report_schema() -> dict[str, Any]:
    text = (resources.files("doctor.formats") / "schema" / "report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)
