"""What a pasted line about a tool-call or reasoning parser name means, read from the derived parser table
(doctor/engines/parsers.py): the signatures of rules/parsers.toml capture the name (`log_tool_parser`,
`log_reasoning_parser`), and `log.parsers.<engine>.<kind>` says, for each engine the table holds, which releases
register it and the name to use instead. The engines are the table's own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doctor.diagnose.read import first_captures
from doctor.engines import parsers as table

GROUPS = {"log_tool_parser": table.TOOL, "log_reasoning_parser": table.REASONING}


def log_view(hits: Sequence[Any]) -> dict[str, Any]:
    """`log.parsers`: per engine of the table, a sentence per captured name (what to use instead)."""
    names = first_captures(hits, GROUPS)
    if not names:
        return {}
    return {"parsers": {package: {kind: table.name_advice(package, kind, name) for kind, name in names.items()}
                        for package in table.packages()}}
