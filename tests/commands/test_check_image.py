"""`check --image REF`: the image a launch runs in, read as `lint` reads it (doctor/engines/images.py): its engine
build and pinned libraries become what-ifs unless --engine names the package, and the image rules judge it."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import cli_env


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", "check", "--hardware", "dgx-spark", "--format", "json",
                           *args], capture_output=True, text=True, env=cli_env(), timeout=120)


def _libraries(result: subprocess.CompletedProcess) -> dict[str, str]:
    report = json.loads(result.stdout)
    return {name: lib.get("version") for name, lib in report["facts"]["libraries"].items()}


def _ids(result: subprocess.CompletedProcess) -> set[str]:
    return {f["id"] for f in json.loads(result.stdout)["findings"]}


def test_community_image_pins_its_vllm_build_and_its_kv_dtype_is_not_refused():
    result = check("--image", "ghcr.io/anemll/dspark-vllm-gx10:0.1.1", "--", "--tensor-parallel-size", "2",
                   "--kv-cache-dtype", "nvfp4_ds_mla")
    assert result.returncode == 0, result.stderr
    assert _libraries(result)["vllm"] == "0.25.2.dev0+g752a3a504.d20260714"
    assert "VLLM013" not in _ids(result)


def test_an_engine_the_user_names_wins_over_the_image_pin():
    result = check("--image", "ghcr.io/aeon-7/aeon-vllm-ultimate:2026-08-16-v0.27.1", "--engine", "vllm==0.27.1")
    libraries = _libraries(result)
    assert libraries["vllm"] == "0.27.1" and libraries["flashinfer-python"] == "0.6.16.post3"


def test_a_floating_image_is_judged_and_an_untracked_one_is_a_usage_error():
    assert "IMG001" in _ids(check("--image", "vllm/vllm-openai:latest", "--engine", "vllm==0.27.1"))
    result = check("--image", "ubuntu:22.04")
    assert result.returncode == 2 and "--image ubuntu:22.04" in result.stderr and "Traceback" not in result.stderr


def test_an_engine_named_without_a_release_takes_the_image_pin():
    # heldout13 F5's spelling: the image states the release `--engine vllm` leaves open (it exited 2 before)
    result = check("--image", "ghcr.io/aeon-7/aeon-vllm-ultimate:2026-08-16-v0.27.1", "--engine", "vllm")
    assert result.returncode in (0, 1), result.stderr
    assert _libraries(result)["vllm"] == "0.27.1+aeon.sm121a.dspark"  # the image's own build, not every release
    assert "Release not stated" not in result.stdout


def test_an_engine_the_image_does_not_pin_stays_unversioned():
    result = check("--image", "ghcr.io/aeon-7/aeon-vllm-ultimate:2026-08-16-v0.27.1", "--engine", "sglang")
    assert result.returncode in (0, 1), result.stderr
    assert _libraries(result)["vllm"] == "0.27.1+aeon.sm121a.dspark"
