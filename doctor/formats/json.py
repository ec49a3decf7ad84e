"""JSON rendering of a Report; the document validates against schema/report.schema.json."""

from __future__ import annotations

from typing import Any

from doctor.formats.document import schema
from doctor.output import json_text
from doctor.pipeline.report import Report


def render_json(report: Report) -> str:
    return json_text(report.to_dict())


def report_schema() -> dict[str, Any]:
    """report.schema.json; it refers to facts.schema.json and kernels.schema.json (doctor.formats.document)."""
    return schema("report")
