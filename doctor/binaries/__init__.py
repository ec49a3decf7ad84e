"""Compiled-arch audit: which GPU architectures the installed CUDA binaries were built for.

Reads fatbin headers of CUDA shared objects and cubins (no cuobjdump, no library loading) and says,
for a target GPU such as (12, 0), whether each file runs natively, through PTX JIT, or not at all.
"""

from doctor.binaries.reader import BinaryInfo, read_cuda_archs
from doctor.binaries.verdict import NATIVE, NONE, PTX_JIT, Verdict, verdict_for

__all__ = ["NATIVE", "NONE", "PTX_JIT", "BinaryInfo", "Verdict", "read_cuda_archs", "verdict_for"]
