"""Installed library versions, read from package metadata and files: nothing is imported."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from doctor.output import read_regular_bytes
from doctor.pipeline.facts import Library
from doctor.probe.cutlass_dsl import cutlass_dsl_details
from doctor.probe.distributions import distribution
from doctor.probe.toolkit import llama_cpp_present, probe_nvcc

# Distribution names as published on PyPI; the first one found wins for each key. Engines are not listed:
# each declares its own (Engine.distributions) and the caller passes them in, plug-ins like built-ins.
TRACKED: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "triton": ("triton", "pytorch-triton"),
    "sgl-kernel": ("sgl-kernel", "sglang-kernel"),
    "flashinfer-python": ("flashinfer-python", "flashinfer"),
    "flashinfer-cubin": ("flashinfer-cubin",),
    "flashinfer-jit-cache": ("flashinfer-jit-cache",),
    "transformers": ("transformers",),
    "nvidia-cutlass-dsl": ("nvidia-cutlass-dsl",),
    "b12x": ("b12x",),  # SM12x kernels vLLM >= 0.29 runs for --moe-backend b12x (extra `vllm[b12x]`)
    "lmcache": ("lmcache",),
    "sgl-deep-gemm": ("sgl-deep-gemm",),
    "deep-gemm": ("deep-gemm",),  # DeepGEMM built from its repository: vLLM imports it before its vendored copy
    "cudnn": ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11"),
    "nccl": ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"),
    "nvidia-ml-py": ("nvidia-ml-py",),
    "pynvml": ("pynvml",),
    "huggingface-hub": ("huggingface-hub", "huggingface_hub"),
    "flash-attn-4": ("flash-attn-4",),  # the CuTe-DSL FlashAttention 4 (flash_attn.cute), its own PyPI project
    "ray": ("ray",),  # vLLM's Ray executor: no longer among vLLM's requirements from 0.18.0
}

_TORCH_CUDA = re.compile(r"^cuda(?:\s*:\s*[^=]+)?\s*=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


def probe_libraries(environ: Mapping[str, str] | None = None,
                    engines: Mapping[str, tuple[str, ...]] | None = None) -> dict[str, Library]:
    """TRACKED libraries plus `engines` (package → its distribution names, from each engine's declaration)."""
    found: dict[str, Library] = {}
    for key, dist_names in {**(engines or {}), **TRACKED}.items():
        for dist_name in dist_names:
            library = _library(key, dist_name)
            if library is not None:
                found[key] = library
                break
    if environ is not None:  # toolchain and native binaries: only where the caller passes the environment
        for library in (probe_nvcc(environ), probe_llama_cpp(environ)):
            if library is not None:
                found[library.name] = library
    return found


def _library(key: str, dist_name: str) -> Library | None:
    dist = distribution(dist_name)
    if dist is None:
        return None
    location = dist.location
    details: dict[str, object] = {"distribution": dist.name}
    if key == "torch":
        details.update(_torch_details(Path(location)))
    elif key == "nvidia-cutlass-dsl":  # which of its two native builds is on disk (doctor/probe/cutlass_dsl.py)
        details.update(cutlass_dsl_details())
    return Library(name=key, version=dist.version, location=location, details=details)


def _torch_details(site: Path) -> dict[str, object]:
    """torch/version.py carries the CUDA version it was built with; read it as text."""
    try:
        text = read_regular_bytes(site / "torch" / "version.py", 1 << 20).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    match = _TORCH_CUDA.search(text)
    if not match or match.group(1) in ("None", ""):
        return {"cuda_version": None}
    return {"cuda_version": match.group(1)}


def probe_llama_cpp(environ: Mapping[str, str]) -> Library | None:
    """llama.cpp's build and the archs compiled into it (doctor.probe.llama_cpp), where llama_cpp_present() sees
    one; the build reader is not even imported otherwise."""
    if not llama_cpp_present(environ):
        return None
    from doctor.probe.llama_cpp import find_build, library_fact

    build = find_build(environ)
    return library_fact(build) if build is not None else None
