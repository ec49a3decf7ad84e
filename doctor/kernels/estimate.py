"""One entry point for both methods, in the launch vocabulary of `exact_launch` (params dicts)."""

from __future__ import annotations

from typing import Any

from .arch import Arch, arch_name, cc_int, parse_arch, smem_limit
from .families import family
from .result import SmemResult


def analytic(kernel: str, cc: str | int | Arch, params: dict[str, Any], triton: str | None = None) -> int:
    """Closed-form bytes for a job described the way `exact_launch.build` takes it."""
    return family(kernel).estimate(parse_arch(cc), params, triton)


def result(kernel: str, cc: str | int | Arch, nbytes: int, method: str) -> SmemResult:
    arch = parse_arch(cc)
    limit = smem_limit(arch)
    return SmemResult(kernel, arch_name(arch), int(nbytes), limit, nbytes <= limit, method)


def target(cc: str | int | Arch) -> int:
    return cc_int(parse_arch(cc))
