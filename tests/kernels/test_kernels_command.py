import json
import subprocess
import sys

import pytest

from tests.conftest import cli_env
from tests.wheels import cache_root


def run(*args):
    env = cli_env(SM120_DOCTOR_CACHE=str(cache_root() / "doctor-cache"))
    return subprocess.run([sys.executable, "-m", "doctor", "kernels", *args], capture_output=True, text=True,
                          env=env, timeout=900)


def test_glm_fp8_on_058_lists_the_overflowing_moe_default():
    result = run("zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8",
                 "--format", "json")
    assert result.returncode == 1, result.stderr
    moe = [k for k in json.loads(result.stdout)["kernels"] if k["kernel"] == "fused_moe"]
    assert sorted(k["bytes"] for k in moe) == [73728, 147456]
    assert all(k["method"] == "analytic" for k in moe)


def test_bad_tp_is_one_line():
    result = run("zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--tp", "0")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.wheel
def test_exact_equals_the_closed_form_for_kimi_and_glm():
    for model in ("moonshotai/Kimi-K2.5", "zai-org/GLM-4.7-FP8"):
        common = (model, "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8", "--format", "json")
        analytic = json.loads(run(*common).stdout)["kernels"]
        exact = run(*common, "--exact", "--triton", "3.5.1")
        assert exact.stdout, exact.stderr
        exact_rows = json.loads(exact.stdout)["kernels"]
        assert [k["method"] for k in exact_rows] == ["exact"] * len(analytic)
        assert [k["bytes"] for k in exact_rows] == [k["bytes"] for k in analytic], model
