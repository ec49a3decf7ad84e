"""Merging an unstated engine's reports over the releases it was evaluated at (doctor.pipeline.unversioned):
an error at every release stays an error, an error at some is a warning that names them, warnings and infos
keep their severity, nothing is promoted, and the fix names the releases without the finding."""

from __future__ import annotations

from doctor.engines import registry
from doctor.findings import Finding, Fix, Safety
from doctor.hardware import load_profile
from doctor.pipeline.analysis import Analysis
from doctor.pipeline.report import Report
from doctor.pipeline.rules import Rule, load_rules
from doctor.pipeline.unversioned import _boundaries, evaluated_releases, merge_releases, ranges

VLLM = registry.get("vllm")
RELEASES = ["0.9.2", "0.10.0", "0.11.0", "0.12.0", "0.13.0"]
FACTS = load_profile("rtx-5090")


def finding(rule: str, severity: str, message: str = "m", fixes: tuple[Fix, ...] = ()) -> Finding:
    return Finding(id=rule, severity=severity, title=rule, message=message, fixes=fixes)


def reports(fired: dict[str, list[Finding]]) -> list[tuple[str, Report]]:
    """One report per release; `fired` maps a release to its findings."""
    return [(r, Report(facts=FACTS, analyses=(Analysis(engine="vllm", engine_version=r),),
                       findings=tuple(fired.get(r, ())))) for r in RELEASES]


def merged(fired: dict[str, list[Finding]]) -> dict[str, Finding]:
    assert VLLM is not None
    report = merge_releases(VLLM, reports(fired), "named")
    return {f.id: f for f in report.findings}


def test_an_error_at_every_release_stays_an_error_and_says_nothing_more():
    out = merged({r: [finding("X001", "error", f"at {r}")] for r in RELEASES})["X001"]
    assert out.severity == "error"
    assert out.message == "at 0.13.0"  # the shown release's instance, unchanged
    assert "releases_firing" not in out.evidence


def test_an_error_at_some_releases_becomes_a_warning_naming_them_and_the_releases_without_it():
    fired = {r: [finding("X001", "error", f"at {r}")] for r in ("0.9.2", "0.10.0", "0.11.0")}
    out = merged(fired)["X001"]
    assert out.severity == "warning"
    assert out.message.startswith("at 0.11.0 Release not stated: this holds for vLLM 0.9.2-0.11.0 of 0.9.2-0.13.0")
    assert "an error there" in out.message and "`--engine vllm==VERSION` confirms it" in out.message
    assert out.evidence["releases_firing"] == ["0.9.2", "0.10.0", "0.11.0"]
    fix = out.fixes[-1]
    assert (fix.kind, fix.details["package"]) == ("upgrade", "vllm>=0.12.0")
    assert fix.summary == "vLLM 0.12.0-0.13.0 do not show this: vllm>=0.12.0"


def test_a_finding_only_of_newer_releases_names_a_downgrade_and_one_in_the_middle_lists_the_others():
    newer = merged({r: [finding("X002", "error")] for r in ("0.12.0", "0.13.0")})["X002"]
    assert newer.severity == "warning"
    assert newer.fixes[-1].summary == "vLLM 0.9.2-0.11.0 do not show this: vllm<=0.11.0 (a downgrade)"
    middle = merged({"0.11.0": [finding("X003", "error")]})["X003"]
    assert "0.9.2-0.10.0, 0.12.0-0.13.0 do not show this" in middle.fixes[-1].summary


def test_warnings_and_infos_keep_their_severity_at_some_releases_or_all():
    fired = {r: [finding("W001", "warning"), finding("I001", "info")] for r in ("0.10.0", "0.12.0")}
    fired |= {r: [*fired.get(r, []), finding("W002", "warning")] for r in RELEASES}
    out = merged(fired)
    assert (out["W001"].severity, out["I001"].severity, out["W002"].severity) == ("warning", "info", "warning")
    assert "vLLM 0.10.0, 0.12.0 of 0.9.2-0.13.0" in out["W001"].message


def test_nothing_is_promoted_an_error_at_some_and_a_warning_at_the_others_is_a_warning():
    fired = {r: [finding("X004", "error" if r == "0.9.2" else "warning")] for r in RELEASES}
    assert merged(fired)["X004"].severity == "warning"
    infos = {r: [finding("X005", "info")] for r in ("0.9.2",)}
    assert merged(infos)["X005"].severity == "info"


def test_the_rules_own_upgrade_fix_is_not_repeated():
    own = Fix(kind="upgrade", safety=Safety.MANUAL, summary="Upgrade vLLM", details={"package": "vllm>=0.12.0"})
    out = merged({r: [finding("X006", "error", fixes=(own,))] for r in ("0.9.2", "0.10.0")})["X006"]
    assert out.fixes == (own,)


def test_the_report_says_which_releases_were_evaluated_and_which_one_it_shows():
    assert VLLM is not None
    report = merge_releases(VLLM, reports({}), "flags")
    assert report.releases_evaluated == ({"engine": "vllm", "display_name": "vLLM", "how": "flags",
                                          "releases": RELEASES, "shown": "0.13.0", "not_evaluated": []},)
    assert report.analysis.notes[0].startswith("engine inferred from the flags: vLLM, release not stated: rules "
                                               "evaluated at 5 releases (0.9.2-0.13.0)")
    assert report.to_dict()["releases_evaluated"][0]["shown"] == "0.13.0"


def test_ranges_are_runs_of_consecutive_evaluated_releases():
    assert ranges(RELEASES, ["0.9.2", "0.10.0", "0.12.0"]) == "0.9.2-0.10.0, 0.12.0"
    assert ranges(RELEASES, RELEASES) == "0.9.2-0.13.0"


def test_rule_boundaries_add_a_release_on_each_side_of_an_edge():
    assert {str(v) for v in _boundaries(">=0.11.1,<0.12.0")} == {"0.11.1", "0.12.0"}
    assert {str(v) for v in _boundaries("<=11434")} == {"11434", "11435"}
    assert {str(v) for v in _boundaries("<=1.3.0rc19")} == {"1.3.0rc19", "1.3.0rc20"}  # the next candidate
    assert _boundaries("<1.0.0.dev5") == set()  # a development build is no release a user runs


def test_release_candidates_are_evaluated_only_for_a_line_with_no_final_release():
    """TensorRT-LLM 1.3 exists only as release candidates (NGC containers ship them); a candidate of a line
    whose final release is known (1.2.0rc9999 beside 1.2.1) is not what users run."""
    evaluated = evaluated_releases(registry.get("tensorrt-llm"), load_rules())
    assert {"1.3.0rc0", "1.3.0rc19", "1.3.0rc20"} <= set(evaluated)
    assert not [r for r in evaluated if r.startswith(("1.2.0rc", "1.1.0rc", "1.0.0rc"))]
    assert not [r for r in evaluated_releases(VLLM, load_rules()) if "rc" in r]


def test_the_evaluated_releases_are_the_engines_and_its_rules_boundaries_within_its_knowledge():
    rules = load_rules()
    vllm = evaluated_releases(VLLM, rules)
    assert set(VLLM.releases) <= set(vllm) and "0.11.1" in vllm  # VLLM rules gate on >=0.11.1,<0.12.0
    assert {"0.10.1.1", "0.18.1", "0.27.1"} <= set(vllm)  # patch releases the pins, archs and derived tables hold
    sglang = registry.get("sglang")
    assert evaluated_releases(sglang, rules)[-1] == sglang.releases[-1]  # complete list: no 0.5.24 guessed
    llama = evaluated_releases(registry.get("llama.cpp"), rules)
    assert {"11312", "11434", "11435"} <= set(llama)  # the known build and both sides of `<=11434`
    custom = Rule(id="Z001", area="vllm", title="t", severity="error", summary="s", why="w", message="m",
                  when=({"fact": "engine.version", "version": "<0.9.3"},), fixes=(), references=("https://x.org/y",))
    assert "0.9.3" in evaluated_releases(VLLM, [custom])


def test_each_release_brings_what_its_wheel_pins_as_the_stated_release_would():
    from doctor.pipeline.gather import with_engines
    from doctor.pipeline.unversioned import at_release

    stated = with_engines(FACTS, ["vllm==0.20.0"]).libraries
    unstated = at_release(FACTS, VLLM, "0.20.0").libraries
    assert {k: v.version for k, v in unstated.items()} == {k: v.version for k, v in stated.items()}
    assert "torch" in unstated and unstated["torch"].details["implied_by"] == "vllm==0.20.0"
    assert "torch" not in at_release(FACTS, VLLM, "0.20.0", pinned=False).libraries  # diagnose: the log's own
