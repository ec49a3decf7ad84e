"""TensorRT-LLM logs: `[TensorRT-LLM] TensorRT-LLM version: X`, `[TRT-LLM]` prefixes, the LLM-API option dump."""

from __future__ import annotations

from typing import Any

from doctor.engines.spi import VERSION, LineRule, LogFacts, hint, version_of

FMT = "tensorrt_llm"


def _backend(m: Any, line: int, facts: LogFacts) -> None:
    """`MoE backend: X` alone names no engine: vLLM prints `NvFp4 MoE backend 'FLASHINFER_CUTLASS' ...` too."""
    facts.observed.setdefault(m.group("what").lower() + "_backend", _stated(m.group("backend"), line))


def _model(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("tensorrt-llm", line)
    facts.set_once("model", m.group("model"), line)


def _stated(value: object, line: int):
    from doctor.engines.spi import Stated

    return Stated(value, line)


# pip names of this engine's packages as environment dumps list them → the doctor's library names
PACKAGES = {"tensorrt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm"}

RULES = (
    # the issue form's `- TensorRT-LLM branch or tag (e.g., main, v0.7.1): v1.2.0rc1` (the banner's `TensorRT-LLM
    # version: X` is read with every labelled version, doctor/diagnose/formats/collect_env.py)
    LineRule(FMT, r"(?i)TensorRT-LLM branch or tag(?: \([^)]{0,60}\))?:? v?" + VERSION,
             version_of("tensorrt-llm", FMT, "tensorrt-llm")),
    LineRule(FMT, r"tensorrt_llm(?:==| version:? )" + VERSION, version_of("tensorrt-llm", FMT, "tensorrt-llm")),
    # `[TensorRT-LLM][ERROR]` alone is not this engine: FlashInfer's bundled TensorRT-LLM kernels print it
    # inside the other engines too
    LineRule(FMT, r"\[TRT-?LLM\]|\[TensorRT-LLM\](?:[^[]|$)|(?:site|dist)-packages/tensorrt_llm/|trtllm-serve",
             hint(FMT, "tensorrt-llm")),
    LineRule(FMT, r"(?P<what>MoE|Attention) backend:? ['\"]?(?P<backend>\w+)", _backend),
    LineRule(FMT, r"(?:model|model_dir|hf_model_dir)=['\"](?P<model>[^'\"]+)['\"]", _model),
)
