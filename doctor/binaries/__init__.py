"""Compiled-arch audit: which GPU architectures the installed CUDA binaries were built for.

Reads fatbin headers of CUDA shared objects and cubins (no cuobjdump, no library loading) and says,
for a target GPU such as (12, 0), whether each file runs natively, through PTX JIT, or not at all.
"""

from doctor.binaries.archs import Arch, parse_capability
from doctor.binaries.reader import BinaryInfo, read_cuda_archs
from doctor.binaries.scan import FileEntry, PackageGroup, ScanReport, scan_environment
from doctor.binaries.torchlib import torch_arch_list
from doctor.binaries.verdict import NATIVE, NONE, PTX_JIT, Verdict, verdict_for

__all__ = [
    "NATIVE", "NONE", "PTX_JIT", "Arch", "BinaryInfo", "FileEntry", "PackageGroup", "ScanReport", "Verdict",
    "parse_capability", "read_cuda_archs", "scan_environment", "torch_arch_list", "verdict_for",
]
