"""The CUDA toolkit a build log shows: `nvcc --version` (`Cuda compilation tools, release 12.8, V12.8.93`) and
CMake's `The CUDA compiler identification is NVIDIA 12.8.61`. With the arch list the log also shows (a
`-DCMAKE_CUDA_ARCHITECTURES=` or TORCH_CUDA_ARCH_LIST line), the build rules can tell what it cannot compile."""

from __future__ import annotations

from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "build"


def _nvcc(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.version("nvcc", m.group("version"), line)


RULES = (
    LineRule(FMT, r"Cuda compilation tools, release \d+\.\d+, V(?P<version>\d+\.\d+\.\d+)", _nvcc),
    LineRule(FMT, r"The CUDA compiler identification is NVIDIA (?P<version>\d+\.\d+\.\d+)", _nvcc),
)
