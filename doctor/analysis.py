"""Pure derivations from Facts: which engine and attention backend, which Triton kernels with which
tiles, and how much shared memory each needs against the GPU's limit."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from doctor.binaries import BinaryInfo, verdict_for
from doctor.engines import version_of
from doctor.engines.sglang import attention as sglang_attention
from doctor.engines.sglang import kernel_plan
from doctor.facts import Facts, Gpu
from doctor.kernels.check import KernelCheck
from doctor.launch import Launch
from doctor.plan.summary import plan_summary


@dataclass(frozen=True)
class Analysis:
    engine: str | None = None
    engine_version: str | None = None
    tp: int = 1
    attention_backend: str | None = None
    attention_backend_source: str | None = None
    kernels: tuple[KernelCheck, ...] = ()
    binaries: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    plan: dict[str, Any] | None = None  # doctor.plan.summary: requested and best layout, memory verdict

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "engine_version": self.engine_version, "tp": self.tp,
                "attention_backend": self.attention_backend,
                "attention_backend_source": self.attention_backend_source,
                "kernels": [k.to_dict() for k in self.kernels], "binaries": list(self.binaries),
                "notes": list(self.notes), "plan": self.plan}


def analyze(facts: Facts, launch: Launch) -> Analysis:
    gpu = facts.gpus[0] if facts.gpus else None
    binaries = tuple(binary_verdicts(facts, gpu.capability)) if gpu else ()
    return dataclasses.replace(_analyze_engine(facts, launch, gpu), binaries=binaries,
                               plan=plan_summary(facts, launch))


def _analyze_engine(facts: Facts, launch: Launch, gpu: Gpu | None) -> Analysis:
    tp = launch.tp(len(facts.gpus))
    sglang = facts.library("sglang")
    version = version_of(sglang)
    if sglang is None or version is None or gpu is None or facts.model is None:
        return Analysis(engine="sglang" if sglang else None, engine_version=sglang.version if sglang else None,
                        tp=tp, notes=_why_no_kernel_analysis(facts, gpu))
    backend, source = _attention_backend(facts, launch, version, gpu)
    kernels, notes = _sglang_kernels(facts, launch, gpu, version, tp, backend)
    return Analysis(engine="sglang", engine_version=sglang.version, tp=tp, attention_backend=backend,
                    attention_backend_source=source, kernels=tuple(kernels), notes=tuple(notes))


def _sglang_kernels(facts: Facts, launch: Launch, gpu: Gpu, version: Any, tp: int,
                    backend: str) -> tuple[list[KernelCheck], list[str]]:
    target = kernel_plan.target_for(facts, gpu, version, launch.values, tp)
    planned: list[KernelCheck] = []
    if backend == "triton":
        planned += kernel_plan.extend_kernels(target)
    if (launch.get("decode_attention_backend") or backend) == "triton":
        planned += kernel_plan.decode_kernels(target)
    if (launch.get("mm_attention_backend") or kernel_plan.default_mm_backend(version, gpu.capability)) == "triton_attn":
        planned += kernel_plan.vision_kernels(target)
    moe_checks, notes = kernel_plan.moe_kernels(target)
    return planned + moe_checks, notes


def _attention_backend(facts: Facts, launch: Launch, version: Any, gpu: Gpu) -> tuple[str, str]:
    chosen = launch.get("prefill_attention_backend") or launch.get("attention_backend")
    if chosen:
        return str(chosen), "launch flags"
    assert facts.model is not None
    library = facts.library("sglang")
    default = sglang_attention.default_attention_backend(
        version, facts.model, gpu.capability,
        flashinfer_available="flashinfer-python" in facts.libraries or bool(library and library.what_if))
    return default, f"SGLang {library.version if library else '?'} default for this GPU and model"


def _why_no_kernel_analysis(facts: Facts, gpu: Gpu | None) -> tuple[str, ...]:
    if gpu is None:
        return ("no GPU in the facts: kernel analysis needs a GPU, a --hardware profile or a --facts snapshot",)
    if facts.model is None:
        return ("no model given: kernel analysis needs a model",)
    if facts.library("sglang") is None:
        return ("SGLang is not installed: pass --engine sglang==VERSION to analyse a version",)
    return ("the installed SGLang version could not be parsed",)


def binary_verdicts(facts: Facts, capability: tuple[int, int]) -> list[dict[str, Any]]:
    """Per package: can this GPU run the CUDA code the probe found in its extensions?"""
    out = []
    for name, library in sorted(facts.libraries.items()):
        files = library.details.get("cuda_binaries")
        if not files:
            continue
        verdicts = [(f, verdict_for(BinaryInfo(**f), capability)) for f in files]
        counted = [(f, v) for f, v in verdicts if not v.deliberate] or verdicts
        worst = "none" if any(v.verdict == "none" for _, v in counted) else \
            "ptx-jit" if any(v.verdict == "ptx-jit" for _, v in counted) else "native"
        out.append({
            "package": name, "version": library.version, "verdict": worst,
            "none_files": [f["path"] for f, v in counted if v.verdict == "none"],
            "ptx_jit_files": [f["path"] for f, v in counted if v.verdict == "ptx-jit"],
            "deliberate_none_files": [f["path"] for f, v in verdicts if v.deliberate and v.verdict == "none"],
            "reasons": sorted({v.reason for _, v in counted if v.verdict != "native"}),
            "sass": sorted({t for f in files for t in f["sass"]}), "ptx": sorted({t for f in files for t in f["ptx"]}),
        })
    return out
