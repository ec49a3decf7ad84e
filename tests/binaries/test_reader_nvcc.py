"""The reader against real nvcc output, cross-checked with NVIDIA's cuobjdump."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs
from tests.binaries.conftest import BUILDS, BUILDS_BY_NAME, as_cuobjdump_names, cuobjdump_names


@pytest.mark.parametrize("build", BUILDS, ids=[b.name for b in BUILDS])
def test_reports_exactly_the_compiled_archs(built: dict[str, Path], build) -> None:
    info = read_cuda_archs(built[build.name])
    assert info.error is None
    assert info.format == "elf"
    assert info.sass == list(build.sass)
    assert info.ptx == list(build.ptx)
    assert info.size == built[build.name].stat().st_size


def test_compression_flags_are_read_not_guessed(built: dict[str, Path]) -> None:
    plain = read_cuda_archs(built["multi_nocompress"])
    packed = read_cuda_archs(built["multi_compress_all"])
    default = read_cuda_archs(built["sm120_ptx"])
    assert plain.entries == packed.entries > 0
    assert plain.compressed == 0
    assert packed.compressed == packed.entries
    # nvcc's default compresses PTX only; the cubins stay plain.
    assert 0 < default.compressed < default.entries
    assert packed.size < plain.size


def test_module_archs_count_each_fatbin(built: dict[str, Path]) -> None:
    info = read_cuda_archs(built["sm120_ptx"])
    assert info.modules == sum(count for _, count in info.module_archs)
    assert (["sm_120", "compute_120"], 1) in info.module_archs


@pytest.mark.parametrize("name", [b.name for b in BUILDS if b.output == "so"])
def test_matches_cuobjdump(built: dict[str, Path], cuobjdump: Path, name: str) -> None:
    info = read_cuda_archs(built[name])
    assert cuobjdump_names(cuobjdump, built[name]) == as_cuobjdump_names(info.sass, info.ptx)


def test_extracted_cubins_read_like_cuobjdump_names_them(built: dict[str, Path], cuobjdump: Path,
                                                         tmp_path: Path) -> None:
    """Standalone cubins (what flashinfer-cubin ships): the `a` bit lives in the cubin itself."""
    for name in ("sm90", "sm90a", "sm120_ptx", "sm120a_121a"):
        subprocess.run([str(cuobjdump), "-xelf", "all", str(built[name])], cwd=tmp_path,
                       capture_output=True, check=True, timeout=120)
    cubins = sorted(tmp_path.glob("*.cubin"))
    assert len(cubins) >= 8
    for cubin in cubins:
        arch = cubin.name.split(".")[-2]  # sm90a.1.sm_90a.cubin -> sm_90a
        info = read_cuda_archs(cubin)
        assert (info.format, info.sass, info.ptx, info.error) == ("cubin", [arch], [], None), cubin.name


def test_relocatable_object_reads_nv_relfatbin(built: dict[str, Path]) -> None:
    info = read_cuda_archs(built["rdc_sm90"])
    assert info.sass == list(BUILDS_BY_NAME["rdc_sm90"].sass)
    assert info.modules >= 1


def test_non_cuda_elf_has_no_device_code(nvcc: str, tmp_path: Path) -> None:
    source = tmp_path / "plain.c"
    source.write_text("int answer(void) { return 42; }\n")
    library = tmp_path / "libplain.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True, timeout=120)
    info = read_cuda_archs(library)
    assert (info.format, info.sass, info.ptx, info.error) == ("elf-no-cuda", [], [], None)
