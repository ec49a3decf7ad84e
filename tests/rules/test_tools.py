"""explain / rules subcommands, rule-file validation of the new keys, lowest clearing release, the composed
launch in the CLI report, and the nvcc probe parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from doctor.cli import main
from doctor.findings import Finding, Fix
from doctor.launch import parse_launch
from doctor.pipeline.check import fired_ids
from doctor.pipeline.rules import RuleError, load_rules
from doctor.pipeline.upgrades import annotate_upgrades, known_releases
from doctor.probe.toolkit import parse_nvcc_version
from tests.foundation.test_cli import run
from tests.rules.builders import RULES, build, findings

KIMI = ["check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8"]


@pytest.mark.parametrize("rule_id", sorted(r.id for r in RULES))
def test_explain_exists_for_every_rule(rule_id, capsys):
    assert main(["explain", rule_id.lower()]) == 0
    out = capsys.readouterr().out
    rule = next(r for r in RULES if r.id == rule_id)
    for heading in ("What it detects", "Why it happens", "Fixes", "References"):
        assert heading in out
    assert rule.all_references()[0][:40] in out.replace("\n", "")


def test_explain_names_the_derived_raise_site_finding(capsys):
    from doctor.diagnose.raise_sites import RULE

    assert main(["explain", RULE.lower()]) == 0
    assert "raises a logged error" in capsys.readouterr().out
    assert main(["explain", RULE, "--format", "json"]) == 0
    assert '"severity": "warning"' in capsys.readouterr().out


def test_explain_unknown_rule_is_a_usage_error(capsys):
    assert main(["explain", "SGL999"]) == 2
    assert "SGL101" in capsys.readouterr().err


def test_rules_json_exports_the_registry(capsys):
    assert main(["rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == len(RULES) >= 40
    assert {r["id"] for r in data["rules"]} == {r.id for r in RULES}
    assert all((r["references"] or r["engine_references"]) and r["why"] and r["when"] for r in data["rules"])


def test_rules_filters(capsys):
    assert main(["rules", "--area", "vllm", "--format", "json"]) == 0
    assert {r["area"] for r in json.loads(capsys.readouterr().out)["rules"]} == {"vllm"}
    assert main(["rules", "--area", "SGL", "--severity", "error", "--grep", "shared memory", "--format", "json"]) == 0
    ids = {r["id"] for r in json.loads(capsys.readouterr().out)["rules"]}
    assert "SGL101" in ids and "SGL104" not in ids and all(i.startswith("SGL") for i in ids)


RULE = ('[[rules]]\nid="SGL900"\narea="x"\ntitle="{title}"\nseverity="error"\nsummary="s"\nwhy="w"\n'
        'message="{message}"\nwhen=[{{fact="{fact}", eq=1}}]\nreferences=["r"]\n')


@pytest.mark.parametrize(("title", "message", "fact", "extra", "expected"), [
    ("t", "{gpu.name}", "gpu.count", "", None),
    ("t {gpus.name}", "m", "gpu.count", "", "known context root"),
    ("t", "{item.bytes}", "gpu.count", "", "known context root"),
    ("t", "m", "gpuu.count", "", "known context root"),
    ("t", "m", "gpu.count", '[[rules.fixes]]\nkind="flag"\nsafety="safe"\nsummary="s"\nflags=["--x"]\n', "engine"),
    ("t", "m", "gpu.count", '[[rules.fixes]]\nkind="flag"\nsafety="safe"\nsummary="s"\nengine="sglang"\n'
                             'versions=">>1"\n', "versions"),
    ("t", "m", "gpu.count", '[[rules.fixes]]\nkind="flag"\nsafety="safe"\nsummary="{lib.x.y}"\nengine="sglang"\n'
                             'flags=["--a", "{nope.x}"]\n', "known context root"),
])
def test_validation_of_roots_and_engine_fixes(tmp_path: Path, title, message, fact, extra, expected):
    (tmp_path / "r.toml").write_text(RULE.format(title=title, message=message, fact=fact) + extra)
    if expected is None:
        assert load_rules(tmp_path)[0].id == "SGL900"
    else:
        with pytest.raises(RuleError, match=expected):
            load_rules(tmp_path)


def test_fix_versions_filter_what_a_finding_prints():
    gpt = "openai/gpt-oss-120b"
    forced = ("--moe-runner-backend", "flashinfer_mxfp4")
    on_0513 = findings(build("rtx-pro-6000-x8", gpt, ("sglang==0.5.13",)), *forced)["SGL110"][0]
    on_0511 = findings(build("rtx-pro-6000-x8", gpt, ("sglang==0.5.11",)), *forced)["SGL110"][0]
    assert [f.details["flags"] for f in on_0513.fixes if f.kind == "flag"] == [["--moe-runner-backend", "marlin"]]
    assert [f.details["flags"] for f in on_0511.fixes if f.kind == "flag"] == [
        ["--moe-runner-backend", "triton_kernel"]]


def _lowest(facts, rule_id, *args):
    launch = parse_launch(list(args))
    found = tuple(f for fs in findings(facts, *args).values() for f in fs)
    errors = {rule.id for rule in RULES if rule.severity == "error"}
    annotated = annotate_upgrades(facts, found, lambda what_if: fired_ids(RULES, what_if, launch), errors)
    finding = next(f for f in annotated if f.id == rule_id)
    return [f.details.get("lowest_clearing") for f in finding.fixes if f.kind == "upgrade"]


def test_lowest_clearing_release_is_found_by_rerunning_the_rules():
    kimi = build("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ("sglang==0.5.6",))
    assert _lowest(kimi, "SGL101") == ["0.5.9"]  # 0.5.6 ... 0.5.8.post1 still overflow
    gpt = build("rtx-pro-6000-x8", "openai/gpt-oss-120b", ("sglang==0.5.8",))
    assert _lowest(gpt, "SGL110") == ["0.5.10"]
    glm = build("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", ("vllm==0.14.0",))
    assert _lowest(glm, "VLLM002") == ["0.15.1"]


def test_a_release_that_clears_the_finding_with_a_new_error_is_named_and_passed_over():
    facts = build("rtx-pro-6000-x8", "openai/gpt-oss-120b", ("sglang==0.5.8",))
    finding = Finding("X1", "warning", "t", "m", fixes=(Fix("upgrade", "manual", "Upgrade", {"package": "sglang"}),))
    newer = [r for r in known_releases("sglang")[0] if Version(r) > Version("0.5.8")]

    def fired(what_if):
        release = what_if.libraries["sglang"].version
        return {"X1"} if release == newer[0] else {"E9"} if release in newer[1:3] else set()
    fix = annotate_upgrades(facts, (finding,), fired, {"E9"})[0].fixes[0]
    assert fix.details["lowest_clearing"] == newer[3]
    assert f"{newer[1]} clears it but raises E9; {newer[2]} clears it but raises E9" in fix.summary
    plain = annotate_upgrades(facts, (finding,), lambda what_if: set(), {"E9"})[0].fixes[0]
    assert plain.summary.endswith("that clears this)") and "raises" not in plain.summary


def test_cli_acceptance_reports_launch_command_and_lowest_release():
    result = run(*KIMI, "--engine", "sglang==0.5.8", "--format", "json", "--offline")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    sgl101 = [f for f in report["findings"] if f["id"] == "SGL101"]
    assert sgl101 and "106496" in sgl101[0]["message"] and "101376" in sgl101[0]["message"]
    upgrade = next(f for f in sgl101[0]["fixes"] if f["kind"] == "upgrade")
    assert "lowest release that clears this" in upgrade["summary"] and upgrade["details"]["lowest_clearing"] == "0.5.9"
    launch = report["launch"]
    assert launch["command"].startswith("python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp-size 8")
    assert any("SGL101" in note for note in launch["notes"])
    console = run(*KIMI, "--engine", "sglang==0.5.8", "--offline")
    assert "Launch command (sglang 0.5.8" in console.stdout and "--tp-size 8" in console.stdout


def test_cli_0523_has_no_extend_overflow_and_a_clean_command():
    report = json.loads(run(*KIMI, "--engine", "sglang==0.5.23", "--format", "json", "--offline").stdout)
    assert "SGL101" not in {f["id"] for f in report["findings"]}
    assert not [n for n in report["launch"]["notes"] if "still has error" in n]


@pytest.mark.parametrize(("text", "version"), [
    ("Cuda compilation tools, release 12.8, V12.8.93\nBuild cuda_12.8.r12.8", "12.8.93"),
    ("Cuda compilation tools, release 13.0, V13.0.88", "13.0.88"),
    ("Cuda compilation tools, release 12.9", "12.9"),
    ("command not found", None),
])
def test_nvcc_version_parser(text, version):
    assert parse_nvcc_version(text) == version


def test_nvcc_probe_runs_the_toolkit_named_by_cuda_home(tmp_path: Path):
    from doctor.probe.toolkit import probe_nvcc

    nvcc = tmp_path / "bin" / "nvcc"
    nvcc.parent.mkdir()
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.61'\n")
    nvcc.chmod(0o755)
    found = probe_nvcc({"CUDA_HOME": str(tmp_path), "PATH": ""})
    assert found is not None and (found.name, found.version, found.location) == ("nvcc", "12.8.61", str(nvcc))


def test_llama_server_probe_finds_its_cuda_library(tmp_path: Path):
    from doctor.probe.libraries import probe_llama_cpp

    (tmp_path / "bin").mkdir()
    (tmp_path / "lib").mkdir()
    server = tmp_path / "bin" / "llama-server"
    server.write_text("#!/bin/sh\n")
    server.chmod(0o755)
    (tmp_path / "lib" / "libggml-cuda.so").write_bytes(b"\x7fELF")
    found = probe_llama_cpp({"PATH": str(tmp_path / "bin")})
    assert found is not None and found.name == "llama.cpp"
    assert found.details["cuda_library"] == str(tmp_path / "lib" / "libggml-cuda.so")
    assert probe_llama_cpp({"PATH": str(tmp_path / "lib")}) is None
