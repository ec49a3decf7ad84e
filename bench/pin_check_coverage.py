"""Which public reports a PIN finding names (bench/RESULTS-pin-check.md): every tests/cases case and known-good
entry replayed through `check_facts`, its findings by rule and severity, as JSON on stdout. Run it in two trees
(before and after the pin check) and compare.

    PYTHONPATH=TREE python bench/pin_check_coverage.py > out.json   # run from TREE
"""

from __future__ import annotations

import json
import sys

from tests.cases.deployment import load_cases, run_case
from tests.knowngood.corpus import load_entries, run_entry


def _findings(report) -> dict[str, str]:
    return {f.id: f.severity for f in report.findings}


def main() -> int:
    out: dict[str, dict[str, object]] = {"cases": {}, "knowngood": {}}
    for case in load_cases():
        out["cases"][case.id] = {"url": case.url, "expect": list(case.expect), "findings": _findings(run_case(case))}
    for entry in load_entries():
        out["knowngood"][entry.id] = {"url": entry.url, "findings": _findings(run_entry(entry))}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
