"""SGLang server logs: `server_args=ServerArgs(...)`, its `[2025-07-29 15:06:51 TP0]` prefix, source paths."""

from __future__ import annotations

import ast
import re
from typing import Any

from doctor.engines.spi import VERSION, LineRule, LogFacts, args_to_argv, hint, version_of

FMT = "sglang"
MAX_ARGS = 65536
# ServerArgs fields worth passing to `check` as flags: the ones that choose kernels, backends and layouts.
FLAGS = ("tp_size", "pp_size", "ep_size", "dp_size", "attention_backend", "prefill_attention_backend",
         "decode_attention_backend", "moe_runner_backend", "moe_a2a_backend", "quantization", "kv_cache_dtype",
         "context_length", "mem_fraction_static", "chunked_prefill_size", "disable_cuda_graph", "disable_radix_cache",
         "enable_dp_attention", "speculative_algorithm", "fp8_gemm_runner_backend", "fp4_gemm_runner_backend",
         "enable_ep_moe", "enable_deepep_moe", "dtype", "max_running_requests", "cuda_graph_max_bs",
         "disable_shared_experts_fusion", "enable_piecewise_cuda_graph", "sampling_backend", "grammar_backend",
         "dsv4_attn_backend", "qsa_indexer_dtype")
# ServerArgs fields whose command-line flag is spelled otherwise (server_args.py: `--fp8-gemm-backend`,
# dest="fp8_gemm_runner_backend"): without this, `--fp8-gemm-runner-backend` reaches `check` as an unknown flag.
FLAG_OF_FIELD = {"fp8_gemm_runner_backend": "fp8_gemm_backend", "fp4_gemm_runner_backend": "fp4_gemm_backend"}


def _server_args(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("sglang", line)
    text = m.group("args")
    values = keyword_args(text[:-1] if text.endswith(")") else text)
    model = values.get("model_path")
    if isinstance(model, str):
        facts.set_once("model", model, line)
    chosen = {FLAG_OF_FIELD.get(k, k): values[k] for k in FLAGS if k in values}
    facts.set_once("argv", args_to_argv(chosen), line)


def _capability(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("sglang", line)
    for index in m.group("index").split(",")[:64]:
        facts.gpu_capability(int(index), m.group("cc"), line)


def keyword_args(text: str) -> dict[str, object]:
    """`a=1, b='x', c=None, d=SomeObject(...)` → the literal ones; others are skipped."""
    text = text[:MAX_ARGS]
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        call = None
    values: dict[str, object] = {}
    if isinstance(call, ast.Call):
        for keyword in call.keywords:
            try:
                values[str(keyword.arg)] = ast.literal_eval(keyword.value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
        return values
    for key, value in re.findall(r"(\w+)=('[^']*'|\"[^\"]*\"|[\w.+-]+)", text):  # a cut line: what is whole
        values.setdefault(key, value.strip("'\"") if value[:1] in "'\"" else _literal(value))
    return values


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


# pip names of this engine's packages as environment dumps list them → the doctor's library names
PACKAGES = {"sglang": "sglang", "sgl-kernel": "sgl-kernel", "sglang-kernel": "sgl-kernel"}

RULES = (
    LineRule(FMT, r"lmsysorg/sglang:v" + VERSION, version_of("sglang", "command", "sglang")),
    LineRule(FMT, r"server_args=ServerArgs\((?P<args>.*)\)?", _server_args),
    LineRule(FMT, r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: (?:DP\d+ )?(?:PP\d+ )?(?:TP\d+)(?: EP\d+)?)?\] ",
             hint(FMT, "sglang")),
    LineRule(FMT, r"(?:site|dist)-packages/sglang/|sglang\.launch_server|sglang serve|sglang\.check_env",
             hint(FMT, "sglang")),
    # `python -m sglang.check_env` groups like GPUs: `GPU 0,1,2,3 Compute Capability: 12.0` (its name line is read
    # with collect_env's `GPU 0: NAME`); no other tool prints this line, so it names SGLang too
    LineRule(FMT, r"(?:^|\s)GPU (?P<index>\d+(?:,\d+)*) Compute Capability: (?P<cc>\d+\.\d+)\b", _capability),
    # `python -m sglang.check_env` prints the torch it runs on as `PyTorch: 2.9.0.dev20250722+cu128`
    LineRule(FMT, r"^PyTorch: " + VERSION + r"\s*$", version_of("torch", FMT)),
)
