"""Cases for the fifth held-out sample's classes (rules/spent_heldout5.toml, task enc5). Each rule explains a log
line only: it fires with its own signature shown, stays silent in `check` (no log) and with another rule's line;
VLLM320 only on GB10 (12.1): not on the 12.0 parts, Hopper or datacenter Blackwell."""

from __future__ import annotations

from tests.rules.builders import a, build
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


def _sgl(profile: str, model: str | None = "meta-llama/Llama-3.1-8B-Instruct", version: str = "0.5.10.post1"):
    return lambda: build(profile, model, (f"sglang=={version}",))


NGRAM = ("--speculative-algorithm", "NGRAM")

ENC5_CASES += [
    a("SGL461", True, "NGRAM, FlashInfer default, graphs on, RTX PRO 6000", _sgl("rtx-pro-6000"), *NGRAM),
    a("SGL461", True, "the same on GB10", _sgl("dgx-spark"), *NGRAM),
    a("SGL461", True, "model-less: the backend is not known", _sgl("rtx-pro-6000", None), *NGRAM),
    a("SGL461", False, "Hopper", _sgl("h100-sxm-x8"), *NGRAM),
    a("SGL461", False, "datacenter Blackwell", _sgl("b200-x8"), *NGRAM),
    a("SGL461", False, "EAGLE, not NGRAM", _sgl("rtx-pro-6000"), "--speculative-algorithm", "EAGLE"),
    a("SGL461", False, "no speculative decoding", _sgl("rtx-pro-6000")),
    a("SGL461", False, "CUDA graphs off", _sgl("rtx-pro-6000"), *NGRAM, "--disable-cuda-graph"),
    a("SGL461", False, "Triton attention", _sgl("rtx-pro-6000"), *NGRAM, "--attention-backend", "triton"),
]
