"""A forced `--moe-backend` against the model's experts, per vLLM release (doctor/data/vllm/moe-activations.json,
written by tools/vllm_moe_activations.py from each wheel's source).

vLLM's MoE oracles (`fused_moe/oracle/{nvfp4,fp8,unquantized}.py`) take a named backend without falling back:
`map_*_backend` raises `moe_backend='X' is not supported for <format> MoE` for a name its expert format has no
entry for, and `_return_or_raise` raises `<format> MoE backend 'X' does not support the deployment configuration
since kernel does not support <activation> activation` when none of the backend's expert classes passes
`is_supported_config`, whose activation test is the class's `_supports_activation` (and, for a non-gated MLP such
as Nemotron-H's relu2, `_supports_no_act_and_mul`). The activation is the one the release's model file passes
its FusedMoE layer, read from the same wheel."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.spi import EngineRun, Model
from doctor.engines.vllm import knowledge

DATA = Path(__file__).resolve().parents[2] / "data" / "vllm" / "moe-activations.json"
ORACLE_NAMES = {"nvfp4": "NvFp4", "fp8": "FP8", "unquantized": "unquantized", "mxfp4": "MXFP4"}
UNQUANTIZED = ("bf16", "fp16", "none")
DRAFTER_INHERITS = Version("0.19.0")  # SpeculativeConfig.moe_backend: None inherits the target's --moe-backend
MTP_EXPERTS = ("mtp.layers.0.mlp.experts.0.gate_proj", "model.mtp.layers.0.mlp.experts.0.gate_proj")
# vLLM's `MoEActivation.from_str` names for the activations configs spell otherwise (Gemma: gelu_pytorch_tanh).
# Never offered as the fix: trtllm-gen and MegaMoE kernels exist for SM100/103 only (MOE003; their device tests
# are not a single expression the generator reads), emulation dequantizes in Triton (a reference path).
NOT_SUGGESTED = ("flashinfer_trtllm", "deep_gemm_mega_moe", "flashinfer_moe_ep_mega_deep_gemm", "emulation")
CONFIG_NAMES = {"gelu_pytorch_tanh": "gelu_tanh", "gelu_new": "gelu_tanh", "swish": "silu"}


@cache
def table() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def oracle_of(scheme: str) -> str | None:
    if scheme in ("nvfp4", "mxfp4"):
        return scheme
    if scheme.startswith("fp8"):
        return "fp8"
    return "unquantized" if scheme in UNQUANTIZED else None


def expert_schemes(model: Model) -> list[str]:
    """Every storage the decoder layers' routed experts have (a mixed checkpoint lists several), the most common
    first. Where an export lists layers, the layers decide; its kind-level entry is the default for modules it
    does not list (an MTP layer, which runs under the speculative config's own backend)."""
    quant = model.quantization
    schemes = [quant.for_experts().scheme]
    per_layer = [m for m in quant.modules if m.module.startswith("routed_experts@")
                 and int(m.module.partition("@")[2]) < model.num_layers]  # an MTP layer past them is not built
    for module in per_layer or [m for m in quant.modules if m.module == "routed_experts"]:
        scheme = "bf16" if module.scheme == "none" else module.scheme
        if scheme not in schemes:
            schemes.append(scheme)
    return schemes


def activations(model: Model, spec: dict[str, Any] | None) -> list[str] | None:
    """The activations this release's model file gives the experts (None: not read for this family)."""
    if spec is None or model.moe is None:
        return None
    if "value" in spec and not spec.get("default"):
        return [spec["value"]]
    if "config_field" in spec:
        if model.moe.hidden_act_field != spec["config_field"] or not model.moe.hidden_act:
            return None
        name = CONFIG_NAMES.get(model.moe.hidden_act, model.moe.hidden_act)
        return [f"{name}_no_mul" if spec.get("no_mul") else name]
    if "candidates" in spec:  # step3p5: swiglustep on the layers with a non-zero swiglu_limits entry, else silu
        found = [c for c in spec["candidates"] if c != "swiglustep" or model.moe.swiglu_limited]
        return found or None
    return None


def kernel_accepts(kernel: dict[str, Any], activation: str) -> bool | None:
    if kernel["activations"] is None:
        return None
    if activation.endswith("_no_mul") and not kernel["no_act_and_mul"]:
        return False
    return activation in kernel["activations"]


def device_gate(tree: dict[str, Any] | None, capability: int) -> bool | None:
    """A kernel's `_supports_current_device` on `capability` (major*10+minor), three-valued: None where it
    turns on something the doctor does not read (an import probe such as `has_flashinfer_b12x_moe()`)."""
    if tree is None or "opaque" in tree:
        return None
    if "const" in tree:
        return bool(tree["const"])
    if "test" in tree:
        value = tree["value"]
        return {"eq": capability == value, "family": capability // 10 == value // 10,
                "ge": capability >= value}[tree["test"]]
    answers = [device_gate(arg, capability) for arg in tree["args"]]
    if tree["op"] == "and":
        return False if False in answers else (None if None in answers else True)
    return True if True in answers else (None if None in answers else False)


def render_gate(tree: dict[str, Any] | None) -> str:
    """The device test as vLLM spells it, without the platform checks that are true on CUDA."""
    if tree is None:
        return "not read"
    if "opaque" in tree:
        return str(tree["opaque"])
    if "const" in tree:
        return "True" if tree["const"] else "False"
    if "test" in tree:
        name = {"eq": "is_device_capability", "family": "is_device_capability_family",
                "ge": "has_device_capability"}[tree["test"]]
        return f"{name}({tree['value']})"
    parts = [render_gate(arg) for arg in tree["args"] if arg.get("const") is not True]
    joined = f" {tree['op']} ".join(parts)
    return f"({joined})" if len(parts) > 1 else joined


def runs_here(backend: dict[str, Any], capability: int | None) -> bool:
    """False only where every expert class of the backend refuses this capability in its own device test."""
    if capability is None or not backend["kernels"]:
        return True
    return any(device_gate(k.get("device"), capability) is not False for k in backend["kernels"])


def backend_verdict(backend: dict[str, Any], acts: list[str]) -> tuple[bool | None, list[str]]:
    """(True: one of its expert classes takes every activation; False: none does; None: not read), and the
    activations it rejects."""
    if not backend["kernels"]:
        return None, []
    rejected = []
    for activation in acts:
        answers = [kernel_accepts(k, activation) for k in backend["kernels"]]
        if any(answers):
            continue
        if None in answers:
            return None, []
        rejected.append(activation)
    return not rejected, rejected


def _oracle_view(release: dict[str, Any], oracle: str, flag: str, acts: list[str] | None,
                 scheme: str, capability: int | None) -> dict[str, Any]:
    data = release["oracles"][oracle]
    backends = data["backends"]
    entry: dict[str, Any] = {"oracle": oracle, "format": ORACLE_NAMES[oracle], "scheme": scheme,
                             "file": data["file"], "flags": sorted(backends)}
    if flag not in backends:
        entry["flag_valid"] = False
        return entry
    entry["flag_valid"] = True
    entry["backend"] = backends[flag]["backend"]
    entry["kernels"] = [k["class"] for k in backends[flag]["kernels"]]
    entry["kernel_files"] = sorted({k["file"] for k in backends[flag]["kernels"] if k.get("file")})
    entry["runs_here"] = runs_here(backends[flag], capability)
    entry["device_tests"] = sorted({render_gate(k.get("device")) for k in backends[flag]["kernels"]})
    if acts is None:
        return entry
    accepted, rejected = backend_verdict(backends[flag], acts)
    entry["accepted"], entry["rejected"] = accepted, rejected
    entry["kernel_activations"] = sorted({a for k in backends[flag]["kernels"] for a in (k["activations"] or ())})
    entry["accepting_flags"] = sorted(f for f, b in backends.items() if f not in NOT_SUGGESTED
                                      and backend_verdict(b, acts)[0] and runs_here(b, capability)) or ["none"]
    return entry


def normal(value: Any) -> str:
    return str(value or "").lower().replace("-", "_")


def drafter_layers(run: EngineRun, release: str, target_flag: str) -> tuple[str, str] | None:
    """("bf16", the value it meets) for an MTP drafter whose experts are unquantized: `--speculative-config` names
    an MTP method and the checkpoint's quantization config excludes the MTP modules (ModelOpt exports list
    `mtp*`), so the drafter's MoE layers take the unquantized oracle with the speculative config's own
    `moe_backend`, or, left unset, the target's `--moe-backend` (from 0.19.0, vllm/config/speculative.py)."""
    model = run.facts.model
    raw = run.launch.get("speculative_config")
    if model is None or not isinstance(raw, str) or Version(release) < DRAFTER_INHERITS:
        return None
    try:
        spec = json.loads(raw)
    except ValueError:
        return None
    method = str(spec.get("method", "")) if isinstance(spec, dict) else ""
    if not (method == "mtp" or method.endswith("_mtp")):
        return None
    excluded = any(fnmatchcase(name, pattern) for pattern in model.quantization.ignored for name in MTP_EXPERTS)
    if not excluded or model.quantization.scheme in UNQUANTIZED:
        return None
    return "bf16", normal(spec.get("moe_backend")) or target_flag


def view(run: EngineRun) -> dict[str, Any] | None:
    """What a named MoE backend meets in each expert format the deployment builds: the decoder layers' storages
    under `--moe-backend`, an MTP drafter's under its own or the inherited value; None when nothing is named (or
    `auto`), the release's flag set has no `--moe-backend`, or the doctor holds no table for the release."""
    model = run.facts.model
    if model is None or model.moe is None:
        return None
    facts = knowledge.facts_for(run.version)
    release = table().get(facts["version"])
    if "--moe-backend" not in facts["flags"] or release is None:
        return None
    flag = normal(run.launch.get("moe_backend"))
    layers = [(scheme, "decoder layers", flag) for scheme in expert_schemes(model)]
    drafter = drafter_layers(run, facts["version"], flag)
    if drafter is not None:
        layers.append((drafter[0], "MTP drafter", drafter[1]))
    acts = activations(model, release["models"].get(model.model_type))
    capability = run.gpu.capability[0] * 10 + run.gpu.capability[1] if run.gpu is not None else None
    formats = []
    for scheme, where, named in layers:
        if not named or named == "auto" or named not in (release["cli_values"] or ()):
            continue  # a value outside MoEBackend fails at argument parsing, before any oracle
        oracle = oracle_of(scheme)
        if oracle is None or oracle not in release["oracles"]:
            continue
        if oracle in ("unquantized", "mxfp4") and "--enable-lora" in run.launch.args:
            continue  # their select functions take a LoRA path before reading moe_backend
        if named in (release["oracles"][oracle]["auto_values"] or [named]):
            continue  # this oracle reads the value as auto (or its test was not read)
        formats.append({**_oracle_view(release, oracle, named, acts, scheme, capability), "where": where,
                        "flag": named})
    if not formats:
        return None
    invalid = [f for f in formats if not f["flag_valid"]]
    # is_supported_config tests the device first: where it refuses the GPU, the error is about the device
    rejecting = [f for f in formats if f.get("accepted") is False and f.get("runs_here")]
    refused = [f for f in formats if f["flag_valid"] and f["runs_here"] is False]
    return {"release": facts["version"], "flag": flag or None, "activations": acts, "model_type": model.model_type,
            "formats": formats, "invalid_for": invalid[0] if invalid else None,
            "rejects": rejecting[0] if rejecting else None, "refused_here": refused[0] if refused else None}
