"""A pasted launch command's own variables (`VAR=VALUE vllm serve ...`) are the engine's environment: the rules
that read the environment judge them as if they were exported."""

from __future__ import annotations

import json
import subprocess
import sys

from doctor.engines.infer import infer_engine, launch_env
from tests.conftest import cli_env

FORCED = "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1"


def check(*launch: str) -> set[str]:
    result = subprocess.run([sys.executable, "-m", "doctor", "check", "openai/gpt-oss-120b", "--hardware",
                             "dgx-spark", "--engine", "vllm==0.22.0", "--offline", "--format", "json", "--",
                             *launch], capture_output=True, text=True, env=cli_env(), timeout=300)
    assert result.returncode in (0, 1), result.stderr
    return {finding["id"] for finding in json.loads(result.stdout)["findings"]}


def test_leading_assignments_are_the_launch_environment():
    assert launch_env([FORCED, "A=", "vllm", "serve", "B=2"]) == {"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "1", "A": ""}
    assert launch_env(["env", "X=1", "vllm", "serve"]) == {"X": "1"}
    assert launch_env(["vllm", "serve", "X=1"]) == {}
    assert launch_env([]) == {}


def test_env_prefix_still_names_the_engine():
    inferred = infer_engine(["env", FORCED, "vllm", "serve", "openai/gpt-oss-120b", "--max-model-len", "8192"])
    assert inferred is not None and inferred.engine == "vllm" and inferred.model == "openai/gpt-oss-120b"


def test_a_variable_set_on_the_pasted_command_fires_the_rule_that_reads_it():
    assert "VLLM251" in check(FORCED, "vllm", "serve", "openai/gpt-oss-120b")
    assert "VLLM251" not in check("vllm", "serve", "openai/gpt-oss-120b")
