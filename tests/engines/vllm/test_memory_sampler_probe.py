"""The vLLM memory model takes the sampler path from what the probe saw installed (flashinfer-python decides
it up to 0.23); a what-if vLLM gets a plain pip install's answer."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.run import EngineRun
from doctor.engines.vllm.engine import VLLM
from doctor.launch import Launch
from doctor.pipeline.facts import Library
from tests.rules.builders import build


def _memory(libs: tuple[Library, ...]):
    facts = build("rtx-pro-6000-x8", "openai/gpt-oss-20b", libs=libs)
    vllm = facts.library("vllm")
    run = EngineRun(facts=facts, library=vllm, version=Version(vllm.version), launch=Launch())
    return VLLM().memory_model(run)


@pytest.mark.parametrize(("libs", "expected"), [
    ((Library("vllm", "0.11.0", location="/site"), Library("flashinfer-python", "0.4.0", location="/site")), True),
    ((Library("vllm", "0.11.0", location="/site"),), False),
    ((Library("vllm", "0.11.0", what_if=True), Library("flashinfer-python", "0.4.0", location="/site")), None),
])
def test_flashinfer_seen_by_the_probe_reaches_the_memory_model(libs, expected):
    assert _memory(libs).flashinfer_installed is expected
