"""Empty stand-ins for requirements that cannot be installed from PyPI alone and that the tabulated decisions
never import.

SGLang 0.5.18-0.5.22 require `cuda-tile==1.6.0rc5`, a wheel-stub sdist whose build downloads the real wheel
from pypi.nvidia.com (unreachable from the oracle's host). The `cuda.tile` module it would provide is imported
by none of SGLang's own Python files (only comments name "cuTile", in the NVIDIA KDA prefill kernel, built for
capability 10 only and inside the attention backend, which the grid never builds). FlashInfer 0.7.x imports it
only behind `is_cuda_tile_available()` (needs `cuda.tile.tune` and the `tileiras` compiler), which answers
False on the oracle's host with the real wheel as well: `tileiras` ships in `nvidia-cuda-tileiras` (not in
SGLang's requirement set) or in a CUDA 13.1+ toolkit (13.0 here); with the stand-in the probe
(`importlib.util.find_spec("cuda.tile.tune")`) raises ModuleNotFoundError, which `flashinfer/gemm/__init__.py`
catches (`except ImportError`) to the same end: no cuTile kernel imported. cuDNN's frontend loads its cuTile
engines lazily, by name. So the install replaces it (a uv override) with a wheel of the same name and version that holds
metadata only; the table records the substitution under `pinned.stand_ins`, with the venv's files that import
the module and what the runners saw imported during the run (`imported_during_run`)."""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

# (engine, release) -> {distribution: why a metadata-only stand-in is faithful for the grid}
CUDA_TILE_WHY = ("wheel-stub sdist that downloads from pypi.nvidia.com; no Python file of sglang imports "
                 "cuda.tile (comments only); FlashInfer imports its cuTile kernels behind is_cuda_tile_available(), "
                 "cuDNN's frontend loads its cuTile engines lazily by name; is_cuda_tile_available() needs "
                 "cuda.tile.tune and the tileiras compiler: False here with the real wheel too (no "
                 "nvidia-cuda-tileiras in the requirement set, CUDA 13.0 toolkit has none); with the stand-in its "
                 "find_spec raises ModuleNotFoundError, which flashinfer.gemm's `except ImportError` takes the "
                 "same way: no cuTile kernel imported")
STAND_INS: dict[tuple[str, str], dict[str, tuple[str, str, str]]] = {
    ("sglang", release): {"cuda-tile": ("1.6.0rc5", "cuda.tile", CUDA_TILE_WHY)}
    for release in ("0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22")
}


# (engine, release) -> {distribution: (the version the release's requirements pin, the version installed, why)}:
# a pinned version PyPI no longer has at all, replaced (uv override) by the nearest published one.
TVM_FFI_WHY = ("flashinfer-python 0.4.1 (SGLang 0.5.4's pin) requires apache-tvm-ffi==0.1.0b15; PyPI has no "
               "0.1.0bN left, 0.1.0 is the release that beta line became. tvm_ffi is FlashInfer's kernel-loading FFI; "
               "no Python file of the sglang 0.5.4 wheel names it, so its server-args and layer dispatch read nothing "
               "from it; a FlashInfer that cannot load with it shows as errors of the entries that import FlashInfer, "
               "never as a different choice")
SUBSTITUTES: dict[tuple[str, str], dict[str, tuple[str, str, str]]] = {
    ("sglang", "0.5.4"): {"apache-tvm-ffi": ("0.1.0b15", "0.1.0", TVM_FFI_WHY)},
}


def stand_ins_for(engine: str, release: str) -> dict[str, tuple[str, str, str]]:
    return STAND_INS.get((engine, release), {})


def substitutes_for(engine: str, release: str) -> dict[str, tuple[str, str, str]]:
    return SUBSTITUTES.get((engine, release), {})


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_stand_in(distribution: str, version: str, folder: Path) -> Path:
    """A wheel `distribution==version` with metadata only (no module), written into `folder`."""
    stem = distribution.replace("-", "_")
    info = f"{stem}-{version}.dist-info"
    files = {
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n"
                             "Summary: empty stand-in installed by sm120-doctor's engine oracle\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: sm120-doctor-oracle\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
    }
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def overrides_file(engine: str, release: str, folder: Path) -> Path | None:
    """A uv overrides file pointing each stand-in requirement at its local wheel and each substitute at its
    published version (None: nothing to replace)."""
    wanted, substitutes = stand_ins_for(engine, release), substitutes_for(engine, release)
    if not wanted and not substitutes:
        return None
    lines = [f"{name} @ {build_stand_in(name, version, folder / 'stand-ins').as_uri()}"
             for name, (version, _, _) in wanted.items()]
    lines += [f"{name}=={installed}" for name, (_, installed, _) in substitutes.items()]
    path = folder / "oracle-overrides.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def importers(site_packages: Path, module: str) -> list[str]:
    """Python files of the venv that import `module` (`import a.b`, `from a.b import`, `from a import b`)."""
    parent, _, leaf = module.rpartition(".")
    pattern = re.compile(rf"^\s*(import {re.escape(module)}\b|from {re.escape(module)}\b|"
                         rf"from {re.escape(parent)} import [^#\n]*\b{re.escape(leaf)}\b)", re.MULTILINE)
    return sorted(str(path.relative_to(site_packages)) for path in site_packages.rglob("*.py")
                  if pattern.search(path.read_text(encoding="utf-8", errors="replace")))


def recorded(engine: str, release: str, installed: dict[str, str], site_packages: Path) -> dict[str, object]:
    """What the table's provenance says about each substitution the install made, with the files of the venv
    that import the stood-in module (none, or the table's decisions may be wrong: checked, not assumed)."""
    return {name: {"version": version, "installed": "metadata-only stand-in (uv override)", "module": module,
                   "why": why, "importers": importers(site_packages, module)}
            for name, (version, module, why) in stand_ins_for(engine, release).items() if name in installed}


def substituted(engine: str, release: str, installed: dict[str, str]) -> dict[str, object]:
    """The table's provenance for each substitute: what the release pinned, what the venv holds, and why."""
    return {name: {"pinned": pinned, "version": installed.get(name), "installed": "nearest published version (uv "
                   "override)", "why": why}
            for name, (pinned, _, why) in substitutes_for(engine, release).items()}
