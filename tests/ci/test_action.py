"""The composite Action (action.yml) run the way a runner runs it: each `run:` step as a bash script with its
`env:` expressions evaluated, outputs through $GITHUB_OUTPUT, PATH through $GITHUB_PATH. `uses:` steps
(setup-python, upload-sarif) belong to GitHub and are checked for what they are given, not run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
VENV_BIN = Path(sys.executable).parent


@dataclass
class Runner:
    workspace: Path
    action_path: Path
    inputs: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
    logs: list[subprocess.CompletedProcess] = field(default_factory=list)

    def value(self, expression: str) -> str:
        """The expressions action.yml uses in env values; anything else fails the test."""
        name = expression.strip()
        if name.startswith("inputs."):
            return self.inputs[name.removeprefix("inputs.")]
        if name == "github.action_path":
            return str(self.action_path)
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", name)
        if match:
            return self.outputs.get(match.group(1), {}).get(match.group(2), "")
        raise AssertionError(f"action.yml uses an expression this runner does not know: {expression}")

    def run_step(self, step: dict) -> subprocess.CompletedProcess:
        temp = self.workspace.parent / "runner-temp"
        temp.mkdir(exist_ok=True)
        files = {name: temp / f"{name}-{len(self.logs)}" for name in ("output", "path")}
        for file in files.values():
            file.write_text("")
        env = cli_env(RUNNER_TEMP=str(temp), GITHUB_OUTPUT=str(files["output"]), GITHUB_PATH=str(files["path"]),
                      GITHUB_WORKSPACE=str(self.workspace), GITHUB_SERVER_URL="https://github.com")
        env["PATH"] = os.pathsep.join([*self.path, env["PATH"]])
        for name, value in step.get("env", {}).items():
            env[name] = EXPRESSION.sub(lambda m: self.value(m.group(1)), str(value))
        script = temp / f"step-{len(self.logs)}.sh"
        script.write_text(step["run"])
        # what a runner runs for `shell: bash` (GitHub docs, "jobs.<job_id>.steps[*].shell")
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.workspace,
                                env=env, capture_output=True, text=True, timeout=600)
        self.logs.append(result)
        pairs = (line.split("=", 1) for line in files["output"].read_text().splitlines() if "=" in line)
        self.outputs[step.get("id", step["name"])] = dict(pairs)
        self.path = [*reversed(files["path"].read_text().split()), *self.path]
        return result


def run_action(workspace: Path, install: bool, action_path: Path = REPO, **given: str) -> Runner:
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    runner = Runner(workspace=workspace, action_path=action_path, inputs={**defaults, **given})
    if not install:
        runner.path = [str(VENV_BIN)]  # this checkout's sm120-doctor stands in for the installed one
    for step in ACTION["runs"]["steps"]:
        if "uses" in step or (step["name"] == "Install sm120-doctor" and not install):
            continue
        runner.run_step(step)
    return runner


@pytest.fixture
def workspace(tmp_path):
    shutil.copytree(REPO / "fixtures" / "launch", tmp_path / "ws" / "deploy")
    return tmp_path / "ws"


def test_action_yml_is_a_valid_composite_action_with_no_expressions_in_scripts():
    result = subprocess.run([str(VENV_BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-actions",
                             str(REPO / "action.yml")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ACTION["runs"]["using"] == "composite"
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"{step['name']}: inputs go through env, never into the script"


def test_github_steps_get_the_right_inputs():
    uses = {step["uses"].split("@")[0]: step for step in ACTION["runs"]["steps"] if "uses" in step}
    assert set(uses) == {"actions/setup-python", "github/codeql-action/upload-sarif"}
    upload = uses["github/codeql-action/upload-sarif"]
    assert upload["with"]["sarif_file"] == "${{ steps.run.outputs.sarif-file }}"
    assert "steps.run.outputs.sarif-file != ''" in upload["if"] and "always()" in upload["if"]


def test_lint_annotates_writes_sarif_and_fails(workspace):
    fake_checkout = workspace.parent / "work" / "_actions" / "acme" / "sm120-doctor" / "v1"
    runner = run_action(workspace, install=False, action_path=fake_checkout, paths="deploy",
                        hardware="rtx-pro-6000-x8", engine="sglang==0.5.8")
    run, fail = runner.logs
    assert run.returncode == 0, run.stderr  # the run step records the code; the last step fails the job
    assert runner.outputs["run"] == {"exit-code": "1", "sarif-file": "sm120-doctor.sarif"}
    assert fail.returncode == 1
    assert "::error file=deploy/serve-glm-sglang.sh,line=8,endLine=12,title=SGL102%3A" in run.stdout
    log = json.loads((workspace / "sm120-doctor.sarif").read_text())
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["SGL102"]["helpUri"] == "https://github.com/acme/sm120-doctor/blob/v1/docs/rules/SGL102.md"
    validate = pytest.importorskip("sarif_kit.validate", reason="sarif-kit needs Python >= 3.11")
    assert validate.validation_errors(log) == []


def test_a_clean_launch_passes(workspace):
    runner = run_action(workspace, install=False, paths="deploy/serve-glm-sglang.sh", hardware="rtx-pro-6000-x8",
                        engine="sglang==0.5.23")
    assert runner.outputs["run"]["exit-code"] == "0" and runner.logs[-1].returncode == 0


def test_check_mode_and_bad_inputs(workspace):
    runner = run_action(workspace, install=False, command="check", model="zai-org/GLM-4.7-FP8",
                        hardware="rtx-pro-6000-x8", engine="sglang==0.5.8", args="--offline -- --tp 8",
                        **{"fail-on": "warning"})
    assert runner.outputs["run"]["exit-code"] == "1"
    assert "::error title=SGL102%3A" in runner.logs[0].stdout
    missing = run_action(workspace, install=False, command="check")
    assert missing.logs[0].returncode == 2 and "input model is required" in missing.logs[0].stdout
    assert missing.logs[-1].returncode == 2  # no exit code recorded: the last step fails the job too


@pytest.mark.slow
def test_the_install_step_installs_this_checkout(workspace):
    runner = run_action(workspace, install=True, paths="deploy/k8s", hardware="rtx-pro-6000-x8")
    install, run, fail = runner.logs
    assert install.returncode == 0, install.stderr[-2000:]
    assert runner.path and Path(runner.path[0], "sm120-doctor").exists()
    assert "::error file=deploy/k8s/glm-sglang.yaml,line=19" in run.stdout, run.stderr
    assert fail.returncode == 1
    # the wheel ships the rule pages that SARIF and `explain` link to
    python = Path(runner.path[0], "python")
    code = "from doctor.rule_docs import rule_doc_url; print(rule_doc_url('SGL102'))"
    page = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=workspace,
                          timeout=60).stdout.strip()
    assert page.startswith("file://") and "/site-packages/doctor/_docs/rules/SGL102.md" in page
    assert Path(page.removeprefix("file://")).is_file()
