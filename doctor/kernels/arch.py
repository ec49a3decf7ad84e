"""Target architectures: parsing, opt-in shared-memory limits and the tensor-core path Triton takes."""

from __future__ import annotations

from doctor.hardware import SMEM_PER_BLOCK_OPTIN as _LIMITS  # one table: cudaDevAttrMaxSharedMemoryPerBlockOptin
from doctor.hardware.arch import parse_capability

Arch = tuple[int, int]


def parse_arch(value: str | int | tuple[int, int] | list[int]) -> Arch:
    """Accept (12, 0), "12.0", "sm120", "sm_120a", 120 or "120" and return (major, minor)."""
    return parse_capability(value)


def cc_int(cc: Arch) -> int:
    """(12, 0) -> 120, the form GPUTarget wants."""
    return cc[0] * 10 + cc[1]


def arch_name(cc: Arch) -> str:
    return f"sm{cc_int(cc)}"


def smem_limit(cc: str | int | Arch) -> int:
    """Opt-in shared memory per block (bytes) that a Triton launch is checked against."""
    arch = parse_arch(cc)
    if arch in _LIMITS:
        return _LIMITS[arch]
    if arch[0] == 10:
        return 232448
    if arch[0] == 12:
        return 101376
    raise ValueError(f"no shared-memory limit known for compute capability {arch[0]}.{arch[1]}")


def mma_kind(cc: Arch, block_m: int, num_warps: int, int8: bool = False) -> str:
    """Tensor-core path Triton picks for a dot of M=block_m: 'wgmma', 'tcgen05' or 'mma'.

    sm90 / sm10x use the async warp-group paths only for M tiles of 64k rows and 4k warps;
    every sm8x and sm12x dot is mma.sync, fed by cp.async pipelining.
    """
    big = block_m % 64 == 0 and num_warps % 4 == 0
    if cc[0] == 9 and big:
        return "wgmma"
    if cc[0] == 10 and big and not int8:
        return "tcgen05"
    return "mma"
