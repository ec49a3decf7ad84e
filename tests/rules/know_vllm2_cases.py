"""Positive and boundary cases for the rules of rules/vllm_know2.toml (task know-vllm2, issue 25).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

from tests.rules.builders import a, build

LLAMA8B, QWEN3_8B, GEMMA4 = "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "google/gemma-4-26B-A4B"
FA4_JSON = ("--attention-config", '{"flash_attn_version": 4}')
FA4_DOTTED = ("--attention-config.flash_attn_version", "4")


def vllm(version, model=LLAMA8B, profile="rtx-5090", env=None):
    return lambda: build(profile, model, (f"vllm=={version}",), env=env)


KNOW_VLLM2_CASES = [
    # VLLM140: FA4 forced on SM12x
    a("VLLM140", True, "0.28.0, JSON form, Llama head_dim 128 on an RTX 5090", vllm("0.28.0"), *FA4_JSON),
    a("VLLM140", True, "0.22.0, dotted form, on GB10", vllm("0.22.0", QWEN3_8B, "dgx-spark"), *FA4_DOTTED),
    a("VLLM140", True, "0.25.0 on an RTX PRO 6000", vllm("0.25.0", profile="rtx-pro-6000-ws-x4"), *FA4_JSON),
    a("VLLM140", False, "no version forced: FA2", vllm("0.28.0")),
    a("VLLM140", False, "FA2 forced", vllm("0.28.0"), "--attention-config", '{"flash_attn_version": 2}'),
    a("VLLM140", False, "FA4 exists on 10.x (B200)", vllm("0.28.0", profile="b200-x8"), *FA4_JSON),
    a("VLLM140", False, "FA4 exists on 9.0 (H100)", vllm("0.28.0", profile="h100-sxm-x8"), *FA4_JSON),
    a("VLLM140", False, "0.21.0: not read", vllm("0.21.0"), *FA4_JSON),
    a("VLLM140", False, "0.29.0: not read", vllm("0.29.0"), *FA4_JSON),
    a("VLLM140", False, "another backend chosen", vllm("0.28.0"), *FA4_JSON, "--attention-backend", "TRITON_ATTN"),
    a("VLLM140", False, "batch invariance demotes FA4 to FA2", vllm("0.28.0", env={"VLLM_BATCH_INVARIANT": "1"}),
      *FA4_JSON),
]
