"""Toolchain and native-binary facts the rules need, probed cheaply without importing any CUDA library:
the nvcc that JIT compilers will find (`CUDA_HOME`/`CUDA_PATH`, then PATH, then /usr/local/cuda), and the
CUDA archs of llama.cpp's `libggml-cuda.so` (llama-cpp-python's copy, or the one beside `llama-server`)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from doctor import cache
from doctor.facts import Library
from doctor.probe.distributions import distribution

_NVCC_RELEASE = re.compile(r"release\s+(\d+\.\d+)(?:,\s*V(\d+\.\d+\.\d+))?")
NVCC_TIMEOUT_S = 5


def find_nvcc(environ: Mapping[str, str]) -> Path | None:
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(var):
            candidate = Path(environ[var]) / "bin" / "nvcc"
            if candidate.is_file():
                return candidate
    on_path = shutil.which("nvcc", path=environ.get("PATH"))
    if on_path:
        return Path(on_path)
    default = Path("/usr/local/cuda/bin/nvcc")
    return default if default.is_file() else None


def probe_nvcc(environ: Mapping[str, str]) -> Library | None:
    path = find_nvcc(environ)
    if path is None:
        return None
    version = _nvcc_version(path)
    if version is None:
        return None
    return Library(name="nvcc", version=version, location=str(path), details={"source": "nvcc --version"})


def _nvcc_version(path: Path) -> str | None:
    """`nvcc --version`, cached by the binary's path, size and mtime (running it costs ~50 ms per check)."""
    stamp = cache.file_stamp([path])
    known = cache.load("nvcc", stamp)
    if isinstance(known, str):
        return known
    import subprocess

    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=NVCC_TIMEOUT_S).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    version = parse_nvcc_version(out)
    if version is not None:
        cache.store("nvcc", stamp, version)
    return version


def parse_nvcc_version(text: str) -> str | None:
    """`Cuda compilation tools, release 12.8, V12.8.93` → `12.8.93` (or `12.8` without the V part)."""
    match = _NVCC_RELEASE.search(text)
    if not match:
        return None
    return match.group(2) or match.group(1)


def probe_llama_cpp(environ: Mapping[str, str]) -> Library | None:
    """llama.cpp's CUDA backend library and the archs compiled into it (via doctor.binaries when present)."""
    version, library = "unknown", None
    dist = distribution("llama_cpp_python")
    if dist is not None:
        version = dist.version or "unknown"
        candidate = Path(dist.location) / "llama_cpp" / "lib" / "libggml-cuda.so"
        library = candidate if candidate.is_file() else None
        source = "llama-cpp-python"
    else:
        server = shutil.which("llama-server", path=environ.get("PATH"))
        if server is None:
            return None
        source = "llama-server on PATH"
        folder = Path(server).resolve().parent
        library = next((p for p in (folder / "libggml-cuda.so", folder.parent / "lib" / "libggml-cuda.so")
                        if p.is_file()), None)
    details: dict[str, object] = {"source": source, "cuda_library": str(library) if library else None}
    details.update(_cuda_archs(library))
    return Library(name="llama.cpp", version=version, location=str(library) if library else None, details=details)


def _cuda_archs(library: Path | None) -> dict[str, object]:
    if library is None:
        return {}
    try:
        from doctor.binaries import read_cuda_archs  # type: ignore[attr-defined]
    except ImportError:
        return {}
    info = read_cuda_archs(library)
    if getattr(info, "error", None):
        return {"cuda_archs_error": info.error}
    return {"cuda_archs": [*getattr(info, "sass", []), *getattr(info, "ptx", [])]}
