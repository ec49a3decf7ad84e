"""The toolkit table behind BLD010/BLD011/BLD015/BLD016 (doctor/buildargs.py) against the toolkits themselves:
the ptxas of the nvidia-cuda-nvcc-cu12 wheels on PyPI lists the `--gpu-name` values it accepts, and nvcc on this
machine (CUDA 13) compiles or refuses each old target. Slow: downloads about 40 MB per toolkit."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from doctor.buildargs import toolkit_knows, toolkit_view
from tests.wheels import unpacked_wheel

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

TOOLKITS = {"12.6": "12.6.85", "12.8": "12.8.93", "12.9": "12.9.86"}
TARGETS = ("sm_100", "sm_100a", "sm_103", "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f")


def _ptxas_targets(release: str) -> set[str]:
    root = unpacked_wheel("nvidia-cuda-nvcc-cu12", TOOLKITS[release])
    ptxas = root / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
    ptxas.chmod(0o755)
    help_text = subprocess.run([str(ptxas), "--help"], capture_output=True, text=True, timeout=60).stdout
    return set(re.findall(r"\bsm_\d+[af]?\b", help_text))


@pytest.mark.parametrize("release", sorted(TOOLKITS))
def test_the_toolkit_table_matches_what_each_ptxas_accepts(release):
    accepted = _ptxas_targets(release)
    for target in TARGETS:
        assert (target in accepted) is toolkit_knows(release, target), (release, target, sorted(accepted))


def test_cuda_13_nvcc_builds_every_sm12x_target_and_refuses_pre_turing_ones(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    if "release 13." not in version:
        pytest.skip("nvcc is not CUDA 13")
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    for arch in ("sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"):  # 13.0 knows every SM12x target
        done = subprocess.run([nvcc, "-c", str(source), "-o", str(tmp_path / "k.o"), f"-arch={arch}"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and toolkit_knows("13.0", arch), (arch, done.stderr)
    for arch, builds in (("sm_75", True), ("sm_70", False), ("sm_61", False), ("sm_52", False)):
        done = subprocess.run([nvcc, "-c", str(source), "-o", str(tmp_path / "k.o"), f"-arch={arch}"],
                              capture_output=True, text=True, timeout=300)
        assert (done.returncode == 0) is builds, (arch, done.stderr)
        view = toolkit_view({"variables": {"CMAKE_CUDA_ARCHITECTURES": arch[3:]}, "toolkit": "13.0"}, (12, 0))
        assert bool(view["toolkit_rejects_old"]) is not builds, (arch, view)
