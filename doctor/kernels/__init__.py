"""Shared-memory estimators (closed form) per kernel family, and exact mode (AOT compile of the engine's own
kernel source).

Importing this package never imports torch or triton; only exact mode's worker subprocess does.
"""

from .arch import arch_name, parse_arch, smem_limit
from .attention_smem import extend_attention_smem, prefill_attention_smem
from .decode_smem import decode_attention_smem
from .estimate import analytic, result
from .moe_configs import check_moe_config_file, generate_safe_moe_config
from .moe_smem import fused_moe_smem
from .result import SmemResult

__all__ = [
    "SmemResult",
    "analytic",
    "arch_name",
    "check_moe_config_file",
    "decode_attention_smem",
    "exact_smem",
    "extend_attention_smem",
    "fused_moe_smem",
    "generate_safe_moe_config",
    "parse_arch",
    "prefill_attention_smem",
    "result",
    "smem_limit",
]


def exact_smem(kernel_name: str, source_dir, cc, triton_site=None, cache_dir=None, **config) -> int:
    """Exact mode (lazy import so the default path stays free of subprocess/triton machinery)."""
    from .exact import exact_smem as _exact

    return _exact(kernel_name, source_dir, cc, triton_site, cache_dir, **config)
