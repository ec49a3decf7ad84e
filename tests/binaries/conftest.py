"""Real CUDA binaries for the binaries tests: built once per session with nvcc, in a tmp dir."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

KERNEL = """
__global__ void add_one(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
extern "C" void launch(float* x, int n) { add_one<<<(n + 255) / 256, 256>>>(x, n); }
"""


@dataclass(frozen=True)
class Build:
    """One nvcc build: its flags and the archs the reader must report for it."""

    name: str
    flags: tuple[str, ...]
    sass: tuple[str, ...]
    ptx: tuple[str, ...]
    output: str = "so"  # "so" (shared object) or "o" (relocatable device code object)


def _gencode(arch: str, code: str) -> tuple[str, str]:
    return ("-gencode", f"arch={arch},code={code}")


BUILDS = [
    Build("sm90", _gencode("compute_90", "sm_90"), ("sm_90",), ()),
    Build("sm90a", _gencode("compute_90a", "sm_90a"), ("sm_90a",), ()),
    Build("sm120_ptx", _gencode("compute_120", "[sm_120,compute_120]"), ("sm_120",), ("compute_120",)),
    Build("ptx80", _gencode("compute_80", "compute_80"), (), ("compute_80",)),
    Build("sm120f", _gencode("compute_120f", "[sm_120f,compute_120f]"), ("sm_120f",), ("compute_120f",)),
    Build("sm120a_121a", (*_gencode("compute_120a", "sm_120a"), *_gencode("compute_121a", "sm_121a")),
          ("sm_120a", "sm_121a"), ()),
    Build("sm100f", _gencode("compute_100f", "sm_100f"), ("sm_100f",), ()),
    Build("multi_nocompress",
          ("--no-compress", *_gencode("compute_90", "sm_90"),
           *_gencode("compute_120", "[sm_120,compute_120]")),
          ("sm_90", "sm_120"), ("compute_120",)),
    Build("multi_compress_all",
          ("-Xfatbin=-compress-all", *_gencode("compute_90", "sm_90"),
           *_gencode("compute_120", "[sm_120,compute_120]")),
          ("sm_90", "sm_120"), ("compute_120",)),
    Build("sm120_size", ("--compress-mode=size", "-Xfatbin=-compress-all",
                         *_gencode("compute_120", "[sm_120,compute_120]")), ("sm_120",), ("compute_120",)),
    Build("rdc_sm90", ("-rdc=true", *_gencode("compute_90", "sm_90")), ("sm_90",), (), output="o"),
]
BUILDS_BY_NAME = {b.name: b for b in BUILDS}
_LISTED = re.compile(r"^(ELF|PTX) file\s+\d+: .*\.(sm_\d+[af]?)\.(?:cubin|ptx)$")


def find_nvcc() -> str | None:
    for candidate in (os.environ.get("NVCC"), "/usr/local/bin/nvcc", shutil.which("nvcc"),
                      "/usr/local/cuda/bin/nvcc"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _compile(nvcc: str, source: Path, build: Build, out_dir: Path) -> tuple[str, Path | str]:
    target = out_dir / f"{build.name}.{build.output}"
    kind = ["-shared"] if build.output == "so" else ["-c"]
    cmd = [nvcc, *kind, "-Xcompiler", "-fPIC", *build.flags, "-o", str(target), str(source)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        return build.name, f"nvcc failed: {' '.join(cmd)}\n{result.stderr[-2000:]}"
    return build.name, target


@pytest.fixture(scope="session")
def nvcc() -> str:
    path = find_nvcc()
    if path is None:
        pytest.skip("nvcc not found (set NVCC or install the CUDA toolkit); cannot build test binaries")
    return path


@pytest.fixture(scope="session")
def built(nvcc: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> path of every build in BUILDS, compiled once per session (two at a time)."""
    out_dir = tmp_path_factory.mktemp("nvcc-builds")
    source = out_dir / "kernel.cu"
    source.write_text(KERNEL)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(pool.map(lambda b: _compile(nvcc, source, b, out_dir), BUILDS))
    failed = {name: r for name, r in results.items() if not isinstance(r, Path)}
    if failed:
        pytest.fail("\n".join(str(r) for r in failed.values()))
    return results  # type: ignore[return-value]


@pytest.fixture(scope="session")
def cuobjdump() -> Path:
    """NVIDIA's cuobjdump from its PyPI wheel (cached), used only to cross-check the reader."""
    from tests.wheels import unpacked_wheel

    root = unpacked_wheel("nvidia-cuda-cuobjdump", "13.4.92")
    found = sorted(root.glob("nvidia/*/bin/cuobjdump"))
    if not found:
        pytest.skip(f"no cuobjdump binary in the nvidia-cuda-cuobjdump wheel under {root}")
    tool = found[0]
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)  # zip extraction drops the exec bit
    return tool


@pytest.fixture(scope="session")
def bitsandbytes_wheel() -> Path:
    from tests.wheels import unpacked_wheel

    return unpacked_wheel("bitsandbytes", "0.50.2")


def cuobjdump_names(tool: Path, path: Path) -> set[str]:
    result = subprocess.run([str(tool), "--list-elf", "--list-ptx", str(path)],
                            capture_output=True, text=True, timeout=120)
    names = set()
    for line in result.stdout.splitlines():
        match = _LISTED.match(line.strip())
        if match:
            prefix = "sm" if match.group(1) == "ELF" else "compute"
            names.add(match.group(2).replace("sm_", f"{prefix}_", 1))
    return names


def as_cuobjdump_names(sass: list[str], ptx: list[str]) -> set[str]:
    # cuobjdump names family cubins after the plain arch (sm_120f SASS lists as sm_120) but keeps the
    # `f` on PTX; the fatbin entry header does mark the cubin as family (flag 0x200000).
    return {s[:-1] if s.endswith("f") else s for s in sass} | set(ptx)
