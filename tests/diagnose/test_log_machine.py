"""Diagnosing on a machine without a GPU: HW001 ("No NVIDIA driver on this machine") is about that machine, so it
is dropped when the log names its own GPU, in any shape, and kept when the log names none."""

from __future__ import annotations

import io

import pytest

from doctor.diagnose.diagnosis import diagnose
from doctor.pipeline.facts import Driver, Facts, Source


def no_driver_here() -> Facts:
    return Facts(source=Source(kind="live", name="this machine"), driver=Driver(present=False, error="no NVML"))


def findings(log: bytes) -> list[str]:
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", no_driver_here(), "this machine", {},
                         judge_on_log_only=True)
    return [f.id for f in diagnosis.report.findings]


@pytest.mark.parametrize("log", [
    b"GPU 0: NVIDIA GeForce RTX 5090\n",  # parsed into a GPU
    b"VIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n",
    b"GPU RTX 5070 user Unable to resolve this issue\nCUDA error: no kernel image is available\n",
    b"RuntimeError: FlashInfer-CUTLASS MoE kernel does not support current device sm_120\n",
    b"- Hardware: NVIDIA GB10 (sm_121a) - DGX Spark\n",
])
def test_no_driver_finding_is_dropped_when_the_log_names_its_gpu(log):
    assert "HW001" not in findings(log)


def test_no_driver_finding_stays_when_the_log_names_no_gpu():
    assert "HW001" in findings(b"INFO 01-28 06:35:46 [utils.py:346] non-default args: {'model': 'x'}\n"
                               b"RuntimeError: something failed\n")
