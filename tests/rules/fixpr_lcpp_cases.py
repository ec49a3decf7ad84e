"""Positive and boundary cases for the merged-fix rules of fixpr-lcpp (rules/fixpr_lcpp.toml): llama.cpp builds and
Ollama releases before the fix, the first ones after it, the other SM12x part and 9.0/10.0. test_rule_cases.py adds
them to CASES."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

R5080, R5090, SPARK, H100, B200 = "rtx-5080", "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"


def mmq_abort(variable: str | None = "J_best", profile: str = R5080, build_number: str = "10178",
              **details: Any) -> Callable[[], Facts]:
    """A llama.cpp log whose MMQ found no tile: `J_best=0` (`mmq_x_best=0` before b10001), then `fatal error`."""
    logged = {"logged_mmq_no_tile": variable} if variable else {}
    return lambda: build(profile, libs=(lib("llama.cpp", build_number, **logged, **details),))


def trt(version: str, model: str | None = None, profile: str = SPARK) -> Callable[[], Facts]:
    """`--engine tensorrt-llm==X` with a model (moe_config.backend left to AUTO)."""
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",))


NVFP4_MOE = "tests/cases/models/qwen3.6-35b-a3b-nvfp4"
FP8_MOE = "tests/cases/models/qwen3-30b-a3b-fp8"
NVFP4_DENSE = "nvidia/Qwen3-32B-NVFP4"  # bundled: dense, NVFP4


def ollama(version: str, library: str | None, profile: str = SPARK, os: str = "Linux") -> Callable[[], Facts]:
    """`--engine ollama==X` with the server's OLLAMA_LLM_LIBRARY as given (None: unset)."""
    def facts() -> Facts:
        env = {"OLLAMA_LLM_LIBRARY": library} if library is not None else None
        built = build(profile, engines=(f"ollama=={version}",), env=env)
        return built.replace(host=dataclasses.replace(built.host, os=os))
    return facts


FIXPR_LCPP_CASES = [
    a("LCPP100", True, "J_best=0 on an RTX 5080 (b10178)", mmq_abort()),
    a("LCPP100", True, "mmq_x_best=0 on an RTX 5090 (b8390)", mmq_abort("mmq_x_best", R5090, "8390")),
    a("LCPP100", True, "J_best=0 on GB10", mmq_abort(profile=SPARK)),
    a("LCPP100", False, "no MMQ abort in the log", mmq_abort(None)),
    a("LCPP100", False, "J_best=0 on an H100 (9.0)", mmq_abort(profile=H100)),
    a("LCPP100", False, "J_best=0 on a B200 (10.0)", mmq_abort(profile=B200)),
    a("OLL060", True, "0.13.0 on GB10, OLLAMA_LLM_LIBRARY=cuda (the playbook's value)", ollama("0.13.0", "cuda")),
    a("OLL060", True, "0.12.4 (first runner discovery) on a 5090, cuda_v12.4", ollama("0.12.4", "cuda_v12.4", R5090)),
    a("OLL060", True, "0.33.0 on a 5090 under Windows, CUDA", ollama("0.33.0", "CUDA", R5090, "Windows")),
    a("OLL060", True, "0.30.0 on GB10, rocm", ollama("0.30.0", "rocm")),
    a("OLL060", False, "cuda_v13", ollama("0.13.0", "cuda_v13")),
    a("OLL060", False, "cuda_v12", ollama("0.13.0", "cuda_v12")),
    a("OLL060", False, "\"cuda_v13\" quoted (envconfig trims quotes)", ollama("0.13.0", '"cuda_v13"')),
    a("OLL060", False, "vulkan", ollama("0.13.0", "vulkan")),
    a("OLL060", False, "cpu (asked for)", ollama("0.13.0", "cpu")),
    a("OLL060", False, "mlx_cuda_v13 (not a filter from 0.30.0)", ollama("0.30.0", "mlx_cuda_v13")),
    a("OLL060", False, "unset", ollama("0.13.0", None)),
    a("OLL060", False, "empty", ollama("0.13.0", "")),
    a("OLL060", False, "0.12.3: discovery before the runner libraries", ollama("0.12.3", "cuda")),
    a("OLL060", False, "cuda on an H100 (9.0)", ollama("0.13.0", "cuda", H100)),
    a("OLL060", False, "cuda on a B200 (10.0)", ollama("0.13.0", "cuda", B200)),
    a("TRT070", True, "1.3.0rc7 + NVFP4 MoE on GB10 (AUTO -> CUTLASS)", trt("1.3.0rc7", NVFP4_MOE)),
    a("TRT070", True, "1.2.1 + NVFP4 MoE on an RTX PRO 6000", trt("1.2.1", NVFP4_MOE, "rtx-pro-6000")),
    a("TRT070", False, "1.3.0rc8: not known to lack the fix", trt("1.3.0rc8", NVFP4_MOE)),
    a("TRT070", False, "0.20.0: before 1.0", trt("0.20.0", NVFP4_MOE)),
    a("TRT070", False, "an FP8 MoE model", trt("1.3.0rc7", FP8_MOE)),
    a("TRT070", False, "a dense NVFP4 model", trt("1.3.0rc7", NVFP4_DENSE)),
    a("TRT070", False, "no model", trt("1.3.0rc7")),
    a("TRT070", False, "NVFP4 MoE on an H100 (9.0)", trt("1.3.0rc7", NVFP4_MOE, H100)),
    a("TRT070", False, "NVFP4 MoE on a B200 (10.0)", trt("1.3.0rc7", NVFP4_MOE, B200)),
]
