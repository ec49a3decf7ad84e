"""No two findings of one report give contradicting fixes (tests/fix_consistency.py says what contradicts).

Fast: the checker itself, the agreement step (doctor/pipeline/agree.py), and the reports that had contradictions
(Gemma 4's transformers pin from ARCH001 and DSP053, FlashInfer for DeepSeek-V4 from FI041 and FI090, a forced
attention backend on DeepSeek-V3.2 from DSP002 and VLLM103) at every vLLM release the doctor knows. The cases
and the known-good corpus are checked inside their own tests (tests/cases, tests/knowngood), which already run
each report. Slow: every bundled model x profiles x engine releases x launch flags."""

from __future__ import annotations

import dataclasses

import pytest

from doctor.engines.vllm import knowledge
from doctor.findings import Finding, Fix
from doctor.pipeline.agree import agree, exact_pins, requirements_in, versioned
from tests.fix_consistency import SCAN_ENGINES, conflicts, disjoint, grid_reports, report_conflicts
from tests.rules.builders import build


def finding(rule: str, *fixes: Fix) -> Finding:
    return Finding(id=rule, severity="warning", title=rule, message=rule, evidence={}, fixes=fixes, references=())


def manual(text: str) -> Fix:
    return Fix(kind="manual", safety="manual", summary=text)


def upgrade(package: str) -> Fix:
    return Fix(kind="upgrade", safety="manual", summary=f"install {package}", details={"package": package})


def flag(*flags: str, remove: tuple[str, ...] = ()) -> Fix:
    details: dict[str, object] = {"flags": list(flags), "engine": "vllm"}
    if remove:
        details["remove"] = list(remove)
    return Fix(kind="flag", safety="safe", summary="flag", details=details)


def env(**values: str) -> Fix:
    return Fix(kind="env", safety="safe", summary="env", details={"env": values})


def kinds(*found: Finding) -> list[str]:
    return [c.kind for c in conflicts(found)]


def test_pins_are_read_from_pip_commands_and_packages():
    text = "pip install 'vllm>=0.19.1' (a reason; with pip install 'transformers==5.14.1' (inside its requirement)"
    assert [str(r) for r in requirements_in(text)] == ["vllm>=0.19.1", "transformers==5.14.1"]
    assert [str(r) for r in requirements_in("pip install -U flashinfer-python==0.6.14 flashinfer-cubin==0.6.14")] \
        == ["flashinfer-python==0.6.14", "flashinfer-cubin==0.6.14"]
    assert list(requirements_in("pip install vllm")) == []  # no version: nothing pinned


def test_disjoint_version_sets():
    from packaging.specifiers import SpecifierSet as S

    assert disjoint(S("<5.15"), S(">=5.15"))
    assert disjoint(S("==5.5.0"), S("!=5.5.0,>=4.56"))
    assert not disjoint(S(">5.5"), S("<5.6"))  # 5.5.1 is in both
    assert not disjoint(S(">=5.5.1"), S("==5.14.1"))


def test_each_kind_of_contradiction_is_found():
    assert kinds(finding("A", manual("pip install 'torch<2.9'")), finding("B", upgrade("torch>=2.9.0"))) == ["package"]
    assert kinds(finding("A", manual("pip install x==1.0")), finding("B", manual("pip install x==1.1"))) \
        == ["package"]
    assert kinds(finding("A", manual("pip install 'x==1.4'")), finding("B", upgrade("x>=1.2"))) == ["divergent"]
    assert kinds(finding("A", flag("--attention-backend", "TRITON_ATTN")),
                 finding("B", flag("--attention-backend", "FLASHINFER"))) == ["flag"]
    assert kinds(finding("A", flag("--attention-backend", "TRITON_ATTN")),
                 finding("B", flag(remove=("--attention-backend",)))) == ["flag"]
    assert kinds(finding("A", env(VLLM_USE_DEEP_GEMM="0")), finding("B", env(VLLM_USE_DEEP_GEMM="1"))) == ["env"]


def test_a_pin_that_comes_with_an_engine_upgrade_is_about_that_release():
    """DSP056 pins transformers for the release checked (or upgrade vLLM); ARCH002 pins it with vLLM >= 0.19.1."""
    stay = finding("DSP056", manual("pip install 'transformers==4.53.3' (for 0.9.2); or upgrade to vLLM 0.10.0"))
    move = finding("ARCH002", manual("pip install 'vllm>=0.19.1' (with pip install 'transformers==5.14.1')"))
    assert conflicts((stay, move), {"vllm": "0.9.2"}) == []
    only = finding("X", manual("pip install 'transformers==4.53.3'"))
    assert [c.kind for c in conflicts((only, move), {"vllm": "0.9.2"})] == ["package"]
    same = finding("Y", manual("pip install 'transformers>=5.5.1'"))
    assert [c.kind for c in conflicts((same, finding("Z", manual("pip install 'transformers==5.14.1'"))))] \
        == ["divergent"]


def test_a_fix_that_contradicts_itself():
    """GATE010 said `pip install triton==3.3.1` while the lowest-clearing rewrite said `triton>=3.4.0`: 3.3.1 was
    missing from the known Triton releases (doctor/engines/releases.py)."""
    fix = Fix(kind="upgrade", safety="manual", summary="over torch 2.7.0: pip install triton==3.3.1",
              details={"package": "triton>=3.4.0"})
    assert kinds(finding("GATE010", fix)) == ["self"]


def test_every_release_an_upgrade_fix_names_is_one_the_lowest_clearing_search_knows():
    """Else the search answers a later release than the rule's own (the `self` contradiction above)."""
    from packaging.version import Version

    from doctor.engines import registry
    from doctor.pipeline.rules import load_rules
    from doctor.pipeline.upgrades import known_releases

    for rule in load_rules():
        for fix in rule.fixes:
            requirement = versioned(str(fix.get("package", ""))) if fix["kind"] == "upgrade" else None
            if requirement is None or "{" in str(fix["package"]):
                continue
            releases = known_releases(registry.package_named(requirement.name.lower()))[0]
            for spec in requirement.specifier:
                if releases and spec.operator in (">=", "=="):
                    assert Version(spec.version) in {Version(r) for r in releases}, (rule.id, fix["package"])


def test_alternatives_that_share_an_answer_agree():
    assert kinds(finding("A", flag("--attention-backend", "X"), flag(remove=("--attention-backend",))),
                 finding("B", flag(remove=("--attention-backend",)))) == []
    assert kinds(finding("A", upgrade("vllm>=0.19.1")), finding("B", upgrade("vllm>=0.28.0"))) == []
    assert kinds(finding("A", manual("pip install 'x==1.4'")), finding("B", manual("pip install 'x==1.4'"))) == []


def test_a_range_defers_to_an_exact_pin_inside_it():
    exact = finding("FI041", manual("pip install flashinfer-python==0.6.14 flashinfer-cubin==0.6.14"))
    ranged = finding("FI090", upgrade("flashinfer-python>=0.6.14"))
    assert kinds(exact, ranged) == ["divergent"]
    agreed = agree((exact, ranged))
    fix = agreed[1].fixes[0]
    assert fix.details["package"] == "flashinfer-python==0.6.14" and fix.details["agrees_with"] == "FI041"
    assert "FI041" in fix.summary and kinds(*agreed) == []


def test_a_range_keeps_its_own_answer_outside_the_pin_or_between_two_pins():
    outside = (finding("A", manual("pip install x==1.0")), finding("B", upgrade("x>=1.2")))
    assert agree(outside) == outside
    two = (finding("A", manual("pip install x==1.4")), finding("C", manual("pip install x==1.5")),
           finding("B", upgrade("x>=1.2")))
    assert exact_pins(two) == {} and agree(two) == two


GEMMA4 = ("google/gemma-4-26B-A4B", "nvidia/Gemma-4-31B-IT-NVFP4")


@pytest.mark.parametrize("model", GEMMA4)
def test_gemma4_model_support_and_the_derived_dependency_name_one_transformers_pin(model):
    """ARCH001 (model_support.json) and DSP051-DSP053 (stops.json) read one measured pin: the probes'."""
    from doctor.pipeline.check import check_facts

    both = 0
    for release in knowledge.releases():
        report = check_facts(build("rtx-pro-6000-x8", model, (f"vllm=={release}",)), [])
        assert not report_conflicts(report), (release, [str(c) for c in report_conflicts(report)])
        found = {f.id: f for f in report.findings}
        pins = {str(r.specifier) for rule in ("ARCH001", "DSP053") if rule in found for fix in found[rule].fixes
                for r in requirements_in(fix.summary) if r.name == "transformers"}
        if "ARCH001" in found and "DSP053" in found:
            both += 1
            assert pins == {"==5.14.1"}, (release, pins)
    assert both >= 5  # the releases before Gemma 4's registration (0.19.0)


def test_deepseek_v4_flashinfer_pins_agree():
    from doctor.pipeline.check import check_facts

    for release in ("0.24.0", "0.25.0"):
        report = check_facts(build("dgx-spark", "RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8", (f"vllm=={release}",)), [])
        found = {f.id: f for f in report.findings}
        assert {"FI041", "FI090"} <= set(found), (release, sorted(found))
        assert not report_conflicts(report), [str(c) for c in report_conflicts(report)]
        upgraded = [fix for fix in found["FI090"].fixes if fix.kind == "upgrade"]
        assert upgraded[0].details["package"] == "flashinfer-python==0.6.14"
        # one sentence, both facts: the lowest release that clears FI090 and FI041's exact pin, one parenthesis
        assert upgraded[0].summary.endswith(": install flashinfer-python==0.6.14, the lowest known release that "
                                            "clears this and the release FI041 in this report needs")
        assert upgraded[0].summary.count("(") == 1 and not {"summary_base", "lowest_note"} & set(upgraded[0].details)


def test_a_deferred_range_whose_lowest_clearing_release_is_older_says_both_releases():
    from doctor.pipeline.agree import agree

    drafted = dataclasses.replace(upgrade("flashinfer-python>=0.6.12"), summary="Upgrade (flashinfer-python>=0.6.12: "
                                  "lowest known release that clears this)",
                                  details={"package": "flashinfer-python>=0.6.12", "lowest_clearing": "0.6.12",
                                           "lowest_note": "lowest known release that clears this",
                                           "summary_base": "Upgrade"})
    exact = finding("FI041", manual("pip install flashinfer-python==0.6.14"))
    [_, ranged] = agree((exact, finding("FI090", drafted)))
    assert ranged.fixes[0].summary == ("Upgrade: install flashinfer-python==0.6.14, which FI041 in this report needs "
                                       "and which clears this too (flashinfer-python>=0.6.12 is the lowest known "
                                       "release that clears this)")


def test_a_rejected_forced_backend_gets_one_answer():
    from doctor.pipeline.check import check_facts

    report = check_facts(build("rtx-pro-6000-x8", "deepseek-ai/DeepSeek-V3.2", ("vllm==0.24.0",)),
                         ["--attention-backend", "FLASHINFER"])
    assert {"DSP002", "VLLM103"} <= {f.id for f in report.findings}
    assert not report_conflicts(report), [str(c) for c in report_conflicts(report)]


@pytest.mark.slow
def test_the_bundled_model_grid_has_no_contradicting_fixes():
    """Every bundled model x 10 engine releases: with 4 launches per engine on an RTX PRO 6000 x8, and the plain
    launch on an RTX 5090 and a DGX Spark (about 7,000 reports; `python -m tests.fix_consistency` lists them)."""
    found, checked = [], 0
    grids = (grid_reports(profiles=("rtx-pro-6000-x8",), engines=SCAN_ENGINES, with_flags=True),
             grid_reports(profiles=("rtx-5090", "dgx-spark"), engines=SCAN_ENGINES))
    for grid in grids:
        for where, report in grid:
            checked += 1
            found += [f"{where}: {c}" for c in report_conflicts(report)]
    assert checked > 6_000 and not found, found[:20]
