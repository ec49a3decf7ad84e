"""Every error rule, just outside every boundary of its scope (issue 24: "an error is a promise").

Each positive case of an error rule in tests/rules/test_rule_cases.py is replayed with one fact moved just
past one of the rule's top-level conditions, and the rule must then stay silent:
- `gpu.capability_major == 12`: the same deployment on compute capability 9.0 and 10.0;
- `gpu.capability_minor == k`: the other SM12x part (12.0 <-> 12.1);
- `lib.X.version` specifiers: the release just outside each bound (the release itself for `<V`, the one before
  it for `>=V`, the neighbours for `==V`); engines move along their own release lists.
The explicit cases in test_rule_cases.py name the reports' own boundaries; this sweep makes sure no error rule
has a bound that is not tested from the outside.
"""

from __future__ import annotations

import dataclasses

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from doctor.engines.sglang.releases import RELEASES as SGLANG_RELEASES
from doctor.engines.vllm import knowledge as vllm_knowledge
from doctor.pipeline.facts import Facts
from tests.rules.builders import RULES, findings
from tests.rules.test_rule_cases import CASES

ERRORS = {r.id: r for r in RULES if r.severity == "error"}
ENGINE_RELEASES = {"vllm": tuple(vllm_knowledge.releases()), "sglang": SGLANG_RELEASES}


def _with_capability(facts: Facts, capability: str) -> Facts:
    return facts.replace(gpus=tuple(dataclasses.replace(g, compute_capability=capability) for g in facts.gpus))


def _with_version(facts: Facts, package: str, version: str) -> Facts:
    library = facts.libraries[package]
    return facts.replace(libraries={**facts.libraries, package: dataclasses.replace(library, version=version)})


def _just_below(package: str, bound: Version) -> str:
    releases = [Version(r) for r in ENGINE_RELEASES.get(package, ())]
    below = [r for r in releases if r < bound]
    if below:
        return str(max(below))
    major, minor, micro = [*bound.release, 0, 0][:3]
    if micro:
        return f"{major}.{minor}.{micro - 1}"
    return f"{major}.{minor - 1}.99" if minor else f"{major - 1}.99"


def _just_above(package: str, bound: Version) -> str:
    releases = [Version(r) for r in ENGINE_RELEASES.get(package, ())]
    above = [r for r in releases if r > bound]
    if above:
        return str(min(above))
    major, minor, micro = [*bound.release, 0, 0][:3]
    return f"{major}.{minor}.{micro + 1}"


def _outside(package: str, specifier: str) -> list[str]:
    """Versions just outside each bound of `specifier`, each failing it."""
    out = []
    for spec in SpecifierSet(specifier):
        bound = Version(spec.version)
        if spec.operator in ("<", ">="):
            out.append(str(bound) if spec.operator == "<" else _just_below(package, bound))
        elif spec.operator in ("<=", ">"):
            out.append(_just_above(package, bound) if spec.operator == "<=" else str(bound))
        elif spec.operator == "==":
            out += [_just_below(package, bound), _just_above(package, bound)]
    return [v for v in out if not SpecifierSet(specifier).contains(v, prereleases=True)]


def _with_detail(facts: Facts, package: str, key: str, value: str) -> Facts:
    library = facts.libraries[package]
    details = {**library.details, key: value}
    return facts.replace(libraries={**facts.libraries, package: dataclasses.replace(library, details=details)})


def _moves(rule_id: str, facts: Facts) -> list[tuple[str, Facts]]:
    moves = []
    for condition in ERRORS[rule_id].when:
        fact = condition.get("fact", "")
        if fact == "gpu.capability_major" and condition.get("eq") == 12:
            moves += [("capability 9.0", _with_capability(facts, "9.0")),
                      ("capability 10.0", _with_capability(facts, "10.0"))]
        elif fact == "gpu.capability_major" and "in" in condition:
            moves.append(("capability 9.0", _with_capability(facts, "9.0")))
        elif fact == "driver.major" and "lt" in condition:
            driver = dataclasses.replace(facts.driver, driver_version=f"{condition['lt']}.00")
            moves.append((f"driver {condition['lt']}", facts.replace(driver=driver)))
        elif fact.startswith("lib.") and fact.count(".") == 2 and "version" in condition \
                and not fact.endswith(".version"):
            _, package, key = fact.split(".")
            if package in facts.libraries:
                moves += [(f"{package} {key} {v}", _with_detail(facts, package, key, v))
                          for v in _outside(package, condition["version"])]
        elif fact == "gpu.capability_minor" and "eq" in condition:
            other = "12.1" if condition["eq"] == 0 else "12.0"
            moves.append((f"capability {other}", _with_capability(facts, other)))
        elif fact.startswith("lib.") and fact.endswith(".version") and "version" in condition:
            package = fact.removeprefix("lib.").removesuffix(".version")
            if package in facts.libraries:
                moves += [(f"{package} {v}", _with_version(facts, package, v))
                          for v in _outside(package, condition["version"])]
    return moves


def _boundary_cases() -> list[tuple[str, object]]:
    out = []
    for case in CASES:
        if case.fires and case.rule in ERRORS and _has_bound(ERRORS[case.rule]):
            out.append((f"{case.rule}-{case.name}", case))
    return out


def _has_bound(rule) -> bool:
    return any(c.get("fact") in ("gpu.capability_major", "gpu.capability_minor", "driver.major")
               or (str(c.get("fact", "")).startswith("lib.") and "version" in c) for c in rule.when)


BOUNDARY = _boundary_cases()


@pytest.mark.parametrize("case", [c for _, c in BOUNDARY], ids=[n for n, _ in BOUNDARY])
def test_error_rule_is_silent_just_outside_each_bound(case):
    facts = case.facts()
    extra = case.launch_file() if case.launch_file else None
    assert case.rule in findings(facts, *case.args, kernels=case.kernels, launch_file=extra), \
        "the positive case must fire"
    moves = _moves(case.rule, facts)
    assert moves, f"{case.rule}: a bound with no move"
    for label, moved in moves:
        assert case.rule not in findings(moved, *case.args, kernels=case.kernels, launch_file=extra), \
            f"{case.rule} fires at {label}"


def test_every_bounded_error_rule_has_a_positive_case_to_move():
    bounded = {rule_id for rule_id, rule in ERRORS.items() if _has_bound(rule)}
    assert bounded <= {case.rule for _, case in BOUNDARY}
