"""Package versions: `--engine NAME==VERSION` what-ifs, parsing, and the release a version behaves as."""

from __future__ import annotations

import re

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


def parse_engine_spec(spec: str) -> Library:
    """`sglang==0.5.8` → a what-if Library fact for that exact version."""
    match = _SPEC.match(spec)
    if not match:
        raise UsageError(f"--engine {spec!r}: expected NAME==VERSION, e.g. sglang==0.5.8")
    name, version = match.group(1).lower(), match.group(2)
    key = package_named(name)
    if key == "llama.cpp" and re.fullmatch(r"b\d+", version):
        version = version[1:]  # llama.cpp's release tag (b7551) names build 7551
    if key is None:
        known = ", ".join(sorted(set({**KNOWN_PACKAGES, **_engine_names()}.values())))
        raise UsageError(f"--engine {spec!r}: unknown package {name!r} (known: {known})")
    try:
        Version(version)
    except InvalidVersion as exc:
        raise UsageError(f"--engine {spec!r}: {version!r} is not a version") from exc
    return Library(name=key, version=version, location=None, what_if=True)


def package_named(name: str) -> str | None:
    """The key a package is filed under in Facts.libraries, for a name as users and rules write it (an engine's
    name or distribution, plug-ins included); None for a package the doctor does not track."""
    name = name.lower()
    return KNOWN_PACKAGES.get(name) or _engine_names().get(name) or _engine_names().get(name.replace("_", "-"))


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


def _engine_names() -> dict[str, str]:
    """Names of every registered engine (plug-ins included) → the package whose version it is."""
    from doctor.engines import registry

    return {key.lower(): engine.package for engine in registry.engines().values()
            for key in (engine.name, engine.package, *engine.distributions)}


def engine_distributions() -> dict[str, tuple[str, ...]]:
    """package → distribution names, for every registered engine that installs as a Python distribution."""
    from doctor.engines import registry

    return {e.package: e.distributions for e in registry.engines().values() if e.distributions}


def scanned_engine_packages() -> tuple[str, ...]:
    """The packages of the engines whose compiled CUDA extensions the probe reads."""
    from doctor.engines import registry

    return tuple(e.package for e in registry.engines().values() if e.scan_binaries)
