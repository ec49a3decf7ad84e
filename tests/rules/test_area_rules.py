"""The issue-25 area rules (tests/rules/area_cases.py): each case runs the pure part of `check` (check_facts),
so launch flags are parsed by the engine's own flag table as in a real run."""

from __future__ import annotations

import pytest

from doctor.pipeline.check import check_facts
from tests.rules.area_cases import AREA_CASES


@pytest.mark.parametrize("case", AREA_CASES, ids=[c.name for c in AREA_CASES])
def test_area_rule_case(case):
    found = {f.id for f in check_facts(case.facts(), list(case.args)).findings}
    assert (case.rule in found) is case.fires, sorted(found)
