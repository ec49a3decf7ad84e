"""The real cuFFT of CUDA 13.0 Update 1 (nvidia-cufft 12.0.0.61, the version cuda-toolkit 13.0.1 pins):
its `.nv_fatbin` holds one sm_75 module, while ~24,000 fatbins with sm_120 SASS, PTX and LTO-IR sit in
`.ldata`, registered by the library itself. Reading `.nv_fatbin` alone (and cuobjdump) says "sm_75 only"."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs, scan_environment, verdict_for
from doctor.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.wheel]


@pytest.fixture(scope="module")
def cufft() -> Path:
    from tests.wheels import unpacked_wheel

    root = unpacked_wheel("nvidia-cufft", "12.0.0.61")
    found = sorted(root.glob("nvidia/*/lib/libcufft.so.12"))
    if not found:
        pytest.skip(f"no libcufft.so.12 in the nvidia-cufft wheel under {root}")
    return found[0]


def test_cufft_has_sm120_sass_outside_nv_fatbin(cufft: Path) -> None:
    info = read_cuda_archs(cufft)
    assert info.error is None
    assert "sm_120" in info.sass and "sm_75" in info.sass
    assert info.lto == ["lto_75"]
    assert info.fatbin_sections[".nv_fatbin"] == 1
    assert info.fatbin_sections[".ldata"] > 20_000
    assert info.unreferenced_fatbins == info.fatbin_sections[".ldata"]
    assert info.entry_counts["sm_120"] > 100
    assert info.lto_only_modules == info.entry_counts["lto_75"]
    assert info.compressed == info.entries  # every image is LZ4- or zstd-compressed
    assert set(info.codecs) == {"lz4", "zstd"}
    assert info.unread_entries == 0
    assert info.families == {}  # no engine kernel family in an FFT library


@pytest.mark.parametrize("capability", [(12, 0), (12, 1)])
def test_cufft_verdict_is_native(cufft: Path, capability: tuple[int, int]) -> None:
    verdict = verdict_for(read_cuda_archs(cufft, kernel_names=False), capability)
    assert verdict.verdict == "native"
    assert verdict.reason.startswith("SASS sm_120 ")
    assert "LTO-IR images (lto_75" in verdict.reason


def test_binaries_command_on_cufft(cufft: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["binaries", str(cufft)]) == 0
    out = capsys.readouterr().out
    assert "  native   nvidia-cufft 12.0.0.61: 1 files" in out
    assert " sm_120 " in out and "lto_75" in out


def test_cufftw_holds_no_kernels_so_it_cannot_fail(cufft: Path) -> None:
    """cuFFTW's only fatbin is the empty device-link module nvlink leaves (sm_75, no kernel in it)."""
    info = read_cuda_archs(cufft.parent / "libcufftw.so.12")
    assert (info.sass, info.modules, info.kernel_free_modules) == (["sm_75"], 0, 1)
    verdict = verdict_for(info, (12, 0))
    assert verdict.verdict == "native" and verdict.reason.startswith("holds no kernels")
    # without kernel names the audit cannot tell, and keeps the cautious verdict
    assert verdict_for(read_cuda_archs(cufft.parent / "libcufftw.so.12", kernel_names=False), (12, 0)).verdict == "none"


def test_the_whole_wheel_runs_on_sm120(cufft: Path) -> None:
    report = scan_environment([cufft.parents[3]], None, (12, 0))
    assert [g.verdict for g in report.packages] == ["native"]
    assert not report.failures
