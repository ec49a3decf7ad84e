"""The regression set: public failure reports on SM12x, each replayed as a deployment through `check`.

A case passes when every rule it expects fires and one of those findings carries the expected fix. Nothing
in doctor/ knows these cases: they are facts in, findings out (tests/cases/cases.toml)."""

from __future__ import annotations

import re

import pytest

from doctor.pipeline.rules import load_rules
from tests.cases.deployment import fix_texts, load_cases, run_case
from tests.fix_consistency import report_conflicts

CASES = load_cases()
PUBLIC_SOURCE = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+$")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_names_cause_and_fix(case):
    report = run_case(case)
    found = {f.id: f for f in report.findings}
    missing = [rule for rule in case.expect if rule not in found]
    assert not missing, f"{case.url}: expected {missing}, got {sorted(found)}"
    texts = [t for rule in case.expect for t in fix_texts(found[rule])]
    assert any(case.fix.lower() in t.lower() for t in texts), f"{case.url}: no fix says {case.fix!r} in {texts}"
    contradictions = report_conflicts(report)  # no two findings' fixes contradict (tests/fix_consistency.py)
    assert not contradictions, f"{case.url}: {[str(c) for c in contradictions]}"


def test_the_set_is_large_and_public():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)
    assert len({c.url for c in CASES}) == len(CASES), "one case per public report"
    for case in CASES:
        assert PUBLIC_SOURCE.match(case.url), case.url
        assert case.expect and case.fix, case.id


def test_every_expected_rule_exists():
    known = {r.id for r in load_rules()}
    for case in CASES:
        assert set(case.expect) <= known, (case.id, set(case.expect) - known)
