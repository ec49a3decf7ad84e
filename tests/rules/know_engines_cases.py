"""Positive and boundary cases for the rules of rules/know_engines.toml (task know-engines, issue 25's ledger).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

import dataclasses

from tests.rules.builders import a, build, lib

QWEN3_8B, LLAMA8B, QWEN30 = "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B"
GEMMA4, GEMMA4_NVFP4 = "google/gemma-4-26B-A4B", "nvidia/Gemma-4-31B-IT-NVFP4"
V1_RUNNER, V2_RUNNER, PINNED = ({"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"},
                                {"VLLM_WSL2_ENABLE_PIN_MEMORY": "1"})


def wsl(version, model=QWEN3_8B, profile="rtx-5070-ti", env=None, on_wsl=True):
    """vLLM `version` serving `model` on a host that runs (or does not run) a WSL2 kernel."""
    def facts():
        built = build(profile, model, (f"vllm=={version}",), env=env)
        kernel = "6.6.87.2-microsoft-standard-WSL2" if on_wsl else "6.8.0-60-generic"
        return built.replace(host=dataclasses.replace(built.host, wsl=on_wsl, kernel=kernel))
    return facts


def gemma(version, transformers=None, model=GEMMA4, profile="dgx-spark"):
    def facts():
        libs = (lib("transformers", transformers),) if transformers else ()
        return build(profile, model, (f"vllm=={version}",), libs=libs)
    return facts


KNOW_ENGINES_CASES = [
    # WSL020: Model Runner V2 on WSL2 without pinned memory
    a("WSL020", True, "0.29.0 on WSL2, any model (TurboLLM#256, RTX 5070 Ti)", wsl("0.29.0")),
    a("WSL020", True, "0.29.0 on WSL2, a model outside every earlier list", wsl("0.29.0", GEMMA4, "rtx-5090")),
    a("WSL020", True, "0.24.0: Llama is a default-V2 architecture (vllm#47387)", wsl("0.24.0", LLAMA8B)),
    a("WSL020", True, "0.22.0: Qwen3 is the default-V2 architecture", wsl("0.22.0")),
    a("WSL020", True, "0.23.0: Llama", wsl("0.23.0", LLAMA8B, "rtx-5060")),
    a("WSL020", True, "0.26.0 with V2 forced by the environment", wsl("0.26.0", QWEN30, env=V2_RUNNER)),
    a("WSL020", True, "0.29.0 with the pin-memory switch off", wsl("0.29.0", env={"VLLM_WSL2_ENABLE_PIN_MEMORY": "0"})),
    a("WSL020", True, "0.24.0 on GB10 under WSL2 is the same code path", wsl("0.24.0", QWEN3_8B, "dgx-spark")),
    a("WSL020", False, "0.21.0: V1 is the default", wsl("0.21.0")),
    a("WSL020", False, "0.30.0: NonUvaBuffer fallback (vllm#56908)", wsl("0.30.0")),
    a("WSL020", False, "native Linux: pinned memory on", wsl("0.29.0", on_wsl=False)),
    a("WSL020", False, "WSL not known (a hardware profile)", lambda: build("rtx-5090", QWEN3_8B, ("vllm==0.29.0",))),
    a("WSL020", False, "V1 runner asked for", wsl("0.29.0", env=V1_RUNNER)),
    a("WSL020", False, "0.24.0 with VLLM_WSL2_ENABLE_PIN_MEMORY=1", wsl("0.24.0", LLAMA8B, env=PINNED)),
    a("WSL020", False, "0.25.0: Llama left the default-V2 list", wsl("0.25.0", LLAMA8B)),
    a("WSL020", False, "0.22.0: Llama not yet in the list", wsl("0.22.0", LLAMA8B)),
    a("WSL020", False, "0.28.0: Qwen3-8B not in the list", wsl("0.28.0")),
    a("WSL020", False, "0.29.0 with a speculative config (V2 may decline)", wsl("0.29.0"),
      "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}'),
    # VLLM110 / VLLM111: Gemma 4 with transformers >= 5.15
    a("VLLM110", True, "0.27.1 with transformers 5.15.0 on a DGX Spark (vllm#52768 is 0.27.1)",
      gemma("0.27.1", "5.15.0")),
    a("VLLM110", True, "0.27.0 with transformers 5.15.0, Gemma 4 31B NVFP4 (vllm#51744)",
      gemma("0.27.0", "5.15.0", GEMMA4_NVFP4, "rtx-pro-6000-x2")),
    a("VLLM110", True, "0.19.1, the first releases with Gemma 4, with transformers 5.24.0",
      gemma("0.19.1", "5.24.0", profile="rtx-5090")),
    a("VLLM110", False, "transformers 5.14.1: flat head_dim", gemma("0.27.1", "5.14.1")),
    a("VLLM110", False, "0.28.0 reads per_layer_config", gemma("0.28.0", "5.15.0")),
    a("VLLM110", False, "0.18.1 has no Gemma 4", gemma("0.18.1", "5.15.0")),
    a("VLLM110", False, "not Gemma 4", gemma("0.27.1", "5.15.0", QWEN3_8B)),
    a("VLLM111", True, "0.27.1, transformers not stated", gemma("0.27.1")),
    a("VLLM111", False, "transformers stated (VLLM110 decides)", gemma("0.27.1", "5.14.1")),
    a("VLLM111", False, "0.28.0", gemma("0.28.0")),
]

DSV3 = "deepseek-ai/DeepSeek-V3"
DEEPGEMM_OFF = {"VLLM_USE_DEEP_GEMM": "0"}


def block_fp8(version, model=DSV3, profile="rtx-pro-6000-x8", env=None):
    return lambda: build(profile, model, (f"vllm=={version}",), env=env)


KNOW_ENGINES_CASES += [
    a("VLLM112", True, "0.23.0: CUTLASS block FP8 on SM120, DeepSeek-V3 (kv_a_proj N=576)", block_fp8("0.23.0")),
    a("VLLM112", True, "0.15.1: cutlass_blockwise on an RTX 5090 (vllm#33328 era)",
      block_fp8("0.15.1", profile="rtx-5090")),
    a("VLLM112", True, "0.26.0 with DeepGEMM off (vllm#47990)", block_fp8("0.26.0", env=DEEPGEMM_OFF)),
    a("VLLM112", True, "GB10: the same family kernel", block_fp8("0.22.0", profile="dgx-spark")),
    a("VLLM112", False, "0.26.0 default: DeepGEMM/FlashInfer first", block_fp8("0.26.0")),
    a("VLLM112", False, "CUTLASS disabled",
      block_fp8("0.23.0", env={"VLLM_DISABLED_KERNELS": "CutlassFp8BlockScaledMMKernel"})),
    a("VLLM112", False, "Hopper: DeepGEMM", block_fp8("0.23.0", profile="h100-sxm-x8")),
    a("VLLM112", False, "datacenter Blackwell", block_fp8("0.23.0", profile="b200-x8")),
    a("VLLM112", False, "not MLA (Qwen3 block FP8)", block_fp8("0.23.0", "Qwen/Qwen3-235B-A22B-FP8")),
    a("VLLM112", False, "MLA in NVFP4", block_fp8("0.23.0", "nvidia/DeepSeek-V3-0324-NVFP4")),
]

QWEN36, QWEN36_NVFP4, QWEN_NEXT = "Qwen/Qwen3.6-27B", "nvidia/Qwen3.6-27B-NVFP4", "Qwen/Qwen3-Next-80B-A3B-Instruct"
MTP = ("--speculative-config", '{"method": "mtp", "num_speculative_tokens": 3}')


def gdn(version, model=QWEN36_NVFP4, profile="rtx-5090-x2"):
    return lambda: build(profile, model, (f"vllm=={version}",))


KNOW_ENGINES_CASES += [
    a("VLLM113", True, "0.25.1, Qwen3.6-27B NVFP4 with MTP on RTX 5090s (club-3090#838)", gdn("0.25.1"), *MTP),
    a("VLLM113", True, "0.19.1, Qwen3.6-27B with MTP (vllm#40756)", gdn("0.19.1", QWEN36, "rtx-pro-6000"), *MTP),
    a("VLLM113", True, "0.33.0 still unbounded", gdn("0.33.0"), *MTP),
    a("VLLM113", True, "Qwen3-Next with its MTP drafter", gdn("0.26.0", QWEN_NEXT, "rtx-pro-6000-x2"),
      "--speculative-config", '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'),
    a("VLLM113", False, "no speculative decoding", gdn("0.25.1")),
    a("VLLM113", False, "0.17.0: before the reports", gdn("0.17.0"), *MTP),
    a("VLLM113", False, "a dense model with MTP (no GDN layers)", gdn("0.25.1", "Qwen/Qwen3-8B"), *MTP),
]

KNOW_ENGINES_CASES += [
    a("VLLM113", True, "the dotted spelling --speculative-config.method", gdn("0.25.1"),
      "--speculative-config.method", "mtp", "--speculative-config.num_speculative_tokens", "3"),
]
