"""Which quantized checkpoints an engine release's loader reads: the `quant_method` names each engine release
registers and the ModelOpt `quant_algo` values each release admits (where the table holds them), from
doctor/data/derived/model_support.json (tools/model_support.py with tools/quant_support.py, read from PyPI's
wheels). A release the table does not hold is "not derived": nothing is guessed from a neighbour. A toolkit
library (spi.TOOLKIT): it knows the table's packages by name, never an engine's code."""

from __future__ import annotations

from typing import Any

from doctor.engines.model_support import (
    SOURCE,
    first_release,
    knows,
    names,
    newest,
    releases,
    span_text,
    table_release,
)
from doctor.pipeline.facts import Model

QUANT_METHODS, MODELOPT_ALGOS, VIA_VLLM = "quant_methods", "modelopt_algos", "quant_methods_via_vllm"
# Checkpoint `quant_method`s a vLLM release reads only through its own config class of that name: no other class's
# `override_quantization_method` claims them, and no file of a release without the class mentions them (read in the
# wheels of 0.28.0-0.33.0 for bitsandbytes). Other names may be taken over by an override (auto-round by INC,
# gptq/awq by their Marlin variants), so a missing name alone proves nothing for them.
VLLM_OWN_CLASS_ONLY = ("bitsandbytes",)


def accepted_algos(package: str, release: str) -> list[str]:
    return [name for name in names(package, MODELOPT_ALGOS)
            if knows(package, MODELOPT_ALGOS, name, release)]


def _modelopt(package: str, release: str, algo: str) -> dict[str, Any]:
    accepted = knows(package, MODELOPT_ALGOS, algo, release)
    first = first_release(package, MODELOPT_ALGOS, algo, after=release)
    out: dict[str, Any] = {"algo": algo, "accepted": accepted, "accepted_list": accepted_algos(package, release),
                           "accepted_in": span_text(package, MODELOPT_ALGOS, algo),
                           "first_release": first or f"none up to {newest(package)}"}
    if accepted:
        return out
    out["fix"] = (f"pip install '{package}>={first}' (the first release after {release} whose ModelOpt config "
                  f"accepts quant_algo {algo}, derived from its wheel)" if first else
                  f"no {package} release up to {newest(package)} accepts ModelOpt quant_algo {algo}: re-export "
                  "the checkpoint with a format the release lists (hf_ptq.py --qformat nvfp4 or fp8), or serve it "
                  "with TensorRT-LLM")
    return out


def _method(package: str, release: str, method: str) -> dict[str, Any]:
    registered = knows(package, QUANT_METHODS, method, release)
    last = None
    for known in releases(package):
        if knows(package, QUANT_METHODS, method, known):
            last = known
    return {"method": method, "registered": registered, "registered_in": span_text(package, QUANT_METHODS,
                                                                                         method),
            "last_release": last or "none", "own_class_only": method in VLLM_OWN_CLASS_ONLY and package == "vllm"}


def view(package: str, version: str, model: Model | None) -> dict[str, Any] | None:
    """`<engine>.quant_support`: does this release register the checkpoint's quant_method and, for ModelOpt, admit
    its quant_algo (None without a quantized model or outside the table)."""
    if model is None or not releases(package):
        return None
    quant = model.quantization
    method = (quant.method or "").lower()
    if not method or quant.source is None:
        return None
    release = table_release(package, version)
    out: dict[str, Any] = {"release": version, "newest_derived": newest(package), "source": SOURCE}
    if release is None:
        return {**out, "status": "not_derived"}
    out.update(status="derived", **_method(package, release, method))
    if quant.scheme == "gguf":  # a GGUF file: the engine reads it only through its own `gguf` method
        out.update(gguf=True, gguf_registered=knows(package, QUANT_METHODS, "gguf", release),
                   gguf_registered_in=span_text(package, QUANT_METHODS, "gguf"))
    if method == "modelopt" and quant.algo and names(package, MODELOPT_ALGOS):
        out["modelopt"] = _modelopt(package, release, quant.algo.upper())
    return out

