"""From the SGLang runner's raw records to the dispatch table: per (capability, grid query) what
`ServerArgs.__post_init__` chose (attention backend for prefill and decode, MoE runner, FP8/FP4 GEMM runner,
sampling backend, disabled features), every field it changed, the runner globals the layers read, the MoE
and linear kernels the built layers hold, SGLang's log lines and every exception."""

from __future__ import annotations

import re
from typing import Any

from doctor.engines.derived_tables import kv_class, shape_key
from tools.engine_oracle.grid import Query
from tools.engine_oracle.tables import EMULATION_ARTEFACT, classify

# What SGLang raises on purpose when it refuses a model, flags or device: its server-args checks are asserts
# and RuntimeErrors as often as ValueErrors.
REJECTION_TYPES = ("ValueError", "NotImplementedError", "AssertionError", "RuntimeError")
# The oracle's own set-up of the scheduler's globals and the distributed world: a failure there is the
# emulation's limit (a release that sets them up another way), never SGLang's answer.
HARNESS_STAGES = ("setup",)
DECISION_LINE = re.compile(r"backend|[Ff]all(ing)? ?back|not supported|[Dd]isabl|[Ee]nabl|[Ss]witch|[Oo]verrid|"
                           r"instead|[Uu]se .* by default|[Dd]etected|[Ff]orc|only support", re.S)
FORCED_FLAGS = {"--attention-backend": "attention_backend", "--moe-runner-backend": "moe_runner_backend",
                "--quantization": "quantization", "--prefill-attention-backend": "prefill_attention_backend",
                "--decode-attention-backend": "decode_attention_backend", "--fp8-gemm-backend": "fp8_gemm_backend"}
FEATURES = ("disable_cuda_graph", "disable_overlap_schedule", "disable_radix_cache",
            "disable_chunked_prefix_cache", "enable_piecewise_cuda_graph", "disable_piecewise_cuda_graph",
            "disable_shared_experts_fusion", "disable_hybrid_swa_memory")


# Messages that come from the grid's config directory (no weights, no custom code), from a kernel library asking
# the (absent) GPU, or from the grid's synthetic block-FP8 config quantizing a layer real checkpoints leave in
# BF16 (Qwen3-Next's in_proj_ba, 32 wide): not from a check the user's checkpoint meets.
# DeepGEMM's device runtime (jit/device_runtime.hpp, runtime/runtime.hpp) asks the CUDA runtime, or cuBLASLt
# from 0.5.16 on ("cuBLASLt error (...runtime.hpp:44): 1 (the library was not initialized)"), for the device.
GRID_ARTEFACT = re.compile(r"contains custom code|trust_remote_code|does not appear to have a file named|"
                           r"CUDA runtime error|Found no NVIDIA driver|safetensors|No such file|"
                           r"is not divisible by weight quantization block|"
                           r"cuBLASLt error \([^)]*runtime\.hpp:\d+\): 1 \(the library was not initialized\)", re.S)


def error_kind(error: dict[str, Any]) -> str:
    """`flag`: argparse refused a value the release does not offer (the flag checks say so already);
    `rejection`: SGLang refuses the model, flags or device on purpose; `emulation`: the emulation's own limit."""
    if error["type"] == "SystemExit" and error["stage"] == "server_args":
        return "flag"
    if error["stage"] in HARNESS_STAGES or EMULATION_ARTEFACT.search(error["message"]) \
            or GRID_ARTEFACT.search(error["message"]) or error["type"] not in REJECTION_TYPES:
        return "emulation"
    return "rejection"


def _forced(flags: list[str]) -> dict[str, str]:
    return {key: flags[flags.index(flag) + 1] for flag, key in FORCED_FLAGS.items() if flag in flags}


def _attention(server_args: dict[str, Any]) -> dict[str, Any] | None:
    if not server_args:
        return None
    both = server_args.get("attention_backend")
    return {"backend": both, "prefill": server_args.get("prefill_attention_backend") or both,
            "decode": server_args.get("decode_attention_backend") or both,
            "nsa": {k: server_args[k] for k in ("nsa_prefill_backend", "nsa_decode_backend") if server_args.get(k)}}


def _kernels(layer: dict[str, Any]) -> dict[str, str]:
    """The kernels and switches the layer's quantization method holds; the block-FP8 GEMM only where the
    checkpoint is block-quantized (Fp8LinearMethod picks it for every FP8 layer, uses it for block ones)."""
    kernels = {k.removeprefix("quant_method."): v for k, v in layer.items()
               if k.startswith("quant_method.") and not k.endswith(("config", "routing_method_type"))}
    if kernels.get("block_quant") == "False":
        kernels.pop("w8a8_block_fp8_linear", None)
    return kernels


def _moe(record: dict[str, Any]) -> dict[str, Any] | None:
    resolved = record.get("resolved_after_build") or record.get("resolved") or {}
    for layer in record.get("layers", []):
        if "MoE" in layer["layer"] or "Experts" in layer["layer"]:
            kernels = _kernels(layer)
            runner = kernels.get("runner.runner_backend", "")
            return {"layer": layer["layer"], "method": layer.get("quant_method"),
                    "runner_backend": resolved.get("moe_runner_backend"),
                    "runner": runner.split(".", 1)[-1].lower() if runner else None,
                    "fused_func": kernels.get("runner.fused_func"), "kernels": kernels}
    return None


def _linear(record: dict[str, Any]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for layer in record.get("layers", []):
        method = layer.get("quant_method", "")
        if "Linear" not in layer["layer"] or not method or method == "UnquantizedLinearMethod":
            continue
        kernels = _kernels(layer)
        key = f"{method}:{sorted(kernels.items())}"
        seen.setdefault(key, {"method": method, "kernels": kernels, "layers": []})["layers"].append(layer["layer"])
    return list(seen.values())


def entry(capability: str, query: Query, provenance: str, record: dict[str, Any]) -> dict[str, Any]:
    shape = classify(query.config)
    flags = list(query.flags)
    server_args = record.get("server_args") or {}
    kv = kv_class(flags[flags.index("--kv-cache-dtype") + 1]) if "--kv-cache-dtype" in flags else "auto"
    return {
        "capability": capability, "grid": query.id, "grid_shape": query.shape, "provenance": provenance,
        "shape": shape, "shape_key": shape_key(shape), "kv_cache_dtype": kv, "forced": _forced(flags),
        "env": dict(query.env), "flags": flags,
        "model": record.get("model_config"),
        "attention": _attention(server_args),
        "server_args": server_args,
        "features": {k: server_args[k] for k in FEATURES if server_args.get(k)},
        "changed": record.get("changed", {}),
        "resolved": record.get("resolved_after_build") or record.get("resolved"),
        "moe": _moe(record), "linear": _linear(record),
        "errors": [{**error, "kind": error_kind(error)} for error in record.get("errors", [])],
        "log": [f"{line['level']}: {line['msg'][:600]}" for line in record.get("log", [])
                if (line["level"] in ("WARNING", "ERROR") or DECISION_LINE.search(line["msg"]))
                and not line["msg"].startswith("Ignore import error")],
        "seconds": record.get("seconds"),
    }
