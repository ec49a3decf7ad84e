"""CUDA architecture names: SASS (`sm_120a`), PTX (`compute_120f`) and LTO-IR (`lto_120`) targets, and
target parsing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from doctor.hardware.arch import capability_name, parse_capability

SASS = "sass"
PTX = "ptx"
LTO = "lto"  # NVVM IR for link-time optimization (nvcc code=lto_XX): input to a link, never loaded as is
_PREFIX = {SASS: "sm", PTX: "compute", LTO: "lto"}
_KIND = {prefix: kind for kind, prefix in _PREFIX.items()}
_KIND_ORDER = {SASS: 0, PTX: 1, LTO: 2}

# "" = plain (forward compatible), "a" = arch-specific (this exact GPU only), "f" = family-specific.
VARIANTS = ("", "a", "f")

_TOKEN = re.compile(r"^(sm|compute|lto)_(\d{2,3})([af]?)$")


@dataclass(frozen=True, order=True)
class Arch:
    """One compiled image target. `number` is major*10 + minor, as in the fatbin header (120 = 12.0)."""

    number: int
    variant: str = ""
    kind: str = SASS

    @property
    def major(self) -> int:
        return self.number // 10

    @property
    def minor(self) -> int:
        return self.number % 10

    @property
    def token(self) -> str:
        return f"{_PREFIX[self.kind]}_{self.number}{self.variant}"

    @classmethod
    def parse(cls, token: str) -> Arch:
        return _parse_token(token)


@lru_cache(maxsize=512)
def _parse_token(token: str) -> Arch:
    match = _TOKEN.match(token.strip().lower())
    if not match:
        raise ValueError(f"not an arch name: {token!r} (expected e.g. sm_120a, compute_120 or lto_120)")
    return Arch(int(match.group(2)), match.group(3), _KIND[match.group(1)])


def sort_tokens(tokens) -> list[str]:
    """Sort names like torch does: by arch number, plain before `a` before `f`; SASS, then PTX, then LTO-IR."""
    archs = {Arch.parse(t) for t in tokens}
    return [a.token for a in sorted(archs, key=lambda a: (_KIND_ORDER[a.kind], a.number, a.variant))]


def sass_runs(arch: Arch, capability: tuple[int, int]) -> bool:
    """Can the GPU run this SASS image as is?

    SASS is binary compatible within a major, upwards in minor (sm_120 runs on 12.1); family (`f`)
    images keep that rule; arch-specific (`a`) images run only on exactly their GPU.
    """
    major, minor = capability
    if arch.variant == "a":
        return (arch.major, arch.minor) == (major, minor)
    return arch.major == major and arch.minor <= minor


def ptx_jits(arch: Arch, capability: tuple[int, int]) -> bool:
    """Can the driver JIT this PTX for the GPU? Plain PTX: any newer GPU; `f`: its family; `a`: its GPU."""
    major, minor = capability
    if arch.variant == "a":
        return (arch.major, arch.minor) == (major, minor)
    if arch.variant == "f":
        return arch.major == major and arch.minor <= minor
    return arch.number <= major * 10 + minor


def runs(arch: Arch, capability: tuple[int, int]) -> bool:
    """Can the GPU run this image, natively or through the driver's PTX JIT? LTO-IR never runs as is:
    only a link (nvlink at build time, nvJitLink at run time) turns it into SASS."""
    if arch.kind == LTO:
        return False
    return sass_runs(arch, capability) if arch.kind == SASS else ptx_jits(arch, capability)


__all__ = ["PTX", "SASS", "Arch", "capability_name", "parse_capability", "ptx_jits", "runs", "sass_runs",
           "sort_tokens"]
