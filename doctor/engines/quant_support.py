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
DEPRECATED = "deprecated_quant_methods"
MIXED_LAYER_ALGOS = "modelopt_mixed_layer_algos"
# Checkpoint methods vLLM loads under their own name: no override claims them (fbgemm_fp8.py and fp_quant.py define
# none; 0.14.0, 0.15.1 and 0.33.0 read). Others may be renamed by an override first (auto-round by INC).
RESOLVE_TO_THEMSELVES = ("fbgemm_fp8", "fp_quant")
ALLOW_DEPRECATED = "--allow-deprecated-quantization"
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


def _flag_value(argv: tuple[str, ...], *flags: str) -> str | None:
    for i, arg in enumerate(argv):
        for flag in flags:
            if arg == flag and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(flag + "="):
                return arg.partition("=")[2]
    return None


def _deprecated(package: str, release: str, method: str, argv: tuple[str, ...]) -> dict[str, Any] | None:
    """The method the run loads (--quantization, else the checkpoint's), when the release deprecates it: refused
    unless --allow-deprecated-quantization."""
    argv = tuple(a.partition("=")[0].replace("_", "-") + a[len(a.partition("=")[0]):] if a.startswith("--") else a
                 for a in argv)  # vLLM's argparse takes --allow_deprecated_quantization too
    flag = (_flag_value(argv, "--quantization", "-q") or "").lower()
    if flag and method and flag != method:
        return None  # the checkpoint and the flag disagree: an override or the mismatch error decides first
    chosen = flag or (method if method in RESOLVE_TO_THEMSELVES else "")
    if not chosen or not knows(package, DEPRECATED, chosen, release):
        return None
    return {"method": chosen, "allowed": ALLOW_DEPRECATED in argv or any(a.startswith(ALLOW_DEPRECATED + "=")
                                                                        for a in argv),
            "deprecated_in": span_text(package, DEPRECATED, chosen)}


# --quantization values that take over checkpoints of several formats through their override (MoE WNA16 takes
# GPTQ/AWQ int4 experts, humming and online quantization their own sets): never a contradiction by name alone.
TAKES_OTHERS = ("moe_wna16", "humming", "online", "experts_int8", "torchao", "quark")
FAMILIES = {"inc": "auto-round", "auto_round": "auto-round", "gpt_oss_mxfp4": "mxfp4", "auto_gptq": "gptq",
            "auto_awq": "awq", "fbgemm_fp8": "fbgemm"}


def _family(method: str) -> str:
    return FAMILIES.get(method, method if method in ("compressed-tensors", "auto-round") else method.split("_")[0])


def _conflict(method: str, argv: tuple[str, ...]) -> dict[str, Any] | None:
    """--quantization naming another format than the checkpoint's own (modelopt vs modelopt_fp4, gptq vs
    gptq_marlin and the online fp8 shorthands over an fp8 checkpoint are one family each)."""
    flag = (_flag_value(argv, "--quantization", "-q") or "").lower()
    if not flag or not method or flag in TAKES_OTHERS or _family(flag) == _family(method):
        return None
    return {"flag": flag, "checkpoint": method}


def _flag(package: str, release: str, method: str, argv: tuple[str, ...]) -> dict[str, Any] | None:
    """--quantization X on a checkpoint without a quantization config: the release must register X, or
    `_verify_quantization` raises "Unknown quantization method: X" (no override runs without one)."""
    flag = (_flag_value(argv, "--quantization", "-q") or "").lower()
    if not flag or method:
        return None
    registered = knows(package, QUANT_METHODS, flag, release)
    if registered:
        return {"method": flag, "registered": True}
    later = first_release(package, QUANT_METHODS, flag, after=release)
    spans = span_text(package, QUANT_METHODS, flag)
    fix = (f"pip install '{package}>={later}' (the first release after {release} that registers `{flag}`)" if later
           else f"drop --quantization {flag}: no release after {release} up to {newest(package)} registers it"
           + (f" (registered in {spans})" if spans != "none" else ""))
    return {"method": flag, "registered": False, "registered_in": spans, "fix": fix}


def view(package: str, version: str, model: Model | None, argv: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """`<engine>.quant_support`: does this release register the checkpoint's quant_method and, for ModelOpt, admit
    its quant_algo; does it refuse the method as deprecated (None without a quantized model or a --quantization,
    or outside the table)."""
    if model is None or not releases(package):
        return None
    quant = model.quantization
    method = (quant.method or "").lower() if quant.source is not None else ""
    if not method and not _flag_value(argv, "--quantization", "-q"):
        return None
    release = table_release(package, version)
    out: dict[str, Any] = {"release": version, "newest_derived": newest(package), "source": SOURCE}
    if release is None:
        return {**out, "status": "not_derived"}
    out["status"] = "derived"
    out["deprecated"] = _deprecated(package, release, method, argv)
    out["flag"] = _flag(package, release, method, argv)
    out["conflict"] = _conflict(method, argv)
    if not method:
        return out
    out.update(**_method(package, release, method))
    if quant.scheme == "gguf":  # a GGUF file: the engine reads it only through its own `gguf` method
        out.update(gguf=True, gguf_registered=knows(package, QUANT_METHODS, "gguf", release),
                   gguf_registered_in=span_text(package, QUANT_METHODS, "gguf"))
    if method == "modelopt" and quant.algo and names(package, MODELOPT_ALGOS):
        out["modelopt"] = _modelopt(package, release, quant.algo.upper())
        if out["modelopt"]["accepted"] and quant.layer_algos and names(package, MIXED_LAYER_ALGOS):
            out["mixed_layers"] = _mixed_layers(package, release, quant.layer_algos)
    return out


def _mixed_layers(package: str, release: str, layer_algos: tuple[str, ...]) -> dict[str, Any] | None:
    """The per-layer algos of a MIXED_PRECISION checkpoint the release's mixed config never names (those layers get
    no quantized method), and the first later release that names them all."""
    missing = [a for a in layer_algos if not knows(package, MIXED_LAYER_ALGOS, a, release)]
    if not missing:
        return None
    later = [r for r in releases(package)[releases(package).index(release) + 1:]
             if all(knows(package, MIXED_LAYER_ALGOS, a, r) for a in layer_algos)]
    first = later[0] if later else None
    return {"unhandled": ", ".join(missing), "handled": ", ".join(a for a in layer_algos if a not in missing),
            "first_release": first or f"none up to {newest(package)}",
            "fix": (f"pip install '{package}>={first}' (the first release whose MIXED_PRECISION config names every "
                    f"per-layer algo of the checkpoint: {', '.join(layer_algos)}; derived from its wheel)") if first
            else f"no release up to {newest(package)} names {', '.join(missing)} in its MIXED_PRECISION config"}

