"""llama.cpp builds: small CUDA libraries compiled with nvcc for 120, 120a, 121a and PTX only, found as a build's
libggml-cuda.so, read with doctor.binaries, and judged by the LCPP rules on an RTX 5090 and on GB10."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from doctor.engines.llama_cpp.builds import cmake_line, min_toolkit
from doctor.probe.llama_cpp import ENV, find_build, library_fact
from doctor.probe.toolkit import parse_nvcc_version
from tests.rules.builders import build, findings

NVCC = shutil.which("nvcc")
KERNEL = '__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\nextern "C" void run(float* x) { k<<<1, 32>>>(x); }\n'
GENCODE = {
    "120": "arch=compute_120,code=sm_120",
    "120a": "arch=compute_120a,code=sm_120a",
    "121a": "arch=compute_121a,code=sm_121a",
    "ptx": "arch=compute_90,code=compute_90",
}

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")]


@pytest.fixture(scope="module")
def libraries(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("llama-builds")
    source = root / "k.cu"
    source.write_text(KERNEL)
    out = {}
    for name, gencode in GENCODE.items():
        folder = root / name / "bin"
        folder.mkdir(parents=True)
        target = folder / "libggml-cuda.so"
        subprocess.run([str(NVCC), "-shared", "-Xcompiler", "-fPIC", "-gencode", gencode, str(source), "-o",
                        str(target)], check=True, capture_output=True, timeout=300)
        out[name] = folder
    return out


def nvcc_release() -> str | None:
    return parse_nvcc_version(subprocess.run([str(NVCC), "--version"], capture_output=True, text=True).stdout)


def check(folder: Path, profile: str) -> set[str]:
    found = find_build({ENV: str(folder)})
    assert found is not None
    facts = build(profile, libs=(library_fact(found),))
    return set(findings(facts))


def test_archs_and_toolkit_read_from_the_built_library(libraries):
    for name, expected in (("120", ["sm_120"]), ("120a", ["sm_120a"]), ("121a", ["sm_121a"])):
        found = find_build({ENV: str(libraries[name])})
        assert found is not None and list(found.sass) == expected
        assert found.toolkit == nvcc_release()  # from the cubin's notes, not from the nvcc on PATH
    ptx = find_build({ENV: str(libraries["ptx"])})
    assert ptx is not None and list(ptx.ptx) == ["compute_90"] and not ptx.sass
    # PTX is stored compressed in the fatbin: its header naming the toolkit cannot be read without inflating it
    assert ptx.toolkit in (None, nvcc_release())


def test_plain_120_loses_the_block_scaled_paths_on_a_5090(libraries):
    found = check(libraries["120"], "rtx-5090")
    assert "LCPP001" in found and not {"LCPP002", "LCPP004", "LCPP005"} & found


def test_120a_is_right_for_a_5090_and_wrong_for_gb10(libraries):
    assert not {"LCPP001", "LCPP002", "LCPP004", "LCPP005"} & check(libraries["120a"], "rtx-5090")
    spark = check(libraries["120a"], "dgx-spark")
    assert "LCPP005" in spark and "LCPP002" not in spark


def test_121a_is_right_for_gb10_and_runs_nothing_on_a_5090(libraries):
    assert not {"LCPP001", "LCPP002", "LCPP005"} & check(libraries["121a"], "dgx-spark")
    assert "LCPP002" in check(libraries["121a"], "rtx-5090")


def test_ptx_only_build_is_jit(libraries):
    found = check(libraries["ptx"], "rtx-5090")
    assert "LCPP004" in found and "LCPP002" not in found


def test_the_cmake_line_for_each_gpu():
    assert "-DCMAKE_CUDA_ARCHITECTURES=120a-real " in cmake_line([(12, 0)])
    assert "-DCMAKE_CUDA_ARCHITECTURES=121a-real " in cmake_line([(12, 1)])
    assert '"120a-real;121a-real"' in cmake_line([(12, 0), (12, 1)])
    assert (min_toolkit([(12, 0)]), min_toolkit([(12, 1)])) == ("12.8", "12.9")
