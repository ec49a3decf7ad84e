"""One entry point for both methods, in the launch vocabulary of `exact_launch` (params dicts)."""

from __future__ import annotations

from typing import Any

from .arch import Arch, arch_name, cc_int, parse_arch, smem_limit
from .attention_smem import LATEST_REVISION
from .families import family
from .result import SmemResult


def analytic(kernel: str, cc: str | int | Arch, params: dict[str, Any], triton: str | None = None,
             revision: int = LATEST_REVISION) -> int:
    """Closed-form bytes for a job described the way `exact_launch.build` takes it; revision: which
    source of the attention kernels runs (attention_smem.LATEST_REVISION)."""
    return family(kernel).estimate(parse_arch(cc), params, triton, revision)


# Launch parameters that must be positive powers of two (tl.arange extents, warp counts), and the rest
# with their plausible ranges; a bad value is a ValueError the `smem` command reports on one line.
_POW2 = {"block_m": 1024, "block_n": 1024, "block_h": 1024, "block": 1024, "num_warps": 64}
_RANGES = {"lq": (1, 4096), "lv": (1, 4096), "lk": (1, 4096), "head_dim": (1, 4096), "num_stages": (0, 16),
           "kv_group": (1, 1024), "sliding_window": (0, 1 << 31)}


def check_params(kernel: str, params: dict[str, Any]) -> None:
    """Refuse launch parameters no kernel could run with (`--block-m 0`, `--warps 3`) before sizing."""
    if kernel == "fused_moe":
        from .moe_tuned import parse_configs

        try:
            parse_configs({"1": params["config"]}, "fused-moe config")
        except Exception as exc:  # InputError: one line for the smem command
            raise ValueError(str(exc).replace("fused-moe config: entry 1: ", "")) from exc
        return
    for name, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        if name in _POW2 and not (0 < value <= _POW2[name] and value & (value - 1) == 0):
            raise ValueError(f"{name}={value} is not a power of two in 1..{_POW2[name]}")
        low, high = _RANGES.get(name, (-(1 << 62), 1 << 62))
        if not low <= value <= high:
            raise ValueError(f"{name}={value} is out of range ({low}..{high})")


def result(kernel: str, cc: str | int | Arch, nbytes: int, method: str) -> SmemResult:
    arch = parse_arch(cc)
    limit = smem_limit(arch)
    return SmemResult(kernel, arch_name(arch), int(nbytes), limit, nbytes <= limit, method)


def target(cc: str | int | Arch) -> int:
    return cc_int(parse_arch(cc))
