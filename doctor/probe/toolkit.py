"""Toolchain and native-binary facts the rules need, probed cheaply without importing any CUDA library:
the nvcc that JIT compilers will find (`CUDA_HOME`/`CUDA_PATH`, then PATH, then /usr/local/cuda), and the
llama.cpp build (doctor.engines.llama_cpp.builds)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from doctor import cache
from doctor.pipeline.facts import Library

_NVCC_RELEASE = re.compile(r"release\s+(\d+\.\d+)(?:,\s*V(\d+\.\d+\.\d+))?")
NVCC_TIMEOUT_S = 5


def which(name: str, path: str | None) -> str | None:
    """shutil.which for a bare program name on POSIX: the first executable file called `name` in `path`
    (default: the standard PATH). Not shutil itself: with zlib, bz2 and lzma it costs every check ~3 ms."""
    if path == "":
        return None
    directories = (path if path is not None else os.defpath).split(os.pathsep)
    for directory in dict.fromkeys(directories):
        candidate = os.path.join(directory, name)
        if os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return candidate
    return None


def find_nvcc(environ: Mapping[str, str]) -> Path | None:
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(var):
            candidate = Path(environ[var]) / "bin" / "nvcc"
            if candidate.is_file():
                return candidate
    on_path = which("nvcc", environ.get("PATH"))
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


LLAMA_CPP_ENV = "SM120_DOCTOR_LLAMA_CPP"


def llama_cpp_present(environ: Mapping[str, str]) -> bool:
    """Is there anything for doctor.probe.llama_cpp.find_build to look at: the variable, `llama-server` on PATH,
    llama-cpp-python?"""
    from doctor.probe.distributions import distribution

    return bool(environ.get(LLAMA_CPP_ENV) or which("llama-server", environ.get("PATH"))
                or distribution("llama_cpp_python"))
