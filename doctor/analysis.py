"""Pure derivations from Facts: which engine and attention backend, which Triton kernels with which
tiles, and how much shared memory each needs against the GPU's limit."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doctor.binaries import BinaryInfo, verdict_for
from doctor.engines import version_of
from doctor.engines.pysource import SourceShapeError
from doctor.engines.sglang import attention as sglang_attention
from doctor.engines.sglang import source as sglang_source
from doctor.facts import Facts, Gpu
from doctor.kernels import extend_attention_smem
from doctor.launch import Launch
from doctor.plan.summary import plan_summary


@dataclass(frozen=True)
class KernelCheck:
    kernel: str
    engine: str
    path: str
    when: str
    shape: dict[str, Any]
    config: dict[str, Any]
    bytes: int
    limit: int
    method: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        return self.bytes <= self.limit

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "engine": self.engine, "path": self.path, "when": self.when,
                "shape": self.shape, "config": self.config, "bytes": self.bytes, "limit": self.limit,
                "fits": self.fits, "method": self.method, "details": self.details}


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
    kernels: list[KernelCheck] = []
    if backend == "triton":
        kernels.extend(_extend_attention_checks(facts, gpu, version, tp))
    return Analysis(engine="sglang", engine_version=sglang.version, tp=tp, attention_backend=backend,
                    attention_backend_source=source, kernels=tuple(kernels))


def _attention_backend(facts: Facts, launch: Launch, version: Any, gpu: Gpu) -> tuple[str, str]:
    chosen = launch.get("prefill_attention_backend") or launch.get("attention_backend")
    if chosen:
        return str(chosen), "launch flags"
    assert facts.model is not None
    default = sglang_attention.default_attention_backend(
        version, facts.model, gpu.capability, flashinfer_available="flashinfer-python" in facts.libraries
        or facts.library("sglang").what_if)
    return default, f"SGLang {facts.library('sglang').version} default for this GPU and model"


def _extend_attention_checks(facts: Facts, gpu: Gpu, version: Any, tp: int) -> list[KernelCheck]:
    assert facts.model is not None
    limit = gpu.smem_per_block_optin
    if limit is None:
        return []
    kv_dtype = "fp8" if str(facts.model.quantization.kv_cache_dtype or "").startswith("fp8") else "bf16"
    checks = []
    source_file = _installed_file(facts, version)
    for path in sglang_attention.extend_paths(facts.model, tp):
        tiles, tiles_from = _extend_tiles(source_file, version, gpu, path)
        needed = extend_attention_smem(gpu.capability, path.lq, path.lv, tiles.block_m, tiles.block_n,
                                       tiles.num_warps, tiles.num_stages, kv_dtype=kv_dtype,
                                       kv_group=path.kv_group)
        checks.append(KernelCheck(
            kernel="extend_attention", engine="sglang", path=path.name, when=path.when,
            shape={"lq": path.lq, "lv": path.lv, "kv_group": path.kv_group, "kv_dtype": kv_dtype},
            config={"block_m": tiles.block_m, "block_n": tiles.block_n, "num_warps": tiles.num_warps,
                    "num_stages": tiles.num_stages},
            bytes=needed, limit=limit, method="analytic", details={"tiles_from": tiles_from}))
    return checks


def _installed_file(facts: Facts, version: Any) -> Path | None:
    """The installed engine's extend_attention.py: its source is the truth (local patches included)."""
    library = facts.library("sglang")
    if library is None or library.what_if or not library.location:
        return None
    path = sglang_source.extend_attention_file(Path(library.location), version)
    return path if path.is_file() else None


def _extend_tiles(source_file: Path | None, version: Any, gpu: Gpu, path: Any) -> tuple[Any, str]:
    if source_file is not None:
        try:
            return sglang_source.extend_tiles_from_source(source_file, gpu.capability, path.lq, path.lv), \
                f"installed source {source_file}"
        except SourceShapeError as exc:
            fallback = f"SGLang {version} knowledge (installed source not readable: {exc})"
            return sglang_attention.extend_tiles(version, gpu.capability, path.lq, path.lv), fallback
    return sglang_attention.extend_tiles(version, gpu.capability, path.lq, path.lv), f"SGLang {version} knowledge"


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
