"""`--engine ollama` without a release: Ollama evaluated at the first release of each runner and vendored
llama.cpp (doctor/data/llama_cpp/ollama-builds.json), each bringing the llama-server build it runs, and merged
like any engine's unstated releases; a log naming Ollama without its release the same way."""

from __future__ import annotations

import io

import pytest

from doctor.diagnose.diagnosis import diagnose
from doctor.engines import registry
from tests.diagnose.corpus import empty_base
from tests.unstated.test_cli import SPARK, check_json


def test_ollama_may_be_named_without_a_release():
    versioned, unstated = registry.split_engine_specs(["ollama"])
    assert (versioned, unstated) == ([], ["ollama"])
    assert registry.get("ollama").unstated_releases()[:2] == ("0.6.0", "0.6.6")
    assert "ollama" not in registry.engines()  # evaluated through what it runs, never analysed itself


def test_the_merged_report_shows_the_newest_and_scopes_ollamas_findings(capsys: pytest.CaptureFixture[str]):
    document = check_json(capsys, "--engine", "ollama", *SPARK)
    (entry,) = document["releases_evaluated"]
    assert entry["engine"] == "ollama" and entry["shown"] == "0.32.15"
    assert {"0.6.0", "0.13.5", "0.30.0", "0.32.6"} <= set(entry["releases"])
    oll001 = next(f for f in document["findings"] if f["id"] == "OLL001")  # 0.30.0-0.32.1 only: a warning
    assert oll001["severity"] == "warning" and "Ollama 0.30.0-0.31.2 of" in oll001["message"]
    assert oll001["evidence"]["releases_firing"][0] == "0.30.0"


def test_a_discrete_gpu_gets_no_gb10_finding(capsys: pytest.CaptureFixture[str]):
    document = check_json(capsys, "--engine", "ollama", "--hardware", "rtx-5090", "--offline")
    assert "OLL001" not in {f["id"] for f in document["findings"]}


def test_a_log_naming_ollama_without_its_release():
    log = (b'time=2026-06-08T10:00:00.000Z level=INFO source=types.go:42 msg="inference compute" id=GPU-1 '
           b'library=CUDA compute=12.1 name=CUDA0 description="NVIDIA GB10" libdirs=ollama,cuda_v13 '
           b'driver=13.0 pci_id=000f:01:00.0 type=iGPU total="119.7 GiB" available="110.2 GiB"\n')
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "nothing (test)", {})
    evaluated = diagnosis.report.releases_evaluated
    assert evaluated and evaluated[0]["engine"] == "ollama"


def test_the_server_config_line_states_ollamas_settings():
    """ollama#11471's `server config` line (verbatim head): set knobs become env facts, empty ones stay unset."""
    line = (b'time=2025-07-18T12:33:42.475-04:00 level=INFO source=routes.go:1235 msg="server config" '
            b'env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION: '
            b'HTTPS_PROXY: HTTP_PROXY: NO_PROXY: OLLAMA_CONTEXT_LENGTH:4096 OLLAMA_DEBUG:INFO '
            b'OLLAMA_FLASH_ATTENTION:true OLLAMA_GPU_OVERHEAD:0 OLLAMA_HOST:http://127.0.0.1:11434 '
            b'OLLAMA_INTEL_GPU:false OLLAMA_KEEP_ALIVE:5m0s OLLAMA_KV_CACHE_TYPE:q8_0 OLLAMA_LLM_LIBRARY: '
            b'OLLAMA_NEW_ENGINE:true OLLAMA_NUM_PARALLEL:4]"\n')
    from doctor.diagnose.read import reader_for

    facts = reader_for().read(io.BufferedReader(io.BytesIO(line)), "t").facts
    env = {name: stated.value for name, stated in facts.env.items()}
    assert env["OLLAMA_FLASH_ATTENTION"] == "true" and env["OLLAMA_KV_CACHE_TYPE"] == "q8_0"
    assert env["OLLAMA_NUM_PARALLEL"] == "4" and env["OLLAMA_CONTEXT_LENGTH"] == "4096"
    assert "OLLAMA_LLM_LIBRARY" not in env and "CUDA_VISIBLE_DEVICES" not in env
