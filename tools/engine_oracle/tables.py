"""From the runner's raw records to the dispatch table: per (capability, grid query) the attention backend
(with vLLM's rejected candidates and reasons), the MoE method, backend and experts class, the linear kernels
per layer type, the quantization config, the backend lines vLLM logged and every exception."""

from __future__ import annotations

import re
from typing import Any

from doctor.engines.vllm.shape_class import shape_class, shape_key
from doctor.probe.model_config import parse_model
from tools.engine_oracle.grid import Query

DECISION_LINE = re.compile(r"Using .*backend|Using .* for (NVFP4 GEMM|\w*MoE)|Selected \S+ for|[Ff]all(ing)? ?back|"
                           r"Using FlashAttention version|"
                           r"[Mm]arlin|not supported|"
                           r"disabled|[Ss]witching|[Oo]verrid|instead", re.S)
MOE_WORDS = ("MoE", "Experts")
NOT_SOFTMAX = ("INDEXER", "GDN", "MAMBA", "LINEAR", "SHORT_CONV", "KDA")
# What the engine raises on purpose when it refuses a model, flags or device; anything else (a meta tensor, the
# stub driver) is the emulation's own limit and is recorded as such, never as the engine's answer.
REJECTION_TYPES = ("ValueError", "NotImplementedError", "SystemExit", "ArgumentError", "ArgumentTypeError")
EMULATION_ARTEFACT = re.compile(r"\bmeta\b|CUDA driver|cudaGetDevice|libcuda|NVML|[Nn]o CUDA GPUs|"
                                r"DistNetworkError|Tensor\.item|CUDA error|device-side|torch\.cuda", re.S)


def error_kind(error: dict[str, Any]) -> str:
    artefact = EMULATION_ARTEFACT.search(error["message"]) is not None
    return "rejection" if error["type"] in REJECTION_TYPES and not artefact else "emulation"


def classify(config: dict[str, Any], drafter: str | None = None) -> dict[str, Any]:
    model = parse_model(config, None, model_id="oracle-grid", source="bundled", source_path=None)
    return shape_class(model, drafter)


def _attention(record: dict[str, Any]) -> dict[str, Any] | None:
    by_layer: dict[str, int] = {}
    for layer in record.get("layers", []):
        if "attn_backend" in layer:
            by_layer[layer["attn_backend"]] = by_layer.get(layer["attn_backend"], 0) + layer["count"]
    calls = record.get("attention_calls", [])
    rejected: dict[str, list[str]] = {}
    valid: list[str] = []
    for call in calls:
        if call["kind"] == "candidates":
            rejected.update(call["rejected"])
            valid += [name for name in call["valid"] if name not in valid]
    forced_errors = [call["error"] for call in calls if call.get("error")]
    # per backend: the reasons vLLM gives when it is forced here (empty: accepted), over every attention layer
    forced: dict[str, list[str]] = {}
    for call in calls:
        for name, reasons in call.get("every_backend", {}).items():
            forced.setdefault(name, [])
            forced[name] += [r for r in reasons if r not in forced[name]]
    if not by_layer and not calls:
        return None
    # the softmax-attention backend; Mamba/linear-attention mixers and the sparse-MLA indexer are listed in
    # `layers` but chosen by their own selectors
    softmax = {n: c for n, c in by_layer.items() if not any(word in n for word in NOT_SOFTMAX)} or by_layer
    chosen = max(softmax, key=lambda name: softmax[name]) if softmax else None
    return {"backend": chosen, "layers": by_layer, "valid": valid, "rejected": rejected,
            "if_forced": forced, "errors": forced_errors}


def _kernels(layer: dict[str, Any]) -> dict[str, str]:
    """The kernels a layer's quantization method holds, and the scheme or kernel the layer holds itself
    (compressed-tensors keeps them on the layer)."""
    kernels = {k.removeprefix("quant_method."): v for k, v in layer.items() if k.startswith("quant_method.")}
    kernels.update({k: layer[k] for k in ("scheme", "kernel", "moe_kernel") if k in layer})
    return kernels


# Before the MoE backend enums (0.13 and earlier) ModelOpt's NVFP4 MoE method keeps only booleans and logs
# its choice: "Using Cutlass for ModelOptNvFp4FusedMoE.", "Using FlashInfer CUTLASS kernels for ...".
LOGGED_MOE_BACKEND = re.compile(r"^Using (.+?)(?: kernels)? for (\w*MoE\w*)\.?$")


def _logged_moe_backend(record: dict[str, Any], method: str) -> str | None:
    for line in record.get("log", []):
        found = LOGGED_MOE_BACKEND.match(line["msg"])
        if found and found.group(2) == method:
            return found.group(1).upper().replace(" ", "_").replace("-", "_")
    return None


def _moe(record: dict[str, Any]) -> dict[str, Any] | None:
    for layer in record.get("layers", []):
        method = layer.get("quant_method", "")
        if any(word in method for word in MOE_WORDS) or "Experts" in layer["layer"]:
            kernels = _kernels(layer)
            backend = next((v.split(".", 1)[1] for k, v in kernels.items() if "backend" in k and "." in v), None)
            experts = next((v for k, v in kernels.items() if "experts" in k.lower() or v.endswith("Experts")), None)
            moe = {"method": method, "backend": backend, "experts": experts, "kernels": kernels}
            if backend is None and (logged := _logged_moe_backend(record, method)):
                moe.update(backend=logged, backend_from="log")
            return moe
    return None


def _linear(record: dict[str, Any]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for layer in record.get("layers", []):
        method = layer.get("quant_method", "")
        if not method.endswith("LinearMethod") and "Linear" not in layer["layer"]:
            continue
        kernels = _kernels(layer)
        key = f"{method}:{sorted(kernels.items())}"
        if key not in seen:
            seen[key] = {"method": method, "kernels": kernels, "layers": []}
        seen[key]["layers"].append(layer["layer"])
    return list(seen.values())


def kv_class(value: str) -> str:
    """fp8 for every FP8 spelling (fp8, fp8_e4m3, fp8_e5m2), nvfp4 for the FP4 ones, else auto."""
    from doctor.engines.vllm.derived import kv_class as doctor_kv_class
    return doctor_kv_class(value)


def entry(capability: str, query: Query, provenance: str, record: dict[str, Any]) -> dict[str, Any]:
    shape = classify(query.config, query.drafter)
    flags = list(query.flags)
    kv = kv_class(flags[flags.index("--kv-cache-dtype") + 1]) if "--kv-cache-dtype" in flags else "auto"
    moe_backend = flags[flags.index("--moe-backend") + 1] if "--moe-backend" in flags else None
    return {
        "capability": capability, "grid": query.id, "grid_shape": query.shape, "provenance": provenance,
        "shape": shape, "shape_key": shape_key(shape), "kv_cache_dtype": kv, "moe_backend": moe_backend,
        "env": dict(query.env),
        "flags": flags,
        "engine_config": record.get("engine_config"),
        **({"drafter": record.get("drafter")} if query.drafter else {}),
        **({"tp": query.tp} if query.tp > 1 else {}),
        "attention": _attention(record), "moe": _moe(record), "linear": _linear(record),
        "errors": [{**error, "kind": error_kind(error)} for error in record.get("errors", [])],
        "log": [line["msg"][:600] for line in record.get("log", []) if DECISION_LINE.search(line["msg"])],
        "seconds": {"config": record.get("config_s"), "build": record.get("build_s")},
    }
