"""`--driver VERSION` / `--wsl` on the command line: `check --hardware` (one node and `--nodes`) and
`diagnose --hardware` take them, the report says they came from the command line, bad input is one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def doctor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *args, "--offline", "--format", "json"],
                          capture_output=True, text=True, env=cli_env(), timeout=120)


def test_check_states_the_driver_its_cuda_version_and_wsl():
    result = doctor("check", LLAMA, "--hardware", "rtx-5090", "--engine", "vllm==0.24.0", "--driver", "575.64.05",
                    "--wsl")
    report = json.loads(result.stdout)
    assert report["facts"]["driver"]["driver_version"] == "575.64.05"
    assert report["facts"]["driver"]["cuda_driver_version"] is None  # Windows column: 575.64.05 is no Windows release
    assert report["facts"]["host"]["wsl"] is True
    notes = report["facts"]["source"]["notes"]
    assert "host: WSL2 (stated with --wsl)" in notes
    assert any(n.startswith("driver: 575.64.05 (stated with --driver)") for n in notes)
    assert {"WSL020", "VLLM011"} <= {f["id"] for f in report["findings"]}


def test_check_on_several_nodes_states_the_driver_of_each():
    result = doctor("check", LLAMA, "--hardware", "dgx-spark", "--nodes", "2", "--tp", "2", "--engine", "vllm==0.20.0",
                    "--driver", "575.64.05")
    nodes = json.loads(result.stdout)["nodes"]
    assert [n["facts"]["driver"]["cuda_driver_version"] for n in nodes] == ["12.9", "12.9"]


@pytest.mark.parametrize(("args", "says"), [
    (("check", LLAMA, "--hardware", "rtx-5090", "--driver", "banana"), "--driver banana: expected"),
    (("check", LLAMA, "--hardware", "rtx-5090", "--driver", "580"), "--driver 580: expected"),
    (("check", LLAMA, "--hardware", "rtx-5090", "--driver", "580.105.08-closed"),
     "--driver 580.105.08-closed: expected"),
    (("check", LLAMA, "--hardware", "rtx-5090", "--driver", "open595"), "--driver open595: expected"),
    (("check", LLAMA, "--driver", "580.105.08"), "--driver goes with --hardware"),
    (("check", LLAMA, "--wsl"), "--wsl goes with --hardware"),
    (("check", LLAMA, "--facts", "tests/fixtures-missing.json", "--wsl"), "--wsl goes with --hardware"),
    (("diagnose", "-", "--driver", "580.105.08"), "--driver goes with --hardware"),
])
def test_bad_input_is_one_line_and_exit_2(args, says):
    result = doctor(*args)
    assert result.returncode == 2 and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_check_states_the_kernel_modules_flavour_with_the_driver():
    """prathamesh.dev local-llm-blackwell: the proprietary 595 package on an RTX PRO 6000 -> DRV004."""
    report = json.loads(doctor("check", "--hardware", "rtx-pro-6000", "--driver", "595.71.05-proprietary").stdout)
    assert report["facts"]["host"]["nvidia_module"] == "proprietary"
    assert report["facts"]["driver"]["driver_version"] == "595.71.05"
    assert "host: the proprietary NVIDIA kernel module (stated with --driver)" in report["facts"]["source"]["notes"]
    assert "DRV004" in {f["id"] for f in report["findings"]}
    for spelling in ("595.71.05-open", "open"):
        report = json.loads(doctor("check", "--hardware", "rtx-pro-6000", "--driver", spelling).stdout)
        assert report["facts"]["host"]["nvidia_module"] == "open"
        assert "DRV004" not in {f["id"] for f in report["findings"]}
    only = json.loads(doctor("check", "--hardware", "rtx-pro-6000", "--driver", "proprietary").stdout)
    assert only["facts"]["driver"]["driver_version"] is None and "DRV004" in {f["id"] for f in only["findings"]}
    hopper = json.loads(doctor("check", "--hardware", "h100-sxm-x8", "--driver", "595.71.05-proprietary").stdout)
    assert "DRV004" not in {f["id"] for f in hopper["findings"]}


def test_diagnose_keeps_a_logged_driver_and_drops_the_stated_drivers_cuda_version(tmp_path: Path):
    log = tmp_path / "oom.log"
    log.write_text("Driver Version: 570.86.10\ntorch.OutOfMemoryError: CUDA out of memory\n", encoding="utf-8")
    stated = doctor("diagnose", str(log), "--hardware", "rtx-5090", "--driver", "580.105.08", "--wsl")
    diagnosis = json.loads(stated.stdout)
    driver = diagnosis["report"]["facts"]["driver"]
    assert driver["driver_version"] == "570.86.10" and driver["cuda_driver_version"] is None
    assert diagnosis["report"]["facts"]["host"]["wsl"] is True
    assert "--driver 580.105.08 + --wsl" in diagnosis["deployment"]["sources"]["gpus"]


def test_lint_judges_an_image_against_the_stated_driver(tmp_path: Path):
    (tmp_path / "Dockerfile").write_text('FROM vllm/vllm-openai:v0.20.0\nCMD ["vllm", "serve", "' + LLAMA + '"]\n',
                                         encoding="utf-8")

    def ids(*extra: str) -> set[str]:
        result = doctor("lint", str(tmp_path), "--hardware", "rtx-5090", *extra)
        return {f["id"] for launch in json.loads(result.stdout)["launches"] for f in launch["report"]["findings"]}

    assert "IMG003" in ids("--driver", "575.64.05") and "IMG003" not in ids("--driver", "580.65.06")
    assert "IMG003" not in ids()


def test_the_markdown_report_says_the_driver_and_wsl_came_from_the_command_line():
    result = subprocess.run([sys.executable, "-m", "doctor", "check", LLAMA, "--hardware", "rtx-5090", "--driver",
                             "580.105.08", "--wsl", "--offline", "--format", "markdown"],
                            capture_output=True, text=True, env=cli_env(), timeout=120)
    assert "| driver | 580.105.08 (CUDA not known) | --driver |" in result.stdout  # Windows column: no R580 row
    assert "| host | WSL2 | --wsl |" in result.stdout
