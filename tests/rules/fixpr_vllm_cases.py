"""Positive and boundary cases for the rules of rules/fixpr_vllm.toml (task fixpr-vllm: vLLM's SM12x fix PRs).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from its
positive cases here."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

DSV32, GLM5, QWEN3_8B = "deepseek-ai/DeepSeek-V3.2", "zai-org/GLM-5.1-FP8", "Qwen/Qwen3-8B"


def vl(version, model=DSV32, profile="rtx-pro-6000-x8", env=None, quant=None):
    return lambda: build(profile, model, (f"vllm=={version}",), env=env, quant=quant)


FIXPR_VLLM_CASES = [
    # VLLM240: 0.24.0's cluster-cooperative top-K in the sparse-attention indexer, launched on SM12x
    a("VLLM240", True, "0.24.0, DeepSeek-V3.2 on 8x RTX PRO 6000 (vllm#47164)", vl("0.24.0"), "-tp", "8"),
    a("VLLM240", True, "0.24.0, GLM-5.1 FP8 on GB10", vl("0.24.0", GLM5, "dgx-spark")),
    a("VLLM240", False, "0.23.0 has no cooperative top-K", vl("0.23.0"), "-tp", "8"),
    a("VLLM240", False, "0.25.0 excludes family 12", vl("0.25.0"), "-tp", "8"),
    a("VLLM240", False, "9.0 (H100) launches the clusters", vl("0.24.0", profile="h100-sxm-x8"), "-tp", "8"),
    a("VLLM240", False, "10.0 (B200)", vl("0.24.0", profile="b200-x8"), "-tp", "8"),
    a("VLLM240", False, "a dense model has no indexer", vl("0.24.0", QWEN3_8B)),
]

FP8_INPUT, INT8_INPUT = {"VLLM_MARLIN_INPUT_DTYPE": "fp8"}, {"VLLM_MARLIN_INPUT_DTYPE": "int8"}
GPTQ = {"scheme": "gptq", "method": "gptq", "bits": 4}
AWQ = {"scheme": "awq", "method": "awq", "bits": 4}
W4A16 = {"scheme": "int4-w4a16", "method": "compressed-tensors", "bits": 4}


def marlin(version, profile="dgx-spark", env=FP8_INPUT, quant=GPTQ, model=QWEN3_8B):
    """A Marlin int4 checkpoint (Qwen3-8B's shape with GPTQ/AWQ/wNa16 weights) with the variable set."""
    return vl(version, model, profile, env=env, quant=quant)


FIXPR_VLLM_CASES += [
    # VLLM241: W4A8-FP8 Marlin refused on 12.1 before 0.23.0 (Python check 0.12-0.21, dense C++ check 0.22)
    a("VLLM241", True, "0.21.0, GPTQ int4 on GB10 with fp8 input", marlin("0.21.0")),
    a("VLLM241", True, "0.12.0, the first release with the option", marlin("0.12.0", quant=AWQ)),
    a("VLLM241", True, "0.22.0: the dense Marlin C++ check still names SM120", marlin("0.22.0", quant=W4A16)),
    a("VLLM241", False, "0.11.0 has no W4A8-FP8", marlin("0.11.0")),
    a("VLLM241", False, "0.23.0 accepts the SM12x family everywhere", marlin("0.23.0")),
    a("VLLM241", False, "12.0 (RTX PRO 6000) passes the check", marlin("0.21.0", "rtx-pro-6000")),
    a("VLLM241", False, "9.0: refused by design, not this bug", marlin("0.21.0", "h100-sxm-x8")),
    a("VLLM241", False, "10.0 (B200)", marlin("0.21.0", "b200-x8")),
    a("VLLM241", False, "int8 input", marlin("0.21.0", env=INT8_INPUT)),
    a("VLLM241", False, "variable unset", marlin("0.21.0", env={})),
    a("VLLM241", False, "a BF16 checkpoint has no Marlin layer", marlin("0.21.0", quant={"scheme": "bf16"})),
    # VLLM242: W4A8-FP8 on GB10 from 0.23.0 runs but was reported to give wrong output
    a("VLLM242", True, "0.23.0, GPTQ int4 on GB10 (vllm#49546's path)", marlin("0.23.0")),
    a("VLLM242", True, "0.33.0, wNa16", marlin("0.33.0", quant=W4A16)),
    a("VLLM242", False, "0.22.0 refuses it (VLLM241)", marlin("0.22.0")),
    a("VLLM242", False, "12.0 is not reported", marlin("0.23.0", "rtx-pro-6000")),
    a("VLLM242", False, "int8 input", marlin("0.23.0", env=INT8_INPUT)),
    a("VLLM242", False, "a BF16 checkpoint", marlin("0.23.0", quant={"scheme": "bf16"})),
]

PLAN_ON, PLAN_OFF = {"VLLM_ENABLE_STARTUP_PLAN": "1"}, {"VLLM_ENABLE_STARTUP_PLAN": "0"}


def plan(version, profile="dgx-spark", env=PLAN_ON):
    return lambda: build(profile, QWEN3_8B, (f"vllm=={version}",), env=env)


FIXPR_VLLM_CASES += [
    # VLLM243: the startup plan's NVML total-memory query on GB10, 0.26.0-0.32.x
    a("VLLM243", True, "0.32.0 on GB10 with the plan on (vllm#57378)", plan("0.32.0")),
    a("VLLM243", True, "0.26.0, the first release with the plan", plan("0.26.0")),
    a("VLLM243", False, "0.25.0 has no startup plan", plan("0.25.0")),
    a("VLLM243", False, "0.33.0 falls back to torch", plan("0.33.0")),
    a("VLLM243", False, "plan off", plan("0.32.0", env=PLAN_OFF)),
    a("VLLM243", False, "plan unset", plan("0.32.0", env={})),
    a("VLLM243", False, "--kv-cache-memory-bytes skips the plan", plan("0.32.0"), "--kv-cache-memory-bytes", "40G"),
    a("VLLM243", False, "12.0: a discrete card reports its memory through NVML", plan("0.32.0", "rtx-5090")),
    a("VLLM243", False, "9.0 (H100)", plan("0.32.0", "h100-sxm-x8")),
    a("VLLM243", False, "10.0 (B200)", plan("0.32.0", "b200-x8")),
]


def logged(fires, why, profile, version="0.25.0", shown=("VLLM244",)):
    """`diagnose` on a log whose signatures `shown` matched (shown=() is `check`: no log)."""
    log = {"signatures": list(shown)} if shown != () else None
    return Case("VLLM244", fires, vl(version, None, profile), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


FIXPR_VLLM_CASES += [
    # VLLM244: FlashInfer's prefill split-KV temporaries overflow the fixed workspace before 0.26.0 (log only)
    logged(True, "the overflow line from 0.25.0 on an RTX PRO 6000 (vllm#48428)", "rtx-pro-6000"),
    logged(True, "on an RTX 5090, 0.20.0", "rtx-5090", "0.20.0"),
    logged(False, "0.26.0 sizes the workspace to the batch", "rtx-pro-6000", "0.26.0"),
    logged(False, "an H100's log", "h100-sxm-x8"),
    logged(False, "a B200's log", "b200-x8"),
    logged(False, "check: no log", "rtx-pro-6000", shown=()),
    logged(False, "another rule's line", "rtx-pro-6000", shown=("VLLM243",)),
]
