"""A vLLM check names vLLM's formula and never SGLang's (console and JSON)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO, cli_env


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True, env=cli_env(),
                          cwd=REPO, timeout=120)


def test_vllm_check_never_shows_sglang():
    args = ("check", "openai/gpt-oss-120b", "--hardware", "rtx-pro-6000-x8", "--engine", "vllm==0.15.1", "--offline")
    console = run(*args)
    assert console.returncode in (0, 1), console.stderr
    assert "memory plan (vLLM 0.15.1)" in console.stdout and "SGLang" not in console.stdout
    report = json.loads(run(*args, "--format", "json").stdout)
    [analysis] = report["analyses"]
    assert analysis["plan"]["engine"] == "vLLM" and "SGLang" not in json.dumps(analysis)
    assert "vllm serve openai/gpt-oss-120b" in report["launches"][0]["command"]
