"""Package versions: `--engine NAME==VERSION` what-ifs, parsing, and the release a version behaves as."""

from __future__ import annotations

import re
from collections.abc import Mapping

from packaging.version import InvalidVersion, Version

from doctor.errors import UsageError
from doctor.pipeline.facts import Library

KNOWN_PACKAGES = {
    "sglang": "sglang", "vllm": "vllm", "triton": "triton", "torch": "torch",
    "tensorrt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm", "trtllm": "tensorrt-llm",
    "flashinfer": "flashinfer-python", "flashinfer-python": "flashinfer-python",
    "flashinfer-cubin": "flashinfer-cubin", "sgl-kernel": "sgl-kernel",
    "nvidia-cutlass-dsl": "nvidia-cutlass-dsl", "cutlass-dsl": "nvidia-cutlass-dsl",
    "transformers": "transformers", "cudnn": "cudnn", "llama.cpp": "llama.cpp", "llama-cpp": "llama.cpp",
    "nvcc": "nvcc", "cuda-toolkit": "nvcc", "flashinfer-jit-cache": "flashinfer-jit-cache",
    "nccl": "nccl", "nvidia-nccl-cu12": "nccl", "nvidia-nccl-cu13": "nccl", "sglang-kernel": "sgl-kernel",
}
_SPEC = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([A-Za-z0-9_.+-]+)\s*$")


def parse_engine_spec(spec: str, engines: Mapping[str, str] | None = None) -> Library:
    """`sglang==0.5.8` → a what-if Library fact for that exact version. `engines`: the names of every registered
    engine → its package (doctor.engines.registry.engine_packages(): plug-ins too)."""
    match = _SPEC.match(spec)
    if not match:
        raise UsageError(f"--engine {spec!r}: expected NAME==VERSION, e.g. sglang==0.5.8")
    name, version = match.group(1).lower(), match.group(2)
    known_names = {**KNOWN_PACKAGES, **(engines or {})}
    key = known_names.get(name)
    if key is None:
        known = ", ".join(sorted(set(known_names.values())))
        raise UsageError(f"--engine {spec!r}: unknown package {name!r} (known: {known})")
    try:
        Version(version)
    except InvalidVersion as exc:
        raise UsageError(f"--engine {spec!r}: {version!r} is not a version") from exc
    return Library(name=key, version=version, location=None, what_if=True)


def version_of(library: Library | None) -> Version | None:
    if library is None:
        return None
    try:
        return Version(library.version)
    except InvalidVersion:
        return None


def release(version: Version) -> Version:
    """0.5.8.post1 and 0.5.10rc0 behave like their release for feature gates: compare on the release."""
    return Version(".".join(str(p) for p in version.release))

