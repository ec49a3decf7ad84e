"""Positive and boundary cases for the local-runtime rules of know-lcpp2 (rules/local_runtimes.toml): a llama.cpp
build compiled by nvcc 13 that links libcudart.so.12 (LCPP060) and the aborts its logs show (LCPP061).
test_rule_cases.py adds them to CASES."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

R5090, PRO, SPARK, H100, B200 = "rtx-5090", "rtx-pro-6000-x8", "dgx-spark", "h100-sxm-x8", "b200-x8"


def linked(toolkit: str | None, cudart: int | None, profile: str = R5090, **details: Any) -> Callable[[], Facts]:
    """A llama.cpp build as the probe reads it: nvcc's release from the device code, the libcudart.so.N it needs."""
    return lambda: build(profile, libs=(lib("llama.cpp", "10808", cuda_library="/x/libggml-cuda.so",
                                            cuda_archs=["sm_120a", "sm_121a"], toolkit=toolkit,
                                            cudart_major=cudart, **details),))


def aborted(op: str | None = "SOFT_MAX", error: str = "invalid argument", function: str | None = None,
            profile: str = R5090, toolkit: str | None = None, cudart: int | None = None) -> Callable[[], Facts]:
    """A llama.cpp log's abort: `ggml_cuda_compute_forward: OP failed`, `CUDA error: ERROR`, `in function F`."""
    logged = {"logged_cuda_error": error}
    if op:
        logged["logged_failed_op"] = op
    if function:
        logged["logged_cuda_error_function"] = function
    return lambda: build(profile, libs=(lib("llama.cpp", "10808", toolkit=toolkit, cudart_major=cudart,
                                            **logged),))


LCPP2_CASES = [
    a("LCPP060", True, "nvcc 13.3, libcudart.so.12 on a 5090", linked("13.3", 12)),
    a("LCPP060", True, "nvcc 13.0.88, libcudart.so.12 on GB10", linked("13.0.88", 12, SPARK)),
    a("LCPP060", True, "nvcc 13.3, libcudart.so.12 on a PRO 6000", linked("13.3", 12, PRO)),
    a("LCPP060", False, "nvcc 13.3, libcudart.so.13", linked("13.3", 13)),
    a("LCPP060", False, "nvcc 12.9, libcudart.so.12", linked("12.9", 12)),
    a("LCPP060", False, "nvcc 13.3, static cudart (no DT_NEEDED)", linked("13.3", None)),
    a("LCPP060", False, "toolkit not read, libcudart.so.12", linked(None, 12)),
    a("LCPP060", False, "nvcc 13.3, libcudart.so.12 on an H100 (9.0)", linked("13.3", 12, H100)),
    a("LCPP060", False, "nvcc 13.3, libcudart.so.12 on a B200 (10.0)", linked("13.3", 12, B200)),
    a("LCPP061", True, "SOFT_MAX invalid argument on a 5090", aborted()),
    a("LCPP061", True, "SOFT_MAX invalid argument on GB10", aborted(profile=SPARK)),
    a("LCPP061", True, "mm_ids_helper invalid argument", aborted(None, function="ggml_cuda_launch_mm_ids_helper")),
    a("LCPP061", True, "SOFT_MAX, nvcc 13.3 + libcudart.so.12", aborted(toolkit="13.3", cudart=12)),
    a("LCPP061", False, "SOFT_MAX, nvcc 13.3 + libcudart.so.13 (linkage matched)", aborted(toolkit="13.3", cudart=13)),
    a("LCPP061", False, "SOFT_MAX out of memory", aborted(error="out of memory")),
    a("LCPP061", False, "MUL_MAT invalid argument", aborted("MUL_MAT")),
    a("LCPP061", False, "SOFT_MAX invalid argument on an H100", aborted(profile=H100)),
    a("LCPP061", False, "SOFT_MAX invalid argument on a B200", aborted(profile=B200)),
    a("LCPP061", False, "no abort logged", linked(None, None)),
]


def lmdeploy(version: str, profile: str = R5090, model: str | None = None) -> Callable[[], Facts]:
    """`--engine lmdeploy==VERSION` (a PyPI wheel), with or without a model."""
    return lambda: build(profile, model, (f"lmdeploy=={version}",))


QWEN3_MOE = "Qwen/Qwen3-30B-A3B"  # Qwen3MoeForCausalLM: TurboMind serves it at every tag v0.7.3-v0.12.3
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"  # LlamaForCausalLM: TurboMind only for head_dim 64/128 (a condition)

LMD_CASES = [
    a("LMD001", True, "0.12.3 + Qwen3-MoE on a 5090", lmdeploy("0.12.3", model=QWEN3_MOE)),
    a("LMD001", True, "0.11.1 + Qwen3-MoE on a PRO 6000", lmdeploy("0.11.1", PRO, QWEN3_MOE)),
    a("LMD001", True, "0.12.3 + Qwen3-MoE on GB10", lmdeploy("0.12.3", SPARK, QWEN3_MOE)),
    a("LMD001", False, "0.13.0 + Qwen3-MoE (sm_120a in the wheel)", lmdeploy("0.13.0", model=QWEN3_MOE)),
    a("LMD001", False, "0.12.3+cu128 (GitHub wheel)", lmdeploy("0.12.3+cu128", model=QWEN3_MOE)),
    a("LMD001", False, "0.12.3 + Llama (head-size condition: LMD002)", lmdeploy("0.12.3", model=LLAMA)),
    a("LMD001", False, "0.12.3, no model (LMD002)", lmdeploy("0.12.3")),
    a("LMD001", False, "0.12.3 + Qwen3-MoE on an H100", lmdeploy("0.12.3", H100, QWEN3_MOE)),
    a("LMD001", False, "0.12.3 + Qwen3-MoE on a B200", lmdeploy("0.12.3", B200, QWEN3_MOE)),
    a("LMD002", True, "0.12.3, no model", lmdeploy("0.12.3")),
    a("LMD002", True, "0.12.3 + Llama", lmdeploy("0.12.3", model=LLAMA)),
    a("LMD002", False, "0.12.3 + Qwen3-MoE (LMD001's)", lmdeploy("0.12.3", model=QWEN3_MOE)),
    a("LMD002", False, "0.13.0, no model", lmdeploy("0.13.0")),
    a("LMD002", False, "0.12.3, no model, H100", lmdeploy("0.12.3", H100)),
    a("LMD003", True, "0.16.0 on GB10", lmdeploy("0.16.0", SPARK)),
    a("LMD003", True, "0.13.0 on GB10", lmdeploy("0.13.0", SPARK, QWEN3_MOE)),
    a("LMD003", False, "0.12.3 on GB10 (LMD001/LMD002's)", lmdeploy("0.12.3", SPARK)),
    a("LMD003", False, "0.16.0 on a 5090 (12.0: sm_120a runs)", lmdeploy("0.16.0")),
    a("LMD003", False, "no lmdeploy on GB10", linked(None, None, SPARK)),
]
LCPP2_CASES += LMD_CASES


def on_driver(toolkit: str, driver: str, profile: str = R5090, cuda: str | None = None) -> Callable[[], Facts]:
    """A llama.cpp build by CUDA `toolkit` on driver `driver` (its CUDA version stated or not)."""
    return lambda: build(profile, libs=(lib("llama.cpp", "10808", cuda_library="/x/libggml-cuda.so",
                                            cuda_archs=["sm_120a", "sm_121a"], toolkit=toolkit),),
                         driver=driver, cuda_driver=cuda)


LCPP2_CASES += [
    a("LCPP062", True, "CUDA 13.1 build on driver 575.57.08", on_driver("13.1", "575.57.08")),
    a("LCPP062", True, "CUDA 13.0 build on driver 570.86 (CUDA 12.8 stated)", on_driver("13.0", "570.86", cuda="12.8")),
    a("LCPP062", True, "win-cuda-13.1 asset on driver 576.02", lambda: build(
        R5090, engines=("llama.cpp==llama-b9835-bin-win-cuda-13.1-x64.zip",), driver="576.02")),
    a("LCPP062", False, "CUDA 13.1 build on driver 580.65.06", on_driver("13.1", "580.65.06")),
    a("LCPP062", False, "CUDA 12.8 build on driver 570.86", on_driver("12.8", "570.86")),
    a("LCPP062", False, "CUDA 13.1 build on driver 575 stating CUDA 13.0", on_driver("13.1", "575.57.08", cuda="13.0")),
    a("LCPP062", False, "CUDA 13.1 build on driver 575 on an H100", on_driver("13.1", "575.57.08", H100)),
    a("LCPP062", False, "CUDA 13.1 build on driver 575 on a B200", on_driver("13.1", "575.57.08", B200)),
]


def ollama_cuinit(code: str | None, profile: str = PRO, os_name: str = "Linux") -> Callable[[], Facts]:
    """An Ollama log that recorded `cuda driver library init failure: CODE`."""
    import dataclasses

    def facts() -> Facts:
        details = {"cuda_init_error": code} if code else {}
        built = build(profile, libs=(lib("ollama", "0.11.6", **details),))
        return built.replace(host=dataclasses.replace(built.host, os=os_name))
    return facts


LCPP2_CASES += [
    a("OLL010", True, "cuInit 3 on a PRO 6000 under Linux", ollama_cuinit("3")),
    a("OLL010", True, "cuInit 3 on GB10", ollama_cuinit("3", SPARK)),
    a("OLL010", False, "cuInit 100 (no device)", ollama_cuinit("100")),
    a("OLL010", False, "no CUDA init failure logged", ollama_cuinit(None)),
    a("OLL010", False, "cuInit 3 under Windows", ollama_cuinit("3", os_name="Windows")),
    a("OLL010", False, "cuInit 3 on an H100", ollama_cuinit("3", H100)),
]


def mtp(build_number: int) -> Callable[[], Facts]:
    return lambda: build(R5090, engines=(f"llama.cpp=={build_number}",))


LCPP2_CASES += [
    a("LCPP063", True, "b10741 --spec-type draft-mtp", mtp(10741), "--spec-type", "draft-mtp"),
    a("LCPP063", True, "b10748 --spec-type draft-mtp", mtp(10748), "--spec-type", "draft-mtp"),
    a("LCPP063", False, "b10749 --spec-type draft-mtp (fixed)", mtp(10749), "--spec-type", "draft-mtp"),
    a("LCPP063", False, "b10740 --spec-type draft-mtp (not established)", mtp(10740), "--spec-type", "draft-mtp"),
    a("LCPP063", False, "b10745 without MTP drafting", mtp(10745)),
    a("LCPP063", False, "b10745 --spec-type ngram-map-k4v", mtp(10745), "--spec-type", "ngram-map-k4v"),
]


LCPP2_CASES += [
    a("LCPP062", False, "nvcc 13.0 build linking libcudart.so.12 on driver 575 (runtime 12: LCPP060's)", lambda: build(
        R5090, libs=(lib("llama.cpp", "10808", cuda_library="/x/libggml-cuda.so", cuda_archs=["sm_120a"],
                         toolkit="13.0", cudart_major=12),), driver="575.57.08")),
    a("LCPP062", True, "libcudart.so.13 build on driver 575", lambda: build(
        R5090, libs=(lib("llama.cpp", "10808", cuda_library="/x/libggml-cuda.so", cuda_archs=["sm_120a"],
                         toolkit="13.0", cudart_major=13),), driver="575.57.08")),
]
