"""Positive and boundary cases for the sweepH rules (rules/sweepH.toml); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import a, build

PRO, SPARK, H100 = "rtx-pro-6000", "dgx-spark", "h100-sxm-x8"
NEMOTRON_SUPER = "tests/knowngood/models/nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
PREFIX = ("--enable-prefix-caching",)
SHORT, LONG = ("--max-model-len", "8192"), ("--max-model-len", "16384")


def vl(version, profile=PRO, model=NEMOTRON_SUPER):
    return lambda: build(profile, model, engines=(f"vllm=={version}",))


SWEEPH_CASES = [
    a("VLLM590", True, "0.23.0, Nemotron-3-Super NVFP4, 8192-token context under the 8320-token block (vllm#48401)",
      vl("0.23.0"), *PREFIX, *SHORT),
    a("VLLM590", True, "0.21.0: the first release read with the same block alignment and full-block hashing",
      vl("0.21.0"), *PREFIX, *SHORT),
    a("VLLM590", True, "0.25.0: the last release before hybrid prefix caching turned default-on", vl("0.25.0"),
      *PREFIX, *SHORT),
    a("VLLM590", True, "DGX Spark (12.1), same deployment", vl("0.23.0", SPARK), *PREFIX, *SHORT),
    a("VLLM590", False, "a 16384-token context holds a whole 8320-token block", vl("0.23.0"), *PREFIX, *LONG),
    a("VLLM590", False, "no --enable-prefix-caching: 0.23.0 leaves it off for hybrid models", vl("0.23.0"), *SHORT),
    a("VLLM590", False, "0.20.0: not read", vl("0.20.0"), *PREFIX, *SHORT),
    a("VLLM590", False, "0.26.0: hybrid prefix caching default-on, hashing not read", vl("0.26.0"), *PREFIX, *SHORT),
    a("VLLM590", False, "a dense model has no recurrent-state block", vl("0.23.0", model=LLAMA), *PREFIX,
      "--max-model-len", "1024"),
    a("VLLM590", False, "Hopper: outside this doctor's scope", vl("0.23.0", H100), *PREFIX, *SHORT),
]
