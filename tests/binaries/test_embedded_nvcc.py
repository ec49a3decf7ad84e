"""Real nvcc output laid out like cuFFT 12.0: a shared object whose `.nv_fatbin` holds an sm_75 module
while the sm_120 SASS and lto_120 LTO-IR sit in a `nvcc -fatbin` output embedded as plain data, which no
CUDA section points at."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs, verdict_for
from tests.binaries.conftest import KERNEL

pytestmark = pytest.mark.slow

EXTRA = """
namespace marlin {
template <int N> __global__ void Marlin(float* x) { x[threadIdx.x] *= N; }
template __global__ void Marlin<128>(float*);
}
__global__ void plain_kernel(float* x) { x[threadIdx.x] += 1.0f; }
"""
MARLIN = "_ZN6marlin6MarlinILi128EEEvPf"


def _run(cmd: list[str], cwd: Path) -> None:
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr[-2000:]}"


@pytest.mark.parametrize(("section", "mode", "codec"), [
    (".rodata", "none", None), (".nv_extra_fatbins", "speed", "lz4"), (".ldata", "default", "zstd"),
])
def test_audit_finds_the_fatbin_nv_fatbin_does_not_reference(nvcc: str, tmp_path: Path, section: str,
                                                             mode: str, codec: str | None) -> None:
    (tmp_path / "extra.cu").write_text(EXTRA)
    (tmp_path / "host.cu").write_text(KERNEL)
    _run([nvcc, "-fatbin", f"--compress-mode={mode}", "-Xfatbin=-compress-all",
          "-gencode", "arch=compute_120,code=sm_120", "-gencode", "arch=compute_120,code=lto_120",
          "-o", "extra.fatbin", "extra.cu"], tmp_path)
    (tmp_path / "blob.c").write_text(
        f'__asm__(".section {section},\\"a\\"\\n.balign 8\\n.incbin \\"extra.fatbin\\"\\n.previous\\n");\n')
    _run([nvcc, "-shared", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_75,code=sm_75",
          "-o", "libfake_cufft.so", "host.cu", "blob.c"], tmp_path)

    info = read_cuda_archs(tmp_path / "libfake_cufft.so")
    assert info.error is None
    assert (info.sass, info.ptx, info.lto) == (["sm_75", "sm_120"], [], ["lto_120"])
    # .nv_fatbin holds the host.cu module and a kernel-free one nvcc links in, both sm_75; the scan finds
    # the embedded fatbin once, and the declared ones are not counted twice.
    assert info.fatbin_sections == {".nv_fatbin": 2, section: 1}
    assert info.unreferenced_fatbins == 1
    assert (info.modules, info.kernel_free_modules) == (2, 1)
    assert info.entry_counts == {"sm_75": 2, "sm_120": 1, "lto_120": 1}
    assert info.codecs == ({codec: 2} if codec else {})  # -compress-all: the cubin and the LTO-IR
    assert info.unread_entries == 0
    assert info.families == {"marlin": {"kernels": 1, "kernel_archs": [[["sm_120"], None, 1]]}}

    verdict = verdict_for(info, (12, 0))
    assert verdict.verdict == "native" and verdict.reason.startswith("SASS sm_120 matches sm_120")
    assert "1 LTO-IR images (lto_120)" in verdict.reason
    (family,) = verdict.families
    assert (family.family, family.verdict, family.native) == ("marlin", "native", 1)
    assert verdict_for(info, (8, 9)).families[0].verdict == "none"


def test_lto_only_build_is_not_runnable(nvcc: str, tmp_path: Path) -> None:
    (tmp_path / "extra.cu").write_text(EXTRA)
    _run([nvcc, "-fatbin", "-gencode", "arch=compute_120,code=lto_120", "-o", "lto.fatbin", "extra.cu"], tmp_path)
    info = read_cuda_archs(tmp_path / "lto.fatbin")
    assert (info.format, info.sass, info.ptx, info.lto) == ("fatbin", [], [], ["lto_120"])
    assert info.lto_only_modules == 1
    verdict = verdict_for(info, (12, 0))
    assert verdict.verdict == "none" and "only LTO-IR (lto_120)" in verdict.reason
