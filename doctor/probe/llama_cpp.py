"""Find a llama.cpp build and say what it was built for: where `llama-server` / `libggml-cuda.so` are (a path in
$SM120_DOCTOR_LLAMA_CPP, a binary, library or build directory; `llama-server` on PATH; the `llama-cpp-python`
package), its build number (`llama-server --version`), the CUDA archs in its fatbins (doctor.binaries) and the
CUDA toolkit that compiled it. The cmake line that builds it right for the GPU is the engine's
(doctor/engines/llama_cpp/builds.py)."""

from __future__ import annotations

import errno
import mmap
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from doctor.pipeline.facts import Library
from doctor.probe.distributions import distribution
from doctor.probe.toolkit import LLAMA_CPP_ENV, which

ENV = LLAMA_CPP_ENV
UNKNOWN_VERSION = "0"
CUDA_LIBRARY = "libggml-cuda.so"
VERSION_TIMEOUT_S = 10
_VERSION = re.compile(r"version:\s*(\d+)\s*\(([0-9a-f]+)\)")
_TOOLKIT = re.compile(rb"Cuda compilation tools, release (\d+\.\d+), V(\d+\.\d+\.\d+)")
_CUDART = re.compile(rb"libcudart\.so\.(\d+)")



@dataclass(frozen=True)
class Build:
    source: str
    server: str | None = None
    cuda_library: str | None = None
    build: str | None = None  # llama.cpp build number (bNNNN)
    commit: str | None = None
    package_version: str | None = None  # llama-cpp-python's version, when that is the source
    sass: tuple[str, ...] = ()
    ptx: tuple[str, ...] = ()
    toolkit: str | None = None  # the nvcc release that compiled the CUDA code, when the binary says
    cudart_major: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def version(self) -> str:
        """The build number; llama-cpp-python's version when that is all there is; "0" when nothing says."""
        return self.build or self.package_version or UNKNOWN_VERSION


def find_build(environ: Mapping[str, str]) -> Build | None:
    given = environ.get(ENV)
    if given:
        return _from_path(Path(given).expanduser(), f"${ENV}")
    server = which("llama-server", environ.get("PATH"))
    if server:
        return _from_server(Path(server), "llama-server on PATH")
    return _from_python_package()


def _from_path(path: Path, source: str) -> Build:
    if path.is_dir():
        server = next((p for p in (path / "llama-server", path / "bin" / "llama-server") if p.is_file()), None)
        if server is not None:
            return _from_server(server, source)
        library, notes = first_readable(sorted(path.rglob(CUDA_LIBRARY)))
        return _with_archs(Build(source=source, notes=notes), library)
    if path.name.startswith("libggml-cuda"):
        library, notes = first_readable([path])
        return _with_archs(Build(source=source, notes=notes), library)
    if path.is_file():
        return _from_server(path, source)
    return Build(source=source, notes=(f"{path} does not exist",))


def _from_server(server: Path, source: str) -> Build:
    folder = server.resolve().parent
    library, notes = first_readable([folder / CUDA_LIBRARY, folder.parent / "lib" / CUDA_LIBRARY])
    build, commit = server_version(str(server))
    # a static build (BUILD_SHARED_LIBS=OFF) carries the CUDA code in the binary itself
    found = Build(source=source, server=str(server), build=build, commit=commit, notes=notes)
    return _with_archs(found, library or server)


def _from_python_package() -> Build | None:
    dist = distribution("llama_cpp_python")
    if dist is None:
        return None
    library, notes = first_readable([Path(dist.location) / "llama_cpp" / "lib" / CUDA_LIBRARY])
    build = Build(source=f"llama-cpp-python {dist.version}", package_version=dist.version, notes=notes)
    return _with_archs(build, library)


def first_readable(candidates: list[Path]) -> tuple[Path | None, tuple[str, ...]]:
    """The first candidate that is a regular file (through links), and a note for each one passed over that
    exists as a name but cannot be read: a dangling link, a link loop, a special file."""
    notes = []
    for path in candidates:
        problem = unreadable(path)
        if problem is None:
            return path, tuple(notes)
        if problem:
            notes.append(f"{path} skipped: {problem}")
    return None, tuple(notes)


def unreadable(path: Path) -> str | None:
    """None for a regular file; "" when nothing is there; else why it is not read."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"symlink loop ({path} -> {os.readlink(path)})"
        if os.path.islink(path):
            return f"dangling symlink to {os.readlink(path)}"
        return "" if exc.errno == errno.ENOENT else f"cannot stat: {exc.strerror or exc}"
    return None if stat.S_ISREG(mode) else "not a regular file"


@lru_cache(maxsize=8)
def server_version(server: str) -> tuple[str | None, str | None]:
    """`llama-server --version` → ("11312", "0c1e57098"); (None, None) when it does not say."""
    import subprocess  # only when a build is found: not every check pays for it

    try:
        done = subprocess.run([server, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None, None
    match = _VERSION.search(done.stdout + done.stderr)
    return (match.group(1), match.group(2)) if match else (None, None)


def _with_archs(build: Build, library: Path | None) -> Build:
    if library is None:
        return build
    from dataclasses import replace

    from doctor.binaries import read_cuda_archs

    info = read_cuda_archs(library)
    toolkit, cudart = toolkit_of(library)
    notes = (*build.notes, f"{library}: {info.error}") if info.error else build.notes
    return replace(build, cuda_library=str(library), sass=tuple(info.sass), ptx=tuple(info.ptx), toolkit=toolkit,
                   cudart_major=cudart, notes=notes)


def toolkit_of(library: Path) -> tuple[str | None, int | None]:
    """The nvcc release in the device code's notes/PTX headers, and the libcudart major it links. Cubins keep
    the release in plain text; a build with only compressed PTX does not show it (None)."""
    key = (str(library), library.stat().st_mtime_ns) if library.is_file() else None
    return _toolkit_cached(key) if key else (None, None)


@lru_cache(maxsize=8)
def _toolkit_cached(key: tuple[str, int]) -> tuple[str | None, int | None]:
    try:
        # A match keeps the mmap it was found in: read its groups before the mapping closes.
        with open(key[0], "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            releases = {m.group(2).decode() for m in _TOOLKIT.finditer(buf)}
            cudart = _cudart_major(buf)
    except (OSError, ValueError):
        return None, None
    toolkit = max(releases, key=lambda v: tuple(int(p) for p in v.split("."))) if releases else None
    return toolkit, cudart


def _cudart_major(buf: bytes | mmap.mmap) -> int | None:
    """The libcudart.so.N a dynamically linked build names (its DT_NEEDED string); None for a static cudart."""
    match = _CUDART.search(buf)
    return int(match.group(1)) if match else None


def library_fact(build: Build) -> Library:
    details: dict[str, object] = {
        "source": build.source, "server": build.server, "cuda_library": build.cuda_library, "build": build.build,
        "commit": build.commit, "llama_cpp_python": build.package_version,
        "cuda_archs": [*build.sass, *build.ptx], "toolkit": build.toolkit, "cudart_major": build.cudart_major,
    }
    if build.notes:
        details["notes"] = list(build.notes)
    return Library(name="llama.cpp", version=build.version, location=build.cuda_library or build.server,
                   details=details)
