"""A real third-party wheel from PyPI: bitsandbytes 0.50.2, whose build script declares its arch lists.

bitsandbytes' `.github/scripts/build-cuda.sh` (x86_64) picks COMPUTE_CAPABILITY by CUDA version:
  CUDA < 12.8: 60;70;75;80;86;89;90     CUDA 12.8/12.9: 70;75;80;86;89;90;100;120
  CUDA 13.x:   75;80;86;89;90;100;120
and its CMakeLists.txt builds every capability as `-real` (SASS only) except the highest, which also
gets PTX. It builds with CUDA_SEPARABLE_COMPILATION, so that PTX sits in the relocatable fatbins
(`__nv_relfatbin`), next to the device-linked SASS image, where cuobjdump does not list it either.
One libbitsandbytes_cudaXYZ.so per CUDA version ships in the wheel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs, scan_environment, verdict_for
from tests.binaries.conftest import as_cuobjdump_names, cuobjdump_names

pytestmark = pytest.mark.wheel

BEFORE_12_8 = [60, 70, 75, 80, 86, 89, 90]
CUDA_12_8 = [70, 75, 80, 86, 89, 90, 100, 120]
CUDA_13 = [75, 80, 86, 89, 90, 100, 120]
DECLARED = {"118": BEFORE_12_8, "121": BEFORE_12_8, "124": BEFORE_12_8, "126": BEFORE_12_8,
            "128": CUDA_12_8, "130": CUDA_13, "132": CUDA_13}


def _library(root: Path, cuda: str) -> Path:
    return root / "bitsandbytes" / f"libbitsandbytes_cuda{cuda}.so"


@pytest.mark.parametrize("cuda", sorted(DECLARED))
def test_bitsandbytes_archs_match_its_build_script(bitsandbytes_wheel: Path, cuda: str) -> None:
    info = read_cuda_archs(_library(bitsandbytes_wheel, cuda))
    assert info.error is None
    assert info.sass == [f"sm_{n}" for n in DECLARED[cuda]]
    assert info.ptx == []
    assert info.rdc_ptx == [f"compute_{max(DECLARED[cuda])}"]


def test_bitsandbytes_verdicts_on_blackwell(bitsandbytes_wheel: Path) -> None:
    old = read_cuda_archs(_library(bitsandbytes_wheel, "126"))
    new = read_cuda_archs(_library(bitsandbytes_wheel, "130"))
    assert verdict_for(old, (12, 0)).verdict == "none"  # sm_60..sm_90; its PTX is relocatable only
    assert verdict_for(new, (12, 0)).verdict == "native"
    assert verdict_for(new, (12, 1)).verdict == "native"   # sm_120 SASS runs on 12.1


def test_bitsandbytes_scan_groups_the_wheel(bitsandbytes_wheel: Path) -> None:
    report = scan_environment([bitsandbytes_wheel], ["bitsandbytes"], (12, 0))
    (group,) = report.packages
    assert (group.name, group.version) == ("bitsandbytes", "0.50.2")
    assert len(group.files) == len(DECLARED)  # CPU, ROCm and XPU builds carry no fatbin
    assert report.skipped_non_cuda > 0
    # cuda118..126 cannot run on sm_120, but they are alternatives to the cuda128+ builds, which can.
    assert not report.failures
    assert group.verdict == "native"
    old = next(f for f in group.files if f.path.endswith("cuda126.so"))
    assert old.verdict.deliberate and "libbitsandbytes_cuda132.so runs natively" in old.verdict.reason


@pytest.mark.parametrize("cuda", ["118", "128", "132"])
def test_bitsandbytes_matches_cuobjdump(bitsandbytes_wheel: Path, cuobjdump: Path, cuda: str) -> None:
    library = _library(bitsandbytes_wheel, cuda)
    info = read_cuda_archs(library)
    assert cuobjdump_names(cuobjdump, library) == as_cuobjdump_names(info.sass, info.ptx)
