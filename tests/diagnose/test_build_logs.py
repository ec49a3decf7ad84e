"""`diagnose` on a source build's log: the toolkit release it prints (`nvcc --version`, CMake's compiler
identification) and the arch list it configures let the build rules name the cause of `Unsupported gpu
architecture`; without the toolkit release in the log the message stays unclaimed."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from doctor.pipeline.facts import Driver, Facts, Source


def _diagnose(log: str):
    base = Facts(source=Source(kind="live", name="this machine"), driver=Driver(present=False, error="no NVML"))
    return diagnose(io.BufferedReader(io.BytesIO(log.encode())), "t", base, "this machine", {},
                    judge_on_log_only=True)


BUILD = """nvcc: NVIDIA (R) Cuda compiler driver
Cuda compilation tools, release {release}, V{version}
cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES={archs}
GPU 0: NVIDIA {gpu}
nvcc fatal   : Unsupported gpu architecture 'compute_{target}'
"""


def test_cuda_12_6_building_120a_is_explained_by_bld010():
    diagnosis = _diagnose(BUILD.format(release="12.6", version="12.6.85", archs="120a-real",
                                       gpu="GeForce RTX 5090", target="120a"))
    assert diagnosis.report.facts.library("nvcc").version == "12.6.85"
    assert diagnosis.explanations[0].rule == "BLD010"


def test_cuda_12_8_building_121a_for_spark_is_explained_by_bld010():
    diagnosis = _diagnose(BUILD.format(release="12.8", version="12.8.93", archs="121a-real", gpu="GB10",
                                       target="121a"))
    assert diagnosis.explanations[0].rule == "BLD010"


def test_without_the_toolkit_release_the_message_is_not_claimed_by_bld010():
    diagnosis = _diagnose("nvcc fatal   : Unsupported gpu architecture 'compute_120'\n")
    assert "BLD010" not in {e.rule for e in diagnosis.explanations}
