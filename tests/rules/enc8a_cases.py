"""Positive and boundary cases for rules/enc8a.toml (task enc8a: the spent eighth held-out sample's F1-F11).
test_rule_cases.py runs them; the log-line rules (VLLM370, FI190) fire only with their line shown."""

from __future__ import annotations

from tests.rules.builders import a, build
from tests.rules.log_line_cases import OTHER, SM12X, logged

NANO_NVFP4 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
QWEN36_NVFP4 = "nvidia/Qwen3.6-35B-A3B-NVFP4"


def _log_line_cases():
    cases = []
    for rule in ("VLLM370", "FI190"):
        cases += [logged(rule, True, f"its line on {profile}", profile) for profile in SM12X]
        cases += [logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER]
        cases += [
            logged(rule, False, "check: no log", "dgx-spark", shown=()),
            logged(rule, False, "another rule's line", "dgx-spark", shown=("KRN030",)),
        ]
    return cases


def spark_build(version="0.18.0", archs="12.1a", model=NANO_NVFP4, profile="dgx-spark"):
    env = {"TORCH_CUDA_ARCH_LIST": archs} if archs is not None else None
    return lambda: build(profile, model, (f"vllm=={version}",), env=env)


VLLM371_CASES = [
    # eugr/spark-vllm-docker#98: a GB10 source build with 12.1a only compiles no ENABLE_NVFP4_SM120 kernels
    a("VLLM371", True, "0.18.0 built for 12.1a on GB10, NVFP4 model (eugr#98)", spark_build()),
    a("VLLM371", True, "0.12.0, the oldest release read: the same CMake gate", spark_build("0.12.0")),
    a("VLLM371", True, "12.1f: no 12.0 base either", spark_build(archs="12.1f")),
    a("VLLM371", False, "0.19.0's CMake matches 12.1a (vllm#38126)", spark_build("0.19.0")),
    a("VLLM371", False, "0.11.0: before the releases read", spark_build("0.11.0")),
    a("VLLM371", False, "12.0a in the list: FP4_ARCHS is set", spark_build(archs="12.0a;12.1a")),
    a("VLLM371", False, "plain 12.0 in the list: its base matches", spark_build(archs="12.0;12.1a")),
    a("VLLM371", False, "no arch list stated (a release wheel)", spark_build(archs=None)),
    a("VLLM371", False, "not an NVFP4 model", spark_build(model="Qwen/Qwen3.6-35B-A3B")),
    a("VLLM371", False, "12.0 GPU: a 12.1a-only build runs nothing there (BLD001's)",
      spark_build(profile="rtx-5090")),
    a("VLLM371", False, "9.0 (H100): not an SM12x GPU", spark_build(archs="9.0a", profile="h100-sxm-x8")),
    a("VLLM371", False, "10.0 (B200): not an SM12x GPU", spark_build(archs="10.0a", profile="b200-x8")),
]


def trt(profile="rtx-5090", version="1.3.0rc23", model=QWEN36_NVFP4, **overrides):
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",), **overrides)


TRT160_CASES = [
    # NVIDIA/TensorRT-LLM#17911: no sm_120 e4m3 fmha_v2 kernel for head size 256
    a("TRT160", True, "1.3.0rc23, Qwen3.6-35B-A3B-NVFP4 (checkpoint FP8 KV) on an RTX 5090 (#17911)", trt()),
    a("TRT160", True, "RTX PRO 6000 (12.0)", trt("rtx-pro-6000")),
    a("TRT160", False, "a BF16 KV cache: the bf16 fmha_v2 kernels are another list",
      trt(quant={"kv_cache_dtype": None})),
    a("TRT160", False, "head_dim 128: in the enumeration", trt(attention={"head_dim": 128})),
    a("TRT160", False, "1.3.0rc22: not the release the report ran", trt(version="1.3.0rc22")),
    a("TRT160", False, "GB10 (12.1): not reported", trt("dgx-spark")),
    a("TRT160", False, "9.0 (H100)", trt("h100-sxm-x8")),
    a("TRT160", False, "10.0 (B200)", trt("b200-x8")),
]


M3 = "MiniMaxAI/MiniMax-M3-MXFP8"
M3_NVFP4 = {"scheme": "nvfp4", "method": "modelopt"}
FORCED = ("--tensor-parallel-size", "4", "--moe-backend", "flashinfer_cutlass")


def m3(version="0.25.0", quant=M3_NVFP4, profile="rtx-pro-6000-ws-x4", model=M3):
    return lambda: build(profile, model, (f"vllm=={version}",), quant=quant)


VLLM372_CASES = [
    # vllm#46816: MiniMax-M3 NVFP4 with --moe-backend flashinfer_cutlass on 4x RTX PRO 6000
    a("VLLM372", True, "0.25.0, NVFP4 experts, flashinfer_cutlass named (vllm#46816)", m3(), *FORCED),
    a("VLLM372", True, "0.24.0, the first release with MiniMax-M3", m3("0.24.0"), *FORCED),
    a("VLLM372", True, "0.27.0, the last release without the activation", m3("0.27.0"), *FORCED),
    a("VLLM372", True, "B200: the refusal is the activation's, not the device's", m3(profile="b200-x8"), *FORCED),
    a("VLLM372", False, "0.28.0 adds swigluoai_uninterleave to FlashInferExperts", m3("0.28.0"), *FORCED),
    a("VLLM372", False, "0.23.0 has no MiniMax-M3 (VLLM340's)", m3("0.23.0"), *FORCED),
    a("VLLM372", False, "backend left on auto", m3(), "--tensor-parallel-size", "4"),
    a("VLLM372", False, "marlin named", m3(), "--tensor-parallel-size", "4", "--moe-backend", "marlin"),
    a("VLLM372", False, "the MXFP8 checkpoint: another oracle", m3(quant=None), *FORCED),
    a("VLLM372", False, "another NVFP4 MoE model", m3(model="nvidia/Qwen3.6-35B-A3B-NVFP4", quant=None), *FORCED),
]


def nano(version="0.24.0", profile="dgx-spark", model=NANO_NVFP4):
    return lambda: build(profile, model, (f"vllm=={version}",))


PC = ("--enable-prefix-caching",)
VLLM373_CASES = [
    # eugr/spark-vllm-docker#98: Nemotron with prefix caching, Mamba cache mode "all" on SM121
    a("VLLM373", True, "0.24.0, Nemotron-3-Nano NVFP4, prefix caching, GB10 (eugr#98)", nano(), *PC),
    a("VLLM373", True, "0.17.0, the first release read with the \"all\" default", nano("0.17.0"), *PC),
    a("VLLM373", True, "0.27.0, the last release with the \"all\" default", nano("0.27.0"), *PC),
    a("VLLM373", True, "--mamba-cache-mode all named", nano(), *PC, "--mamba-cache-mode", "all"),
    a("VLLM373", False, "0.28.0 defaults to align", nano("0.28.0"), *PC),
    a("VLLM373", False, "0.16.0: before the releases read", nano("0.16.0"), *PC),
    a("VLLM373", False, "--mamba-cache-mode align (the fix)", nano(), *PC, "--mamba-cache-mode", "align"),
    a("VLLM373", False, "no prefix caching asked for", nano()),
    a("VLLM373", False, "a speculative config (0.21.0-0.23.0 pick align with it)", nano(), *PC,
      "--speculative-config", '{"method":"mtp","num_speculative_tokens":1}'),
    a("VLLM373", False, "RTX 5090 (12.0): not reported", nano(profile="rtx-5090"), *PC),
    a("VLLM373", False, "9.0 (H100)", nano(profile="h100-sxm-x8"), *PC),
    a("VLLM373", False, "10.0 (B200)", nano(profile="b200-x8"), *PC),
    a("VLLM373", False, "another hybrid (Qwen3.6 Gated DeltaNet)", nano(model="Qwen/Qwen3.6-35B-A3B"), *PC),
]

ENC8A_CASES = [*_log_line_cases(), *VLLM371_CASES, *TRT160_CASES, *VLLM372_CASES, *VLLM373_CASES]
