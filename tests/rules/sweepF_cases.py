"""Positive and boundary cases for the sweepF rules (rules/sweepF.toml); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import a, build

SPARK, PRO, H100, B200 = "dgx-spark", "rtx-pro-6000-x8", "h100-sxm-x8", "b200-x8"
QWEN36 = "Qwen/Qwen3.6-35B-A3B"
TP2, PP3, NODES2 = ("--tensor-parallel-size", "2"), ("--pipeline-parallel-size", "3"), ("--nnodes", "2")
NO_AUTOTUNE = ("--no-enable-flashinfer-autotune",)


def vl(version, profile=SPARK):
    return lambda: build(profile, QWEN36, engines=(f"vllm=={version}",))


SWEEPF_CASES = [
    a("VLLM540", True, "0.27.1 on two Sparks, TP 2, mp shape (ainode#134)", vl("0.27.1"), *TP2, *NODES2),
    a("VLLM540", True, "0.27.0: the first release that autotunes in lockstep, TP 2 x PP 3 (vllm#52291)", vl("0.27.0"),
      *TP2, *PP3),
    a("VLLM540", True, "0.33.0 still has no opt-out, TP across Sparks", vl("0.33.0"), *TP2, *NODES2),
    a("VLLM540", True, "0.31.0 tunes over the world group: PP alone across Sparks", vl("0.31.0"),
      "--pipeline-parallel-size", "2"),
    a("VLLM540", False, "0.32.0 tunes over the TP group when PP > 1: TP 1 has no group", vl("0.32.0"),
      "--pipeline-parallel-size", "2"),
    a("VLLM540", False, "0.26.0 autotunes each rank on its own", vl("0.26.0"), *TP2, *NODES2),
    a("VLLM540", False, "FlashInfer autotune turned off", vl("0.27.1"), *TP2, *NODES2, *NO_AUTOTUNE),
    a("VLLM540", False, "0.33.0's other spelling of the switch", vl("0.33.0"), *TP2, *NODES2,
      "--disable-flashinfer-autotune"),
    a("VLLM540", False, "one Spark, TP 1: nothing to keep in lockstep", vl("0.27.1")),
    a("VLLM540", False, "RTX PRO 6000 (12.0) TP 2 in one node: not what the reports established", vl("0.27.1", PRO),
      *TP2),
    a("VLLM540", False, "Hopper: outside this doctor's scope", vl("0.27.1", H100), *TP2, *NODES2),
    a("VLLM540", False, "B200 (10.0): outside this doctor's scope", vl("0.27.1", B200), *TP2, *NODES2),
]
