"""`sm120-doctor lint` as a user runs it: exit codes, the finding at the launch's file and line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import cli_env
from tests.schemas import validate

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "launch"
PRO = ("--hardware", "rtx-pro-6000-x8")


def lint(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", "lint", *args, "--offline"], capture_output=True,
                          text=True, env=cli_env(), timeout=180, cwd=cwd)


def validate_lint(document: dict) -> None:
    """Against lint.schema.json, whose launches' reports are checked against report.schema.json."""
    validate("lint", document)


def test_the_lint_schema_rejects_a_broken_report():
    document = {"schema_version": "1", "tool": {"name": "sm120-doctor", "version": "0"}, "problems": [],
                "summary": {"error": 0, "warning": 0, "info": 0, "total": 0, "launches": 1, "problems": 0,
                            "files": 1, "suppressed": 0, "accepted": 0},
                "launches": [{"file": "a.sh", "line": 1, "end_line": 1, "engine": "vllm", "version": None,
                              "version_source": "x", "model": None, "argv": [], "engine_args": [], "notes": [],
                              "fingerprints": [], "report": {"schema_version": "1"}}]}
    with pytest.raises(jsonschema.ValidationError):
        validate_lint(document)


def finding_lines(stdout: str, rule: str) -> list[str]:
    return [line.split(f": {rule} ")[0] for line in stdout.splitlines() if f": {rule} " in line]


def test_acceptance_glm_launch_script_on_sglang_058_fails_at_the_launch_line():
    result = lint("fixtures/launch/serve-glm-sglang.sh", *PRO, "--engine", "sglang==0.5.8")
    assert result.returncode == 1, result.stderr
    assert finding_lines(result.stdout, "SGL102") == ["fixtures/launch/serve-glm-sglang.sh:8"]
    assert "147456" in result.stdout and "101376" in result.stdout


def test_the_same_script_on_sglang_0523_passes():
    result = lint("fixtures/launch/serve-glm-sglang.sh", *PRO, "--engine", "sglang==0.5.23")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not finding_lines(result.stdout, "SGL102")


@pytest.mark.parametrize(("name", "line"), [
    ("docker-compose.yml", 10), ("k8s/glm-sglang.yaml", 19), ("k8s/glm-sglang-shell.yaml", 15),
    ("Dockerfile", 7), ("sglang-glm.service", 7),
])
def test_compose_kubernetes_dockerfile_and_systemd_launches_fail_at_their_line(name, line):
    extra = () if name.endswith(("yml", "yaml", "Dockerfile")) else ("--engine", "sglang==0.5.8")  # pinned in file
    result = lint(f"fixtures/launch/{name}", *PRO, *extra)
    assert result.returncode == 1, result.stderr
    assert f"fixtures/launch/{name}:{line}" in finding_lines(result.stdout, "SGL102")


def test_a_file_pin_wins_over_engine_and_json_embeds_valid_reports():
    result = lint("fixtures/launch/docker-compose.yml", *PRO, "--engine", "sglang==0.5.23", "--format", "json")
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    sglang, vllm = document["launches"]
    assert (sglang["line"], sglang["version"], sglang["version_source"]) == (
        10, "0.5.8", "image lmsysorg/sglang:v0.5.8-cu129 (line 4)")
    assert (vllm["engine"], vllm["version"]) == ("vllm", "0.14.0")
    assert "VLLM002" in {f["id"] for f in vllm["report"]["findings"]}
    validate_lint(document)
    for launch in document["launches"]:
        assert len(launch["fingerprints"]) == len(launch["report"]["findings"])
    assert document["summary"]["files"] == 1 and document["summary"]["launches"] == 2


def test_github_format_annotates_the_launch_line():
    result = lint("fixtures/launch/k8s/glm-sglang.yaml", *PRO, "--format", "github")
    assert result.returncode == 1
    error = next(line for line in result.stdout.splitlines() if line.startswith("::error "))
    assert error.startswith("::error file=fixtures/launch/k8s/glm-sglang.yaml,line=19,endLine=26,title=SGL102%3A ")


def test_inline_suppression_and_fail_on(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("# sm120-doctor: ignore[SGL102]\npython3 -m sglang.launch_server --model-path "
                      "zai-org/GLM-4.7-FP8 --tp 8\n")
    quiet = lint(str(script), *PRO, "--engine", "sglang==0.5.8")
    assert quiet.returncode == 0, quiet.stdout
    assert "SGL102" not in quiet.stdout and "1 suppressed" in quiet.stdout
    strict = lint(str(script), *PRO, "--engine", "sglang==0.5.8", "--fail-on", "info")
    assert strict.returncode == 1


def test_a_launch_that_cannot_be_analysed_is_exit_2_with_its_line(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("echo hi\nvllm serve ./no-such-local-model --tensor-parallel-size 2\n")
    result = lint(str(script), *PRO, "--engine", "vllm==0.15.1")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "serve.sh:2:" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("fixtures/launch/Dockerfile",), "needs the target machine"),
    (("missing.sh", *PRO), "no such file"),
    (("fixtures/launch/Dockerfile", *PRO, "--select", "SGL9"), "matches no rule"),
    (("fixtures/launch/Dockerfile", *PRO, "--update-baseline"), "--update-baseline needs --baseline"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = lint(*args)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_invalid_yaml_is_exit_2(tmp_path):
    (tmp_path / "compose.yaml").write_text("services: {a: [\n")
    result = lint(str(tmp_path / "compose.yaml"), *PRO)
    assert result.returncode == 2 and "not valid YAML" in result.stderr


def test_files_without_launches_pass_with_a_note(tmp_path):
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    result = lint(str(tmp_path), *PRO)
    assert result.returncode == 0 and "no engine launch found in 1 file(s)" in result.stderr
    empty = lint(str(tmp_path), *PRO, "--format", "json")
    validate_lint(json.loads(empty.stdout))


def test_a_folder_is_linted_from_inside_it(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "launch")
    result = lint("launch", *PRO, "--engine", "sglang==0.5.8", "--format", "json", cwd=tmp_path)
    assert result.returncode == 1
    files = {(launch["file"], launch["line"]) for launch in json.loads(result.stdout)["launches"]}
    assert ("launch/k8s/glm-sglang-shell.yaml", 15) in files and len(files) == 7
