"""The pre-commit hook (.pre-commit-hooks.yaml): a valid manifest by pre-commit's own validator, its `files`
pattern picks launch files, and its entry run on them the way pre-commit runs it fails on the bad launches."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "launch"


@pytest.fixture(scope="module")
def hook() -> dict:
    from pre_commit.clientlib import load_manifest

    [only] = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    return only


def selected(hook: dict, names: list[str]) -> list[str]:
    files, exclude = re.compile(hook["files"]), re.compile(hook["exclude"])
    return [n for n in names if files.search(n) and not exclude.search(n)]


def run_entry(hook: dict, files: list[str], args: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    argv = [*shlex.split(hook["entry"]), *hook["args"], *args, *files]
    env = cli_env()
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_files_pattern_picks_launch_files(hook):
    names = ["deploy/serve.sh", "Dockerfile", "docker/Dockerfile.gpu", "x/app.dockerfile", "docker-compose.yml",
             "k8s/deploy.yaml", "sglang.service", "README.md", "app.py", "docs/Dockerfiles.md"]
    assert selected(hook, names) == names[:7]
    assert hook["language"] == "python" and hook["pass_filenames"] is True


def test_the_entry_fails_on_the_fixture_launches_at_their_lines(hook):
    files = selected(hook, sorted(p.relative_to(REPO).as_posix() for p in FIXTURES.rglob("*") if p.is_file()))
    assert len(files) == 6
    result = run_entry(hook, files, ("--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8", "--offline"),
                       REPO)
    assert result.returncode == 1, result.stderr
    for where in ("serve-glm-sglang.sh:8", "docker-compose.yml:10", "k8s/glm-sglang.yaml:19", "Dockerfile:7",
                  "sglang-glm.service:7", "k8s/glm-sglang-shell.yaml:15"):
        assert f"fixtures/launch/{where}: SGL102 error" in result.stdout


def test_the_entry_takes_the_target_from_the_project_config(hook, tmp_path):
    shutil.copy(FIXTURES / "serve-glm-sglang.sh", tmp_path / "serve.sh")
    (tmp_path / "values.yaml").write_text("replicas: 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.sm120-doctor]\nhardware = "rtx-pro-6000-x8"\n'
                                             'engine = ["sglang==0.5.23"]\n')
    clean = run_entry(hook, ["serve.sh", "values.yaml"], ("--offline",), tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.sm120-doctor]\nhardware = "rtx-pro-6000-x8"\n'
                                             'engine = ["sglang==0.5.8"]\n')
    failing = run_entry(hook, ["serve.sh"], ("--offline",), tmp_path)
    assert failing.returncode == 1 and "serve.sh:8: SGL102 error" in failing.stdout
