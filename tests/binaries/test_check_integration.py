"""`check` reads the engine packages' fatbins and turns the verdicts into BIN001/BIN002 findings."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doctor.hardware import load_profile
from doctor.launch import parse_launch
from doctor.pipeline.analysis import analyze
from doctor.pipeline.context import build_context
from doctor.pipeline.facts import Library
from doctor.pipeline.rules import evaluate, load_rules
from tests.conftest import cli_env


def fake_vllm_site(root: Path, extensions: dict[str, Path]) -> Path:
    """A site-packages with a `vllm` distribution whose extensions are real nvcc-built libraries."""
    site = root / "site"
    package = site / "vllm"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    records = ["vllm/__init__.py,,"]
    for name, built in extensions.items():
        shutil.copy(built, package / name)
        records.append(f"vllm/{name},,")
    info = site / "vllm-0.10.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 0.10.0\n")
    (info / "RECORD").write_text("\n".join(records) + "\n")
    return site


def run_check(site: Path, profile: str) -> dict:
    env = cli_env(PYTHONPATH=f"{site}:{cli_env()['PYTHONPATH']}")
    result = subprocess.run([sys.executable, "-m", "doctor", "check", "--hardware", profile, "--format", "json",
                             "--fail-on", "never"], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_extension_without_sm120_code_is_an_error(built, tmp_path):
    site = fake_vllm_site(tmp_path, {"_C.abi3.so": built["sm90"], "_moe_C.abi3.so": built["sm120f"]})
    report = run_check(site, "rtx-pro-6000-x8")
    vllm = next(b for b in report["analysis"]["binaries"] if b["package"] == "vllm")
    assert vllm["verdict"] == "none" and vllm["none_files"] == ["vllm/_C.abi3.so"]
    finding = next(f for f in report["findings"] if f["id"] == "BIN001")
    assert "vllm/_C.abi3.so" in finding["message"]
    # the same install on an H100 runs natively: no finding
    assert not [f for f in run_check(site, "h100-sxm-x8")["findings"] if f["id"].startswith("BIN")]


def test_ptx_only_extension_is_a_warning(built, tmp_path):
    site = fake_vllm_site(tmp_path, {"_vllm_fa2_C.abi3.so": built["ptx80"]})
    ids = {f["id"]: f for f in run_check(site, "rtx-5090")["findings"]}
    assert "BIN002" in ids and "BIN001" not in ids
    assert ids["BIN002"]["severity"] == "warning"


def findings(binaries: list[dict]) -> set[str]:
    facts = load_profile("dgx-spark").replace(libraries={"vllm": Library(
        name="vllm", version="0.10.0", details={"cuda_binaries": binaries})})
    launch = parse_launch([])
    return {f.id for f in evaluate(load_rules(), build_context(facts, analyze(facts, launch), launch))}


def entry(path: str, sass: list[str], ptx: list[str]) -> dict:
    return {"path": path, "sass": sass, "ptx": ptx, "format": "elf", "modules": 1, "rdc_ptx": [], "size": 1,
            "error": None}


@pytest.mark.parametrize(("binaries", "expected"), [
    ([entry("a.so", ["sm_120"], [])], set()),                       # sm_120 SASS runs on 12.1 (same major)
    ([entry("a.so", ["sm_120f"], [])], set()),                      # family build
    ([entry("a.so", ["sm_120a"], [])], {"BIN001"}),                 # 120a is not 121
    ([entry("a.so", ["sm_100a"], []), entry("b.so", ["sm_121a"], [])], set()),  # deliberate other-GPU build
    ([entry("a.so", ["sm_90"], ["compute_90"])], {"BIN002"}),
    ([entry("a.so", ["sm_90"], [])], {"BIN001"}),
])
def test_verdicts_for_gb10(binaries, expected):
    assert findings(binaries) & {"BIN001", "BIN002"} == expected


def test_check_survives_link_loops_dangling_links_and_fifos(built, tmp_path):
    """Issue 15, point 7: a self-looping `.so` link gave `internal error: OSError [Errno 40]`."""
    import os

    site = fake_vllm_site(tmp_path, {"_C.abi3.so": built["sm120f"]})
    os.symlink("_loop.abi3.so", site / "vllm" / "_loop.abi3.so")
    os.symlink("gone.so", site / "vllm" / "_dangling.abi3.so")
    os.mkfifo(site / "vllm" / "_fifo.abi3.so")
    report = run_check(site, "rtx-pro-6000-x8")
    vllm = next(b for b in report["analysis"]["binaries"] if b["package"] == "vllm")
    assert vllm["verdict"] == "native"
