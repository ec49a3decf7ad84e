"""`diagnose LOG --hardware PROFILE` judges someone else's log: the libraries and environment variables are the
log's and --engine's, never those of the Python environment diagnose runs in, unless `--local-env` says the log
was written here. VLLM430 (no ray beside vLLM) is the probe: a venv that has ray must not contradict it."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from doctor.pipeline import gather
from doctor.pipeline.facts import Library

RAY_LOG = """INFO 09-14 10:00:01 [api_server.py:1034] vLLM API server version 0.27.1
INFO 09-14 10:00:01 [cuda.py] GPU: NVIDIA GB10, compute capability 12.1
ValueError: Failed to import Ray: No module named 'ray'.Please install Ray with `pip install ray`.
"""


@pytest.fixture
def local_ray(monkeypatch):
    """This machine's Python environment has ray (and sets MAX_JOBS), whatever the test venv really holds."""
    ray = Library(name="ray", version="2.60.0", location="/local/site-packages")
    monkeypatch.setattr(gather, "installed_libraries", lambda environ: {"ray": ray})
    monkeypatch.setenv("MAX_JOBS", "7")


def _diagnose(capsys, tmp_path, *args: str) -> tuple[int, dict]:
    log = tmp_path / "ray.log"
    log.write_text(RAY_LOG, encoding="utf-8")
    code = main(["diagnose", str(log), *args, "--format", "json", "--fail-on", "never"])
    return code, json.loads(capsys.readouterr().out)


def test_a_profile_does_not_read_the_local_libraries(capsys, tmp_path, local_ray):
    _, doc = _diagnose(capsys, tmp_path, "--hardware", "dgx-spark")
    assert [e["rule"] for e in doc["explanations"]][:1] == ["VLLM430"]
    assert not [r for r in doc.get("ruled_out", []) if r["rule"] == "VLLM430"]
    assert "ray" not in doc["report"]["facts"]["libraries"]
    assert "MAX_JOBS" not in doc["report"]["facts"]["env"]


def test_local_env_reads_this_machine(capsys, tmp_path, local_ray):
    _, doc = _diagnose(capsys, tmp_path, "--hardware", "dgx-spark", "--local-env")
    assert "VLLM430" not in [e["rule"] for e in doc["explanations"]]
    assert [r["rule"] for r in doc["ruled_out"]] == ["VLLM430"] and "lib.ray" in doc["ruled_out"][0]["reason"]


def test_engine_what_ifs_still_count_under_a_profile(capsys, tmp_path, local_ray):
    _, doc = _diagnose(capsys, tmp_path, "--hardware", "dgx-spark", "--engine", "flashinfer-python==0.6.12")
    libraries = doc["report"]["facts"]["libraries"]
    assert libraries["flashinfer-python"]["version"] == "0.6.12" and "ray" not in libraries


def test_local_env_without_a_profile_is_one_line(capsys, tmp_path):
    log = tmp_path / "ray.log"
    log.write_text(RAY_LOG, encoding="utf-8")
    assert main(["diagnose", str(log), "--local-env"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--local-env goes with --hardware" in err
