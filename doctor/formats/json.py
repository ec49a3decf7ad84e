"""JSON rendering of a Report; the document validates against schema/report.schema.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from doctor.output import json_text
from doctor.pipeline.report import Report


def render_json(report: Report) -> str:
    return json_text(report.to_dict())


def report_schema() -> dict[str, Any]:
    text = (Path(__file__).resolve().parent / "schema" / "report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)
