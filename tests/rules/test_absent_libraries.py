"""A rule that needs a library NOT installed (`{ fact = "lib.NAME", exists = false }`) can promise that only where the
doctor read the engine's own environment: with the engine stated as a what-if (`--engine vllm==X`, not installed
here) the libraries read here are not its environment's, so such an error is held to a warning that says so."""

from __future__ import annotations

from tests.rules.builders import build, findings, lib

DSV32 = "deepseek-ai/DeepSeek-V3.2"


def _dg010(facts):
    return findings(facts)["DG010"][0]


def test_an_absence_in_a_what_if_is_assumed_and_held_to_a_warning():
    finding = _dg010(build("dgx-spark", DSV32, ("vllm==0.27.1",)))
    assert finding.severity == "warning"
    assert "Assumed, not seen: no deep-gemm installed beside vllm" in finding.message


def test_an_absence_in_the_engines_own_environment_keeps_the_error():
    finding = _dg010(build("dgx-spark", DSV32, libs=(lib("vllm", "0.27.1"),)))
    assert finding.severity == "error"
    assert "Assumed, not seen" not in finding.message


def test_an_installed_deep_gemm_is_what_vllm_imports():
    facts = build("dgx-spark", DSV32, libs=(lib("vllm", "0.27.1"), lib("deep-gemm", "2.3.0")))
    assert "DG010" not in findings(facts)
