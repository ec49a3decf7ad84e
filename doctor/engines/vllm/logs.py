"""vLLM server logs: the version banner, `non-default args: {...}`, the attention backend it picked, the worker
prefixes `(VllmWorker rank=0 pid=...)` / `(EngineCore_DP0 pid=...)`."""

from __future__ import annotations

import ast
import re
from typing import Any

from doctor.engines.spi import VERSION, LineRule, LogFacts, args_to_argv, hint, scalar, version_of

FMT = "vllm"
MAX_ARGS = 20000  # characters of a non-default-args dict worth evaluating


def _args(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("vllm", line)
    values = literal_dict(m.group("args"))
    model = values.pop("model", None) or values.pop("model_tag", None)
    if isinstance(model, str):
        facts.set_once("model", model, line)
    facts.set_once("argv", args_to_argv(values, skip=("model_tag", "served_model_name", "api_key")), line)


def literal_dict(text: str) -> dict[str, object]:
    """A Python dict literal as the log printed it; keys whose values are not literals are read as text."""
    if len(text) <= MAX_ARGS:
        try:
            value = ast.literal_eval(text)
            if isinstance(value, dict):
                return {str(k): v for k, v in value.items()}
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            pass
    pairs = re.findall(r"'(\w+)': ('[^']*'|\"[^\"]*\"|[\w.+-]+)", text[:MAX_ARGS])
    return {k: v.strip("'\"") if v[:1] in "'\"" else scalar(v) for k, v in pairs}


def _backend(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    name = m.group("backend").split(".")[-1]
    facts.observed.setdefault("attention_backend", _stated(name, line))


def _stated(value: object, line: int):
    from doctor.engines.spi import Stated

    return Stated(value, line)


ESTIMATE_ENV = "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"


def _graph_profiling(m: Any, line: int, facts: LogFacts) -> None:
    """The worker's own word on the CUDA-graph memory estimate (vllm/v1/worker/gpu_worker.py, 0.18.0 on: "CUDA graph
    memory profiling is enabled" / "is disabled (...=0)" / "In v0.19, CUDA graph memory profiling will be enabled by
    default", printed when it is off): the switch's value where the environment the log shows does not state it."""
    facts.saw(FMT, line)
    facts.hint_engine("vllm", line)
    facts.env.setdefault(ESTIMATE_ENV, _stated("1" if m.group("state") == "is enabled" else "0", line))


# pip names of this engine's packages as environment dumps list them → the doctor's library names
PACKAGES = {"vllm": "vllm"}

RULES = (
    LineRule(FMT, r"[█▀▄]\s+version " + VERSION, version_of("vllm", FMT, "vllm")),
    LineRule(FMT, r"vllm/vllm-openai:v" + VERSION, version_of("vllm", "command", "vllm")),
    LineRule(FMT, r"vllm/vllm-openai(?::|\s)", hint("command", "vllm")),
    LineRule(FMT, r"vLLM API server version " + VERSION, version_of("vllm", FMT, "vllm")),
    LineRule(FMT, r"Initializing an? (?:V1 )?LLM engine \(v" + VERSION + r"\)", version_of("vllm", FMT, "vllm")),
    # collect_env's `vLLM Version : 0.9.2` is read with every labelled version (doctor/diagnose/formats/collect_env.py)
    LineRule(FMT, r"non-default args: (?P<args>\{.*\})", _args),
    LineRule(FMT, r"Using (?P<backend>[\w.]+) (?:attention )?backend", _backend),
    LineRule(FMT, r"CUDA graph memory profiling (?P<state>is enabled|is disabled|will be enabled by default)",
             _graph_profiling),
    LineRule(FMT, r"\((?:VllmWorker|EngineCore|APIServer|Worker|RayWorkerWrapper)\w*(?: rank=\d+)? pid=\d+"
                  r"(?:, ip=[\w.:-]+)?\)", hint(FMT, "vllm")),
    LineRule(FMT, r"(?:site|dist)-packages/vllm/", hint(FMT, "vllm")),
    LineRule(FMT, r"(?:INFO|WARNING|ERROR|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.]+\.py:\d+\]",
             hint(FMT, "vllm")),
)
