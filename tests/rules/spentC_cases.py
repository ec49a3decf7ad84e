"""Positive and boundary cases for rules/spentC.toml (task spentC: the spent eleventh held-out sample's
expressible rows). test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build
from tests.rules.log_line_cases import logged

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




def sglang(version: str = "0.5.12", profile: str = SPARK) -> Callable[[], Facts]:
    return lambda: build(profile, None, (f"sglang=={version}",))


NEXTN_TREE = ("--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3", "--speculative-eagle-topk", "4")

SGL550_CASES = [
    # SGLang 0.5.8-0.5.13: num_steps given, topk > 1, no draft-token count -> max(int, None) in TokenizerManager
    a("SGL550", True, "0.5.12, NEXTN, steps 3, topk 4, no draft tokens (GB10)", sglang(), *NEXTN_TREE),
    a("SGL550", True, "0.5.8, the first release with the max()", sglang("0.5.8"), *NEXTN_TREE),
    a("SGL550", True, "0.5.13 (max_speculative_num_draft_tokens is None too)", sglang("0.5.13"), *NEXTN_TREE),
    a("SGL550", True, "EAGLE3, equals spelling", sglang(), "--speculative-algorithm=EAGLE3",
      "--speculative-num-steps=5", "--speculative-eagle-topk=8"),
    a("SGL550", True, "RTX 5090: not GPU-specific", sglang(profile=R5090), *NEXTN_TREE),
    a("SGL550", False, "0.5.7: no num_reserved_tokens max()", sglang("0.5.7"), *NEXTN_TREE),
    a("SGL550", False, "0.5.14: argument handling not read", sglang("0.5.14"), *NEXTN_TREE),
    a("SGL550", False, "draft tokens given (the report's fix)", sglang(), *NEXTN_TREE,
      "--speculative-num-draft-tokens", "20"),
    a("SGL550", False, "topk 1: SGLang sets draft tokens to steps + 1", sglang(), "--speculative-algorithm", "NEXTN",
      "--speculative-num-steps", "3", "--speculative-eagle-topk", "1"),
    a("SGL550", False, "NEXTN alone: auto-chosen (3, 1, 4)", sglang(), "--speculative-algorithm", "NEXTN"),
    a("SGL550", False, "NGRAM: defaults its own draft tokens", sglang(), "--speculative-algorithm", "NGRAM",
      "--speculative-num-steps", "3", "--speculative-eagle-topk", "4"),
]



def lcpp(version: str = "b9333", profile: str = R5090) -> Callable[[], Facts]:
    return lambda: build(profile, None, (f"llama.cpp=={version}",))


Q4KV = ("-fa", "on", "--cache-type-k", "q4_0", "--cache-type-v", "q4_0")

LCPP260_CASES = [
    # llama.cpp#23693: b9333 -fa on + q4_0 K/V garbled on sm_120; b9174 coherent
    a("LCPP260", True, "b9333, -fa on, q4_0 K/V, RTX 5090", lcpp(), *Q4KV),
    a("LCPP260", True, "short spellings -ctk/-ctv", lcpp(), "-fa", "on", "-ctk", "q4_0", "-ctv", "q4_0"),
    a("LCPP260", True, "b9175, the first build after the last good", lcpp("b9175"), *Q4KV),
    a("LCPP260", True, "RTX PRO 6000 (12.0)", lcpp(profile="rtx-pro-6000"), *Q4KV),
    a("LCPP260", True, "DGX Spark (12.1)", lcpp(profile=SPARK), *Q4KV),
    a("LCPP260", False, "b9174, the report's last good build", lcpp("b9174"), *Q4KV),
    a("LCPP260", False, "b9334: after the report, not established", lcpp("b9334"), *Q4KV),
    a("LCPP260", False, "q8_0 K/V", lcpp(), "-fa", "on", "-ctk", "q8_0", "-ctv", "q8_0"),
    a("LCPP260", False, "q4_0 K with f16 V", lcpp(), "-fa", "on", "-ctk", "q4_0"),
    a("LCPP260", False, "f16 K/V (default)", lcpp(), "-fa", "on"),
    a("LCPP260", False, "H100 (9.0): not established", lcpp(profile="h100-sxm-x8"), *Q4KV),
    a("LCPP260", False, "B200 (10.0): not established", lcpp(profile="b200-x8"), *Q4KV),
]

SPENTC_CASES = VLLM480_CASES + SGL550_CASES + LCPP260_CASES

# the log-line rules (they read log.signatures, which only `diagnose` fills): tests/rules/log_line_cases.py's helper
LOG_LINE_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in ("DRV070", "LCPP261")
      for profile in ("rtx-5090", "dgx-spark", "rtx-pro-6000")),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in ("DRV070", "LCPP261")
      for profile in ("h100-sxm-x8", "b200-x8")),
    *(logged(rule, False, "check: no log", R5090, shown=()) for rule in ("DRV070", "LCPP261")),
    *(logged(rule, False, "another rule's line", R5090, shown=("TORCH001",)) for rule in ("DRV070", "LCPP261")),
]

SPENTC_CASES += LOG_LINE_CASES
