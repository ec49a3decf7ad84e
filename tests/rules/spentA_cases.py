"""Positive and boundary cases of rules/spentA.toml (the ninth held-out sample, both draws) in the shared rule-case
runner (test_rule_cases.py)."""

from __future__ import annotations

from tests.rules.builders import a, build, lib
from tests.rules.log_line_cases import logged

GEMMA_MOE = "google/gemma-4-26B-A4B"
GEMMA_DENSE = "nvidia/Gemma-4-31B-IT-NVFP4"
ASSISTANT = '{"model":"google/gemma-4-26B-A4B-it-assistant","num_speculative_tokens":4}'
QWEN_MTP = '{"method":"mtp","num_speculative_tokens":3}'
TORCH_CU128 = lib("torch", "2.11.0+cu128", cuda_version="12.8")
TORCH_CU129 = lib("torch", "2.11.0+cu129", cuda_version="12.9")
NVCC_128 = lib("nvcc", "12.8.93")
DEEPEP = ("--enable-expert-parallel", "--all2all-backend")


def facts(profile: str, engines: tuple[str, ...], model: str | None = None, libs=(), env=None):
    return lambda: build(profile, model, engines, libs=tuple(libs), env=env)


def _vllm440():
    return [
        a("VLLM440", True, "26b-a4b assistant drafter 0.25.1", facts("rtx-pro-6000", ("vllm==0.25.1",), GEMMA_MOE),
          "--speculative-config", ASSISTANT),
        a("VLLM440", True, "26b-a4b 0.28.0, V2 runner switched off", facts(
            "rtx-5090", ("vllm==0.28.0",), GEMMA_MOE, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
          "--speculative-config", ASSISTANT),
        a("VLLM440", False, "0.24.0 (V1 path worked)", facts("rtx-pro-6000", ("vllm==0.24.0",), GEMMA_MOE),
          "--speculative-config", ASSISTANT),
        a("VLLM440", False, "0.31.0 (V2 by default)", facts("rtx-pro-6000", ("vllm==0.31.0",), GEMMA_MOE),
          "--speculative-config", ASSISTANT),
        a("VLLM440", False, "VLLM_USE_V2_MODEL_RUNNER=1", facts(
            "rtx-pro-6000", ("vllm==0.25.1",), GEMMA_MOE, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
          "--speculative-config", ASSISTANT),
        a("VLLM440", False, "no speculative decoding", facts("rtx-pro-6000", ("vllm==0.25.1",), GEMMA_MOE)),
        a("VLLM440", False, "dense 31b (V2 already)", facts("rtx-pro-6000", ("vllm==0.25.1",), GEMMA_DENSE),
          "--speculative-config", '{"model":"google/gemma-4-31B-it-assistant","num_speculative_tokens":4}'),
        a("VLLM440", False, "another model's mtp", facts(
            "dgx-spark", ("vllm==0.25.1",), "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"),
          "--speculative-config", QWEN_MTP),
    ]


def _fi260():
    return [
        a("FI260", True, "5060 ti, vllm 0.25.1, torch cu128, no nvcc",
          facts("rtx-5060-ti-16gb", ("vllm==0.25.1",), libs=(TORCH_CU128,))),
        a("FI260", True, "gb10, flashinfer 0.6.7, torch cu128, no nvcc",
          facts("dgx-spark", ("flashinfer-python==0.6.7",), libs=(TORCH_CU128,))),
        a("FI260", False, "flashinfer 0.6.6 (no 12.9 check)",
          facts("rtx-5090", ("flashinfer-python==0.6.6",), libs=(TORCH_CU128,))),
        a("FI260", False, "torch cu129", facts("rtx-5090", ("vllm==0.25.1",), libs=(TORCH_CU129,))),
        a("FI260", False, "an nvcc was found (FI002's case)",
          facts("rtx-5090", ("vllm==0.25.1",), libs=(TORCH_CU128, NVCC_128))),
        a("FI260", False, "flashinfer-jit-cache installed",
          facts("rtx-5090", ("vllm==0.25.1",), libs=(TORCH_CU128, lib("flashinfer-jit-cache", "0.6.13")))),
        a("FI260", False, "h100 (9.0)", facts("h100-sxm-x8", ("vllm==0.25.1",), libs=(TORCH_CU128,))),
    ]


def _vllm441():
    return [
        a("VLLM441", True, "gb10 deepep low latency", facts("dgx-spark", ("vllm==0.23.0",)),
          *DEEPEP, "deepep_low_latency"),
        a("VLLM441", True, "pro 6000 x2 deepep high throughput", facts("rtx-pro-6000-x2", ("vllm==0.23.0",)),
          "--tensor-parallel-size", "2", *DEEPEP, "deepep_high_throughput"),
        a("VLLM441", False, "allgather_reducescatter", facts("dgx-spark", ("vllm==0.23.0",)),
          *DEEPEP, "allgather_reducescatter"),
        a("VLLM441", False, "no expert parallelism", facts("dgx-spark", ("vllm==0.23.0",)),
          "--all2all-backend", "deepep_low_latency"),
        a("VLLM441", True, "0.15.1 through VLLM_ALL2ALL_BACKEND", facts(
            "dgx-spark", ("vllm==0.15.1",), env={"VLLM_ALL2ALL_BACKEND": "deepep_low_latency"}),
          "--enable-expert-parallel"),
        a("VLLM441", False, "0.17.0 ignores VLLM_ALL2ALL_BACKEND", facts(
            "dgx-spark", ("vllm==0.17.0",), env={"VLLM_ALL2ALL_BACKEND": "deepep_low_latency"}),
          "--enable-expert-parallel"),
        a("VLLM441", False, "h100 (9.0a is built)", facts("h100-sxm-x8", ("vllm==0.23.0",)),
          *DEEPEP, "deepep_low_latency"),
    ]


def _lcpp220():
    lcpp = ("llama.cpp==b10800",)
    return [
        a("LCPP220", True, "5060 ti, nvcc 13.2.0", facts("rtx-5060-ti-16gb", lcpp, libs=(lib("nvcc", "13.2.51"),))),
        a("LCPP220", True, "5080, nvcc 13.2.1", facts("rtx-5080", lcpp, libs=(lib("nvcc", "13.2.78"),))),
        a("LCPP220", False, "nvcc 13.2.2", facts("rtx-5080", lcpp, libs=(lib("nvcc", "13.2.86"),))),
        a("LCPP220", False, "nvcc 13.1", facts("rtx-5080", lcpp, libs=(lib("nvcc", "13.1.115"),))),
        a("LCPP220", False, "gb10 (12.1 not tested)", facts("dgx-spark", lcpp, libs=(lib("nvcc", "13.2.51"),))),
        a("LCPP220", False, "h100 (9.0)", facts("h100-sxm-x8", lcpp, libs=(lib("nvcc", "13.2.51"),))),
        a("LCPP220", False, "vllm, not llama.cpp",
          facts("rtx-5080", ("vllm==0.25.1",), libs=(lib("nvcc", "13.2.51"),))),
    ]


def _lcpp221():
    def at(build_: str):
        return facts("rtx-5060-ti-16gb", (f"llama.cpp=={build_}",))

    return [
        a("LCPP221", True, "b9198 draft-mtp with mmproj", at("b9198"), "--spec-type", "draft-mtp",
          "--mmproj", "mmproj.gguf"),
        a("LCPP221", True, "b9190 (first bad) with -mm", at("b9190"), "--spec-type", "draft-mtp", "-mm", "mm.gguf"),
        a("LCPP221", False, "b9189 (before the bisected commit)", at("b9189"), "--spec-type", "draft-mtp",
          "--mmproj", "mmproj.gguf"),
        a("LCPP221", False, "no vision projector", at("b9198"), "--spec-type", "draft-mtp"),
        a("LCPP221", False, "no mtp", at("b9198"), "--mmproj", "mmproj.gguf"),
    ]


SPENTA_CASES = [
    *_vllm440(),
    *_fi260(),
    *_vllm441(),
    *_lcpp220(),
    *_lcpp221(),
    # DRV050: a Windows bugcheck line read from a log
    logged("DRV050", True, "its line on a 5070 ti", "rtx-5070-ti"),
    logged("DRV050", True, "its line on gb10", "dgx-spark"),
    logged("DRV050", False, "its line on h100", "h100-sxm-x8"),
    logged("DRV050", False, "check: no log", "rtx-5070-ti", shown=()),
]
