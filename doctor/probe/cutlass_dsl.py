"""Which native build of nvidia-cutlass-dsl is on disk. From 4.4.0 the package's native half ships as two
wheels, -libs-base and -libs-cu13 (the `[cu13]` extra adds the second, it does not replace the first), and both
unpack the same files (the `_cutlass_ir` extension, cute/nvgpu/warp/mma.py, ...) with different content: the
wheel pip wrote last wins. The two RECORD files give each build's size of the extension; the file's size on disk
says whose it is. Nothing is imported and no large file is read."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from doctor.output import read_regular_bytes
from doctor.probe.distributions import Distribution, distribution

BASE, CU13 = "nvidia-cutlass-dsl-libs-base", "nvidia-cutlass-dsl-libs-cu13"
_IR = re.compile(r"(?:^|/)_mlir_libs/_cutlass_ir\.[^/]*\.so$")
_RECORD_MAX = 1 << 22


def cutlass_dsl_details(paths: Iterable[str] | None = None) -> dict[str, object]:
    """`libs_base_installed`, `libs_cu13_installed`, and `libs_files` ("base", "cu13" or "neither") where the
    extension on disk can be matched against the installed wheels' records."""
    site = None if paths is None else tuple(paths)
    base, cu13 = distribution(BASE, site), distribution(CU13, site)
    details: dict[str, object] = {"libs_base_installed": base is not None, "libs_cu13_installed": cu13 is not None}
    files = _files_on_disk(_recorded(base), _recorded(cu13))
    if files is not None:
        details["libs_files"] = files
    return details


def _files_on_disk(base: tuple[str, int] | None, cu13: tuple[str, int] | None) -> str | None:
    """Whose extension the shared path holds; None where no record names it or the two builds' sizes tie."""
    if base is not None and cu13 is not None and base[1] == cu13[1]:
        return None
    recorded = cu13 or base
    if recorded is None:
        return None
    try:
        size = os.stat(recorded[0]).st_size
    except OSError:
        return None
    for name, record in (("cu13", cu13), ("base", base)):
        if record is not None and record[1] == size:
            return name
    return "neither"


def _recorded(dist: Distribution | None) -> tuple[str, int] | None:
    """(absolute path, recorded size) of the `_cutlass_ir` extension in a wheel's RECORD."""
    if dist is None:
        return None
    try:
        text = read_regular_bytes(os.path.join(dist.meta_dir, "RECORD"), _RECORD_MAX).decode("utf-8", "replace")
    except OSError:
        return None
    for line in text.splitlines():
        parts = line.rsplit(",", 2)
        if len(parts) == 3 and _IR.search(parts[0]) and parts[2].isdigit():
            return os.path.join(dist.location, parts[0]), int(parts[2])
    return None
