"""A hybrid model's per-layer recurrent state (doctor.pipeline.facts.RecurrentState) from its config.json:

- Gated DeltaNet (Qwen3-Next, Qwen3.5/3.6): a conv window over 2 x key heads x key dim + value heads x value
  dim channels (`linear_conv_kernel_dim` - 1 rows) and a value heads x value dim x key dim state
  (the engines' state-shape calculators, e.g. vLLM's `gated_delta_net_state_shape`);
  `mamba_ssm_dtype` (Qwen3.5: float32) is the state's dtype.
- Mamba2 (Nemotron-H `hybrid_override_pattern` "M" blocks): a conv window over heads x head dim + 2 x groups x
  state size channels (`conv_kernel` - 1 rows) and a heads x head dim x state size SSM state
  (`mamba2_state_shape`); `mamba_ssm_cache_dtype` where the config names it.
"""

from __future__ import annotations

from typing import Any

from doctor.pipeline.facts import RecurrentState

GDN_TYPES = {"linear_attention", "gated_deltanet", "gdn"}


def _int(cfg: dict[str, Any], key: str, default: int) -> int:
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def _dtype(value: Any) -> str | None:
    return value if isinstance(value, str) and value in ("float32", "bfloat16", "float16") else None


def recurrent_state(text: dict[str, Any], linear_layers: int) -> RecurrentState | None:
    """None for a model without recurrent layers or whose layer kind the doctor does not size."""
    if linear_layers <= 0:
        return None
    if "linear_num_value_heads" in text:
        return _gdn(text, linear_layers)
    pattern = text.get("hybrid_override_pattern")
    blocks = text.get("layers_block_type")
    if isinstance(pattern, str) and "M" in pattern:
        return _mamba2(text, pattern.count("M"))
    if isinstance(blocks, list) and "mamba" in blocks and "mamba_num_heads" in text:
        return _mamba2(text, blocks.count("mamba"))
    return None


def _gdn(text: dict[str, Any], layers: int) -> RecurrentState:
    k_heads, v_heads = _int(text, "linear_num_key_heads", 16), _int(text, "linear_num_value_heads", 32)
    k_dim, v_dim = _int(text, "linear_key_head_dim", 128), _int(text, "linear_value_head_dim", 128)
    return RecurrentState(kind="gdn", layers=layers, conv_channels=2 * k_heads * k_dim + v_heads * v_dim,
                          conv_kernel=_int(text, "linear_conv_kernel_dim", 4), heads=v_heads, head_dim=v_dim,
                          state_dim=k_dim, groups=k_heads, ssm_dtype=_dtype(text.get("mamba_ssm_dtype")))


def _mamba2(text: dict[str, Any], layers: int) -> RecurrentState:
    heads, head_dim = _int(text, "mamba_num_heads", 1), _int(text, "mamba_head_dim", 64)
    groups, state = _int(text, "n_groups", 1), _int(text, "ssm_state_size", 128)
    return RecurrentState(kind="mamba2", layers=layers, conv_channels=heads * head_dim + 2 * groups * state,
                          conv_kernel=_int(text, "conv_kernel", 4), heads=heads, head_dim=head_dim, state_dim=state,
                          groups=groups, ssm_dtype=_dtype(text.get("mamba_ssm_cache_dtype")))
