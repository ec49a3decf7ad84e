"""Cases of "the engine's loader cannot read this checkpoint" (CKPT010-CKPT013, rules/loader.toml), read from the
derived quantization rows of doctor/data/derived/model_support.json. Each positive has negatives just outside it:
the release just before and at the first one that accepts the ModelOpt quant_algo (or the last that registers
bitsandbytes), another quant_algo or method, a release newer than the data (not derived). The loaders do not gate
on the GPU: the same deployment on Hopper (9.0) and datacenter Blackwell (10.0) fails the same way, so those cases
fire alike."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

MIXED = "nvidia/Qwen3.6-35B-A3B-NVFP4"  # a ModelOpt MIXED_PRECISION export (FP8 + W4A16_NVFP4 layers)
NVFP4 = "nvidia/Qwen3-30B-A3B-NVFP4"  # ModelOpt quant_algo NVFP4
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
BNB = {"scheme": "bnb-4bit", "method": "bitsandbytes", "bits": 4, "source": "config.json"}
SPARK, R5090, PRO, H100, B200 = "dgx-spark", "rtx-5090", "rtx-pro-6000", "h100-sxm-x8", "b200-x8"


def vl(version, model=MIXED, profile=SPARK, quant=None):
    return lambda: build(profile, model, (f"vllm=={version}",), quant=quant)


def sg(version, model=MIXED, profile=SPARK, quant=None):
    return lambda: build(profile, model, (f"sglang=={version}",), quant=quant)


LOADER_CASES = [
    # CKPT010: the release's ModelOpt QUANT_ALGOS lacks the checkpoint's quant_algo
    a("CKPT010", True, "MIXED_PRECISION on 0.15.1 (NGC vllm:26.02-py3, vllm#37854)", vl("0.15.1")),
    a("CKPT010", True, "MIXED_PRECISION on 0.16.0, the release before the first that accepts it", vl("0.16.0")),
    a("CKPT010", False, "MIXED_PRECISION on 0.17.0, the first release that accepts it", vl("0.17.0")),
    a("CKPT010", False, "MIXED_PRECISION on 0.33.0", vl("0.33.0")),
    a("CKPT010", True, "on Hopper too: the loader does not gate on the GPU", vl("0.16.0", profile=H100)),
    a("CKPT010", True, "on datacenter Blackwell too", vl("0.16.0", profile=B200)),
    a("CKPT010", True, "on an RTX 5090 (12.0)", vl("0.16.0", profile=R5090)),
    a("CKPT010", False, "NVFP4 on 0.9.2, the first tabulated release (accepted there)", vl("0.9.2", model=NVFP4)),
    a("CKPT010", True, "W4A16_NVFP4 on 0.20.2, the release before the first that accepts it",
      vl("0.20.2", model=NVFP4, quant={"algo": "W4A16_NVFP4"})),
    a("CKPT010", False, "W4A16_NVFP4 on 0.21.0", vl("0.21.0", model=NVFP4, quant={"algo": "W4A16_NVFP4"})),
    a("CKPT010", True, "MXFP8 on 0.15.1 (accepted from 0.16.0)", vl("0.15.1", model=NVFP4, quant={"algo": "MXFP8"})),
    a("CKPT010", False, "MXFP8 on 0.16.0", vl("0.16.0", model=NVFP4, quant={"algo": "MXFP8"})),
    a("CKPT010", True, "FP8_PB_WO on 0.13.0 (accepted from 0.14.0)", vl("0.13.0", model=NVFP4,
                                                                        quant={"algo": "FP8_PB_WO"})),
    a("CKPT010", False, "FP8_PB_WO on 0.14.0", vl("0.14.0", model=NVFP4, quant={"algo": "FP8_PB_WO"})),
    a("CKPT010", True, "W4A8_AWQ: no release accepts it (the newest included)",
      vl("0.33.0", model=NVFP4, quant={"algo": "W4A8_AWQ"})),
    a("CKPT010", False, "a release newer than the data: not derived", vl("0.99.0")),
    a("CKPT010", False, "not a ModelOpt checkpoint", vl("0.16.0", model=LLAMA)),
    a("CKPT010", False, "SGLang: its ModelOpt parsing is not tabulated", sg("0.5.9")),
    # CKPT012: vLLM 0.28.0 removed bitsandbytes
    a("CKPT012", True, "bitsandbytes on 0.28.0, the first release without it", vl("0.28.0", model=LLAMA, quant=BNB,
                                                                                 profile=R5090)),
    a("CKPT012", True, "bitsandbytes on 0.33.0", vl("0.33.0", model=LLAMA, quant=BNB, profile=R5090)),
    a("CKPT012", False, "bitsandbytes on 0.27.1, the last release with it", vl("0.27.1", model=LLAMA, quant=BNB,
                                                                              profile=R5090)),
    a("CKPT012", True, "on Hopper too", vl("0.28.0", model=LLAMA, quant=BNB, profile=H100)),
    a("CKPT012", False, "a GPTQ checkpoint on 0.28.0", vl("0.28.0", model=LLAMA, profile=R5090, quant={
        "scheme": "int4-w4a16", "method": "gptq", "bits": 4, "source": "config.json"})),
    a("CKPT012", False, "auto-round on 0.28.0: INC's override may take it (not a registered name, not claimed)",
      vl("0.28.0", model=LLAMA, profile=R5090, quant={"scheme": "int4-w4a16", "method": "auto-round", "bits": 4,
                                                       "source": "config.json"})),
    a("CKPT012", False, "bitsandbytes on SGLang 0.5.9 (registered from 0.5.8)", sg("0.5.9", model=LLAMA, quant=BNB,
                                                                                   profile=R5090)),
    a("CKPT012", False, "bitsandbytes on a vLLM newer than the data: not derived", vl("0.99.0", model=LLAMA,
                                                                                       quant=BNB, profile=R5090)),
]

_: list[Case] = LOADER_CASES

LOADER_CASES += [
    # CKPT014: SGLang up to 0.5.9 reads every MIXED_PRECISION ModelOpt checkpoint as w4afp8
    a("CKPT014", True, "Qwen3.6 NVFP4 (MIXED_PRECISION, NVFP4 layers) on SGLang 0.5.9", sg("0.5.9")),
    a("CKPT014", False, "the same on 0.5.10, the first release with modelopt_mixed", sg("0.5.10")),
    a("CKPT014", True, "on Hopper too", sg("0.5.9", profile=H100)),
    a("CKPT014", True, "DeepSeek-V4-Pro NVFP4 (NVFP4 layers only) on 0.5.9",
      sg("0.5.9", model="nvidia/DeepSeek-V4-Pro-NVFP4")),
    a("CKPT014", False, "a plain NVFP4 ModelOpt checkpoint on 0.5.9", sg("0.5.9", model=NVFP4)),
    a("CKPT014", False, "MIXED_PRECISION without NVFP4 layers (a W4AFP8 export) on 0.5.9",
      sg("0.5.9", quant={"scheme": "w4a8-awq", "modules": ()})),
    a("CKPT014", False, "a release newer than the data: not derived", sg("0.9.0")),
    a("CKPT014", False, "vLLM 0.17.0 (accepts MIXED_PRECISION)", vl("0.17.0")),
]

GGUF = {"scheme": "gguf", "method": "Q4_K_M", "source": "gguf header"}
LOADER_CASES += [
    # CKPT017: vLLM 0.24.0 removed GGUF
    a("CKPT017", True, "a GGUF file on 0.24.0, the first release without gguf", vl("0.24.0", model=LLAMA, quant=GGUF,
                                                                                profile=R5090)),
    a("CKPT017", False, "on 0.23.0, the last release with it", vl("0.23.0", model=LLAMA, quant=GGUF, profile=R5090)),
    a("CKPT017", True, "on Hopper too", vl("0.33.0", model=LLAMA, quant=GGUF, profile=H100)),
    a("CKPT017", False, "a safetensors checkpoint on 0.24.0", vl("0.24.0", model=LLAMA, profile=R5090)),
    a("CKPT017", False, "a release newer than the data", vl("0.99.0", model=LLAMA, quant=GGUF, profile=R5090)),
    a("CKPT017", False, "SGLang 0.5.9 (gguf registered)", sg("0.5.9", model=LLAMA, quant=GGUF, profile=R5090)),
]


def quant_logged(rule, fires, why, profile, shown=None):
    """`profile`'s facts as `diagnose` rebuilds them, the log showing `shown` (default: the rule's own signature)
    with what rules/loader.toml's signatures captured (`log.quant`, doctor/diagnose/quant_support.py); `shown=()`
    is `check`, no log at all."""
    from types import SimpleNamespace

    from doctor.diagnose.quant_support import quant_log_view

    hit = SimpleNamespace(groups={
        "log_modelopt_algos": "['FP8', 'NVFP4']", "log_quant_algo": "MIXED_PRECISION",
        "log_quant_method": "bitsandbytes", "log_quant_config": "modelopt_fp4", "log_quant_arg": "modelopt",
        "log_tokenizer_class": "TokenizersBackend", "log_gguf_arch": "qwen3vlmoe"})

    log = None if shown == () else {"signatures": [rule] if shown is None else list(shown),
                                    **quant_log_view([hit])}
    return Case(rule, fires, lambda: build(profile), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


LOG_RULES = ("CKPT011", "CKPT013", "CKPT015", "CKPT016", "CKPT018")
LOADER_CASES += [
    *(quant_logged(rule, True, f"its line on {profile}", profile) for rule in LOG_RULES
      for profile in (R5090, SPARK)),
    *(quant_logged(rule, True, "its line on Hopper: the loader does not read the GPU", H100) for rule in LOG_RULES),
    *(quant_logged(rule, False, "check: no log", R5090, shown=()) for rule in LOG_RULES),
    *(quant_logged(rule, False, "another rule's line", R5090, shown=("TORCH001",)) for rule in LOG_RULES),
]

FBGEMM = {"scheme": "fbgemm_fp8", "method": "fbgemm_fp8", "bits": 8, "source": "config.json"}


def vq(version, quant=FBGEMM, model=LLAMA, profile=R5090):
    return lambda: build(profile, model, (f"vllm=={version}",), quant=quant)


LOADER_CASES += [
    # CKPT019: deprecated quantization methods refused without --allow-deprecated-quantization
    a("CKPT019", True, "an fbgemm_fp8 checkpoint on 0.14.0, the first release with the list", vq("0.14.0")),
    a("CKPT019", False, "on 0.13.0, before the list", vq("0.13.0")),
    a("CKPT019", True, "on 0.33.0", vq("0.33.0")),
    a("CKPT019", True, "on Hopper too", vq("0.33.0", profile=H100)),
    a("CKPT019", False, "a release newer than the data", vq("0.99.0")),
    a("CKPT019", False, "an fp8 checkpoint", vq("0.33.0", quant={"scheme": "fp8-tensor", "method": "fp8", "bits": 8,
                                                                "source": "config.json"})),
    a("CKPT019", False, "auto-round on 0.14.0: INC's override may rename it first",
      vq("0.14.0", quant={"scheme": "int4-w4a16", "method": "auto-round", "bits": 4, "source": "config.json"})),
    a("CKPT019", False, "with --allow-deprecated-quantization", vq("0.33.0"), "--allow-deprecated-quantization"),
    a("CKPT019", False, "with the underscore spelling", vq("0.33.0"), "--allow_deprecated_quantization"),
    a("CKPT019", True, "--quantization experts_int8 on an unquantized model, 0.19.1 (deprecated there)",
      vl("0.19.1", model=LLAMA, profile=R5090), "--quantization", "experts_int8"),
    a("CKPT019", False, "--quantization experts_int8 on 0.20.0 (no longer in the list)",
      vl("0.20.0", model=LLAMA, profile=R5090), "--quantization", "experts_int8"),
    a("CKPT019", False, "--quantization fp8 (online FP8) on 0.33.0", vl("0.33.0", model=LLAMA, profile=R5090),
      "--quantization", "fp8"),
]

LOADER_CASES += [
    # CKPT020: the MIXED_PRECISION config names no method for a per-layer algo (W4A16_NVFP4 before 0.24.0)
    a("CKPT020", True, "Qwen3.6-35B-A3B NVFP4 (FP8 + W4A16_NVFP4 layers) on 0.17.0", vl("0.17.0")),
    a("CKPT020", True, "on 0.21.0, which accepts W4A16_NVFP4 checkpoints but not as a mixed layer", vl("0.21.0")),
    a("CKPT020", False, "on 0.22.0, the first release whose mixed config names W4A16_NVFP4", vl("0.22.0")),
    a("CKPT020", False, "on 0.24.0", vl("0.24.0")),
    a("CKPT020", False, "on 0.16.0: MIXED_PRECISION itself is refused (CKPT010)", vl("0.16.0")),
    a("CKPT020", False, "DeepSeek-V4-Pro NVFP4 (NVFP4 layers only) on 0.17.0",
      vl("0.17.0", model="nvidia/DeepSeek-V4-Pro-NVFP4")),
    a("CKPT020", True, "on Hopper too", vl("0.17.0", profile=H100)),
    a("CKPT020", False, "a release newer than the data", vl("0.99.0")),
]

LOADER_CASES += [
    # CKPT021: --quantization names a method the release does not register
    a("CKPT021", True, "--quantization bitsandbytes on 0.28.0", vl("0.28.0", model=LLAMA, profile=R5090),
      "--quantization", "bitsandbytes"),
    a("CKPT021", False, "--quantization bitsandbytes on 0.27.1", vl("0.27.1", model=LLAMA, profile=R5090),
      "--quantization", "bitsandbytes"),
    a("CKPT021", True, "-q gguf on 0.24.0", vl("0.24.0", model=LLAMA, profile=R5090), "-q", "gguf"),
    a("CKPT021", True, "--quantization=fp8_per_block on 0.19.1 (registered from 0.20.0)",
      vl("0.19.1", model=LLAMA, profile=R5090), "--quantization=fp8_per_block"),
    a("CKPT021", False, "--quantization=fp8_per_block on 0.20.0", vl("0.20.0", model=LLAMA, profile=R5090),
      "--quantization=fp8_per_block"),
    a("CKPT021", True, "on Hopper too", vl("0.28.0", model=LLAMA, profile=H100), "--quantization", "bitsandbytes"),
    a("CKPT021", False, "--quantization fp8 (always registered)", vl("0.33.0", model=LLAMA, profile=R5090),
      "--quantization", "fp8"),
    a("CKPT021", False, "a flag that contradicts a quantized checkpoint (CKPT015's mismatch, an override may run)",
      vl("0.28.0", model=NVFP4, profile=R5090), "--quantization", "bitsandbytes"),
    a("CKPT021", False, "a release newer than the data", vl("0.99.0", model=LLAMA, profile=R5090),
      "--quantization", "bitsandbytes"),
]

FP8_CKPT = {"scheme": "fp8-block", "method": "fp8", "bits": 8, "source": "config.json"}
LOADER_CASES += [
    # CKPT022: --quantization of another format than the checkpoint's
    a("CKPT022", True, "an NVFP4 ModelOpt checkpoint launched with --quantization awq", vl("0.33.0", model=NVFP4),
      "--quantization", "awq"),
    a("CKPT022", True, "an fp8 checkpoint with --quantization compressed-tensors",
      vl("0.33.0", model=LLAMA, quant=FP8_CKPT), "--quantization", "compressed-tensors"),
    a("CKPT022", False, "modelopt on a ModelOpt NVFP4 checkpoint: one family", vl("0.33.0", model=NVFP4),
      "--quantization", "modelopt_fp4"),
    a("CKPT022", False, "fp8_per_block over an fp8 checkpoint: one family", vl("0.33.0", model=LLAMA, quant=FP8_CKPT),
      "--quantization", "fp8_per_block"),
    a("CKPT022", False, "moe_wna16 takes other formats", vl("0.33.0", model=NVFP4), "--quantization", "moe_wna16"),
    a("CKPT022", False, "no --quantization", vl("0.33.0", model=NVFP4)),
    a("CKPT022", False, "an unquantized checkpoint with --quantization fp8 (online)", vl("0.33.0", model=LLAMA),
      "--quantization", "fp8"),
]
