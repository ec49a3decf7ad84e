"""Positive and boundary cases for rules/spentC.toml (task spentC: the spent eleventh held-out sample's
expressible rows). test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

PRO4500, R5090, SPARK = "rtx-pro-4500", "rtx-5090", "dgx-spark"
GDN = "Qwen/Qwen3.6-27B"  # Gated DeltaNet + attention (qwen3_5)
MAMBA2 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"  # Mamba2 + attention (nemotron_h)
DENSE = "meta-llama/Llama-3.1-8B-Instruct"  # attention only


def vllm(version: str = "0.20.0", profile: str = PRO4500, model: str | None = GDN) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"vllm=={version}",))


TQ = ("--kv-cache-dtype", "turboquant_4bit_nc")

VLLM480_CASES = [
    # vllm#39931: 0.20.x arg_utils.py raises NotImplementedError for turboquant_* on is_hybrid models
    a("VLLM480", True, "0.20.0, Qwen3.6-27B (GDN hybrid), turboquant_4bit_nc", vllm(), *TQ),
    a("VLLM480", True, "0.20.2, the last 0.20 release (same check)", vllm("0.20.2"), *TQ),
    a("VLLM480", True, "another TurboQuant dtype", vllm(), "--kv-cache-dtype", "turboquant_k8v4"),
    a("VLLM480", True, "a Mamba2 hybrid (Nemotron-3-Nano)", vllm(model=MAMBA2), *TQ),
    a("VLLM480", True, "RTX 5090: not GPU-specific", vllm(profile=R5090), *TQ),
    a("VLLM480", True, "DGX Spark (12.1)", vllm(profile=SPARK), *TQ),
    a("VLLM480", False, "0.21.0 supports hybrid models (vllm#39931)", vllm("0.21.0"), *TQ),
    a("VLLM480", False, "0.19.1: no TurboQuant at all (not this check)", vllm("0.19.1"), *TQ),
    a("VLLM480", False, "an attention-only model", vllm(model=DENSE), *TQ),
    a("VLLM480", False, "fp8 KV on the hybrid model", vllm(), "--kv-cache-dtype", "fp8"),
    a("VLLM480", False, "no --kv-cache-dtype", vllm()),
    a("VLLM480", False, "model-less: hybrid not known", vllm(model=None), *TQ),
]

SPENTC_CASES = VLLM480_CASES
