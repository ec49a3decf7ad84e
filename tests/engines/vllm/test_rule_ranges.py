"""The version ranges of the vLLM rules' fixes agree with the wheels: a flag fix is offered only for releases
whose `vllm serve` has that flag (and value), an env fix only for releases that read the variable."""

from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from doctor.engines.vllm import knowledge
from doctor.engines.vllm.flags import table, value_ok
from doctor.engines.vllm.view import reads_env
from doctor.launch import flag_pairs
from doctor.pipeline.rules import load_rules

FIXES = [(rule.id, i, fix) for rule in load_rules() for i, fix in enumerate(rule.fixes)
         if fix.get("engine") == "vllm" and fix["kind"] in ("flag", "env")]


def releases_in(spec: str | None) -> list[str]:
    return [r for r in knowledge.releases() if spec is None or Version(r) in SpecifierSet(spec)]


@pytest.mark.parametrize(("rule", "index", "fix"), FIXES, ids=[f"{r}-{i}" for r, i, _ in FIXES])
def test_fix_exists_in_every_release_of_its_range(rule, index, fix):
    covered = releases_in(fix.get("versions"))
    assert covered, f"{rule} fix {index} covers no known release"
    for release in covered:
        flags = table(release)
        for flag, value in flag_pairs(fix.get("flags", []), is_switch=flags.is_switch,
                                      takes_value=flags.takes_value):
            resolved = flags.resolve(flag)
            assert resolved is not None, f"{rule}: {flag} does not exist in vLLM {release}"
            if value is not None and "{" not in value:
                assert value_ok(resolved.entry, value), f"{rule}: {flag} {value} is not valid in vLLM {release}"
        for name, value in fix.get("env", {}).items():
            assert reads_env(knowledge.facts(release), name), f"{rule}: vLLM {release} does not read {name}"
            if name == "VLLM_ATTENTION_BACKEND":  # a name the release's backend enum has, or it is not a choice
                members = knowledge.facts(release)["attention"]["members"]
                assert value in members, f"{rule}: VLLM_ATTENTION_BACKEND={value} is no backend of vLLM {release}"


def test_the_boundaries_the_rules_rest_on():
    assert knowledge.flag_history("--attention-backend")["releases"] == [["0.13.0", "0.33.0"]]
    assert knowledge.env_history("VLLM_ATTENTION_BACKEND") == [["0.9.2", "0.14.0"]]
    assert knowledge.env_history("VLLM_USE_TRTLLM_ATTENTION") == [["0.11.0", "0.14.0"]]
    gate = {r: knowledge.facts(r)["gates"]["cutlass_group_gemm_supported"]["120"] for r in knowledge.releases()}
    assert {r for r, answer in gate.items() if answer == "compiled"} == \
        {r for r in knowledge.releases() if Version(r) < Version("0.15.1")}
