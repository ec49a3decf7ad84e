"""Compiled-arch audit: which GPU architectures the installed CUDA binaries were built for.

Reads fatbin headers of CUDA shared objects and cubins (no cuobjdump, no library loading) and says,
for a target GPU such as (12, 0), whether each file runs natively, through PTX JIT, or not at all.

The names below load on first use (PEP 562): code that needs only `doctor.binaries.archs` (arch tokens)
does not pay for the reader and the scanner.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Arch": "archs", "parse_capability": "archs",
    "BinaryInfo": "info", "read_cuda_archs": "reader",
    "FileEntry": "scan", "PackageGroup": "scan", "ScanReport": "scan", "scan_environment": "scan",
    "torch_arch_list": "torchlib",
    "NATIVE": "verdict", "NONE": "verdict", "PTX_JIT": "verdict", "Verdict": "verdict", "verdict_for": "verdict",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'doctor.binaries' has no attribute {name!r}")
    return getattr(importlib.import_module(f"doctor.binaries.{module}"), name)
