"""The real cuFFT of CUDA 13.0 Update 1 (nvidia-cufft 12.0.0.61, the version cuda-toolkit 13.0.1 pins):
its `.nv_fatbin` holds one sm_75 module, while ~24,000 fatbins with sm_120 SASS, PTX and LTO-IR sit in
`.ldata`, registered by the library itself. Reading `.nv_fatbin` alone (and cuobjdump) says "sm_75 only"."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs, verdict_for
from doctor.binaries.command import main

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
