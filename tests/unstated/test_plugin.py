"""A plug-in engine (the example, LMDeploy) joins both: `--engine lmdeploy` is evaluated at every release its
knowledge covers, and its flag table (the default `Engine.accepts_launch`) lets the doctor infer it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, cli_env
from tests.schemas import validate

PLUGIN_SRC = REPO / "examples" / "engine-plugin" / "src"
MODEL = "Qwen/Qwen3-30B-A3B"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plug-in's dist-info with its entry point; lmdeploy itself not installed."""
    root = tmp_path_factory.mktemp("site")
    plugin = root / "sm120_doctor_lmdeploy-0.1.0.dist-info"
    plugin.mkdir()
    (plugin / "METADATA").write_text("Metadata-Version: 2.1\nName: sm120-doctor-lmdeploy\nVersion: 0.1.0\n")
    (plugin / "entry_points.txt").write_text("[sm120_doctor.engines]\nlmdeploy = lmdeploy_doctor.engine:LMDeploy\n")
    return root


def report(site: Path, *args: str) -> dict:
    cut = args.index("--") if "--" in args else len(args)
    env = cli_env(PYTHONPATH=f"{site}:{PLUGIN_SRC}:{REPO}", SM120_DOCTOR_CACHE=str(site / "cache"))
    done = subprocess.run([sys.executable, "-m", "doctor", "check", *args[:cut], "--offline", "--format", "json",
                           *args[cut:]], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    validate("report", data)
    return data


def test_a_plugin_named_without_a_release_is_evaluated_at_its_releases(site):
    data = report(site, MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy")
    [entry] = data["releases_evaluated"]
    assert entry["engine"] == "lmdeploy" and {"0.9.2", "0.12.3", "0.13.0", "0.16.0"} <= set(entry["releases"])
    # LMD001 (an error at the CUDA 12.x builds before 0.13.0) holds for some releases only: a warning
    lmd001 = next(f for f in data["findings"] if f["id"] == "lmdeploy/LMD001")
    assert lmd001["severity"] == "warning" and "this holds for LMDeploy 0.9.2-0.12.3" in lmd001["message"]
    assert any(fix["details"].get("lowest_clearing") == "0.13.0" for fix in lmd001["fixes"])


def test_a_plugins_flag_table_lets_the_doctor_infer_it(site):
    data = report(site, MODEL, "--hardware", "rtx-5090", "--", "--cache-max-entry-count", "0.5")
    assert [(e["engine"], e["how"]) for e in data["releases_evaluated"]] == [("lmdeploy", "flags")]
    pasted = report(site, MODEL, "--hardware", "rtx-5090", "--", "lmdeploy", "serve", "api_server", MODEL,
                    "--backend", "pytorch")
    assert [(e["engine"], e["how"]) for e in pasted["releases_evaluated"]] == [("lmdeploy", "command")]
