"""Cases for the fifth held-out sample's classes (rules/heldout5_knowledge.toml, task enc5). Each rule explains a log
line only: it fires with its own signature shown, stays silent in `check` (no log) and with another rule's line;
VLLM320 only on GB10 (12.1): not on the 12.0 parts, Hopper or datacenter Blackwell."""

from __future__ import annotations

from tests.rules.log_line_cases import logged

GB10_ONLY = ("VLLM320", "VLLM323", "UMA150")
ANY_GPU = ("VLLM321", "VLLM322", "VLLM324", "VLLM325", "LCPP200", "LCPP201", "SGL460")

ENC5_CASES = [
    logged("VLLM320", True, "Error Internal from the CUTLASS run() on GB10", "dgx-spark"),
    *(logged("VLLM320", False, f"on {profile}: an sm_120a kernel runs on 12.0, or not SM12x", profile)
      for profile in ("rtx-5090", "rtx-pro-6000", "h100-sxm-x8", "b200-x8")),
    logged("VLLM323", True, "nvidia-smi's [N/A] memory on GB10's unified memory", "dgx-spark"),
    *(logged("VLLM323", False, f"on {profile}: nvidia-smi reports dedicated memory", profile)
      for profile in ("rtx-5090", "rtx-pro-6000", "h100-sxm-x8", "b200-x8")),
    logged("UMA150", True, "[N/A] memory parsed on GB10's unified memory", "dgx-spark"),
    *(logged("UMA150", False, f"on {profile}: NVML reports dedicated memory", profile)
      for profile in ("rtx-5090", "rtx-pro-6000", "h100-sxm-x8", "b200-x8")),
    *(logged(rule, False, "check: no log", "dgx-spark", shown=()) for rule in (*GB10_ONLY, *ANY_GPU)),
    *(logged(rule, False, "another rule's line", "dgx-spark", shown=("TRI010",)) for rule in (*GB10_ONLY, *ANY_GPU)),
    *(logged(rule, True, f"its line on {profile}", profile) for rule in ANY_GPU
      for profile in ("dgx-spark", "rtx-5060", "rtx-pro-6000")),
]
