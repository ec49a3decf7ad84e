"""The project config: found upward like ruff's, validated, merged under the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from doctor.config import ProjectConfig, discover, find_config, load_config
from doctor.errors import InputError
from tests.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "fixtures" / "launch" / "serve-glm-sglang.sh"


def test_found_upward_pyproject_only_with_the_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.sm120-doctor]\nselect = ["SGL"]\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.other]\nx = 1\n")  # no table: keep looking
    assert find_config(deep) == tmp_path / "pyproject.toml"
    assert discover(deep).select == ("SGL",)


def test_a_dedicated_file_wins_in_its_folder(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.sm120-doctor]\nfail-on = "info"\n')
    (tmp_path / "sm120-doctor.toml").write_text('fail-on = "warning"\nhardware = "rtx-5090"\n')
    config = discover(tmp_path)
    assert (config.fail_on, config.hardware, config.path.name) == ("warning", "rtx-5090", "sm120-doctor.toml")


def test_paths_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "sm120-doctor.toml").write_text('facts = "ci/facts.json"\nbaseline = "base.json"\n')
    config = load_config(tmp_path / "sm120-doctor.toml")
    assert config.facts == tmp_path.resolve() / "ci" / "facts.json"
    assert config.baseline == tmp_path.resolve() / "base.json"


@pytest.mark.parametrize(("text", "message"), [
    ("selct = []", "unknown setting 'selct'"),
    ('fail-on = "sometimes"', "fail-on must be one of"),
    ("select = 3", "select must be a list of strings"),
    ("per-file-ignores = 1", "per-file-ignores must be a table"),
    ("select = [", "not valid TOML"),
])
def test_bad_config_is_one_clear_error(tmp_path, text, message):
    (tmp_path / "sm120-doctor.toml").write_text(text)
    with pytest.raises(InputError, match=message):
        load_config(tmp_path / "sm120-doctor.toml")


def test_select_ignore_prefixes_and_per_file_ignores(tmp_path):
    config = ProjectConfig(select=("SGL", "TOPO001"), ignore=("SGL104",),
                           per_file_ignores=(("legacy/*.sh", ("SGL102",)), ("Dockerfile", ("TOPO",))), root=tmp_path)
    assert config.keeps("SGL102") and config.keeps("TOPO001")
    assert not config.keeps("SGL104") and not config.keeps("MEM001") and not config.keeps("TOPO002")
    assert not config.keeps("SGL102", str(tmp_path / "legacy" / "old.sh"))
    assert config.keeps("SGL102", str(tmp_path / "new" / "old.sh"))
    assert not config.keeps("TOPO001", "deploy/Dockerfile")  # a bare name matches the file name anywhere


def test_a_selector_that_matches_no_rule_is_an_error():
    with pytest.raises(InputError, match="'SGL9' matches no rule"):
        ProjectConfig(select=("SGL9",)).check_selectors(["SGL101", "TOPO001"])


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,
                          env=cli_env(), timeout=180, cwd=cwd)


def test_lint_takes_its_target_gate_and_ignores_from_the_config(tmp_path):
    (tmp_path / "serve.sh").write_text(SCRIPT.read_text())
    (tmp_path / "pyproject.toml").write_text(
        '[tool.sm120-doctor]\nhardware = "rtx-pro-6000-x8"\nengine = ["sglang==0.5.8"]\nfail-on = "info"\n'
        'ignore = ["TOPO"]\n[tool.sm120-doctor.per-file-ignores]\n"serve.sh" = ["SGL104"]\n')
    result = run("lint", "serve.sh", "--offline", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "serve.sh:8: SGL102 error" in result.stdout
    assert "TOPO00" not in result.stdout and "SGL104" not in result.stdout
    # the command line goes on top: --select replaces, --isolated drops the file (and so its hardware)
    only_topo = run("lint", "serve.sh", "--offline", "--select", "TOPO", "--fail-on", "error", cwd=tmp_path)
    assert only_topo.returncode == 0 and "SGL102" not in only_topo.stdout
    isolated = run("lint", "serve.sh", "--offline", "--isolated", cwd=tmp_path)
    assert isolated.returncode == 2 and "needs the target machine" in isolated.stderr


def test_check_reads_the_config_too(tmp_path):
    (tmp_path / "sm120-doctor.toml").write_text('hardware = "rtx-pro-6000-x8"\nengine = ["sglang==0.5.8"]\n'
                                                'ignore = ["SGL102"]\n')
    result = run("check", "zai-org/GLM-4.7-FP8", "--offline", "--format", "json", "--", "--tp", "8", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # FI001 (a warning) rests on the flashinfer-cubin SGLang 0.5.8's wheel pins (doctor/engines/pins.py)
    assert {f["id"] for f in json.loads(result.stdout)["findings"]} == {"SGL104", "TOPO001", "TOPO002", "FI001"}
    broken = tmp_path / "broken.toml"
    broken.write_text("nonsense = 1\n")
    failed = run("check", "zai-org/GLM-4.7-FP8", "--offline", "--config", str(broken), cwd=tmp_path)
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1
