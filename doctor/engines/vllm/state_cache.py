"""vLLM's Mamba/linear-attention state blocks for a hybrid model (Qwen3-Next, Qwen3.5/3.6, Nemotron-H), and
the check vLLM 0.20.0 and later make against `max_num_seqs` before capturing CUDA graphs.

With the hybrid KV-cache manager one pool of `num_blocks` pages serves every layer group
(`get_kv_cache_config_from_groups`, vllm/v1/core/kv_cache_utils.py): the page is unified across attention and
state layers, and each of `group_size` tensors is shared by one layer of every group, so

    num_blocks = available KV bytes // (page bytes x group_size).

The page (`Platform._align_hybrid_block_size`, vllm/platforms/interface.py from 0.20.0): the attention block
size is raised to the smallest multiple of the backend's kernel block alignment (16 for the attention backends
vLLM picks on SM12x) whose page holds one layer's recurrent state, and the state page is padded to it. One
layer's state, per TP rank (`MambaStateShapeCalculator`, vllm/model_executor/layers/mamba/mamba_utils.py): the
conv window (kernel - 1) x channels / TP in the Mamba cache dtype (the model dtype unless
`--mamba-cache-dtype`) and the heads / TP x head dim x state dim SSM state in `--mamba-ssm-cache-dtype`,
which defaults to the config's `mamba_ssm_dtype` for Qwen3.5 models (`Qwen3_5ForConditionalGenerationConfig`,
0.17.0 on) and to the config's `mamba_ssm_cache_dtype` or float32 for Nemotron-H (`NemotronHForCausalLMConfig`).

`GPUModelRunner`'s cudagraph setup (vllm/config/compilation.py `resolve_cudagraph_mode_and_sizes`, 0.20.0-0.33.0)
raises "max_num_seqs (N) exceeds available Mamba cache blocks (M)" when the model has Mamba layers, the
cudagraph mode has FULL graphs (the default; not with `--enforce-eager` or a PIECEWISE/NONE mode) and
max_num_seqs > num_blocks. 0.18.0-0.19.x instead cap the capture sizes to the blocks with a warning
(`adjust_cudagraph_sizes_for_mamba_cache`, in the 0.18.0 and 0.19.1 wheels); 0.17.0 checks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from packaging.version import Version

from doctor.engines.spi import LayoutShape, Model
from doctor.plan.kv import KvShape

GiB = 1 << 30
KERNEL_BLOCK_ALIGNMENT = 16  # min(get_supported_kernel_block_sizes()) of FLASH_ATTN, FLASHINFER and TRITON_ATTN
QWEN3_5_SSM_DTYPE_FROM = Version("0.17.0")
QWEN3_5 = ("Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration")
NEMOTRON_H = ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM")
ELEM_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "half": 2, "fp32": 4, "bf16": 2, "fp16": 2}
# The plan's activation and non-torch figures are estimates; the verdict is certain only when the pool is short
# even with this much more memory than the plan gives it.
ESTIMATE_MARGIN = 2 * GiB
# Public counts so far run below the plan, by up to 26 % of the planned count (bench/RESULTS-mamba-blocks.md:
# 556 logged where 750 are planned); below this share of the plan a max_num_seqs is taken as safe.
LOGGED_SHARE_LOW = 0.74

NOT_FULL_GRAPHS = re.compile(r"cudagraph_mode\W+(?:PIECEWISE|NONE)\b", re.IGNORECASE)


def launch_options(args: Sequence[str]) -> dict[str, Any]:
    """What of a launch changes the state page or the check: the Mamba dtypes and whether FULL CUDA graphs stay."""
    options: dict[str, Any] = {"mamba_cache_dtype": None, "mamba_ssm_cache_dtype": None,
                               "full_cudagraphs": not NOT_FULL_GRAPHS.search(" ".join(map(str, args)))}
    for i, arg in enumerate(args):
        name, _, value = str(arg).partition("=")
        key = name.lstrip("-").replace("-", "_")
        if key in ("mamba_cache_dtype", "mamba_ssm_cache_dtype"):
            value = value or (str(args[i + 1]) if i + 1 < len(args) else "")
            options[key] = value.strip().lower() or None
    return options


def ssm_dtype(model: Model, release: str, options: dict[str, Any]) -> str:
    state = model.recurrent_state
    assert state is not None
    conv = conv_dtype(model, options)
    forced = options.get("mamba_ssm_cache_dtype")
    if forced and forced != "auto":
        return forced
    if model.architecture in QWEN3_5 and Version(release) >= QWEN3_5_SSM_DTYPE_FROM:
        return state.ssm_dtype or conv
    if model.architecture in NEMOTRON_H:
        return state.ssm_dtype or "float32"
    return conv


def conv_dtype(model: Model, options: dict[str, Any]) -> str:
    forced = options.get("mamba_cache_dtype")
    return forced if forced and forced != "auto" else model.dtype


def state_page_bytes(model: Model, tp: int, conv: str, ssm: str) -> int:
    """One layer's recurrent state on a rank, as MambaSpec.page_size_bytes sums it."""
    state = model.recurrent_state
    assert state is not None
    channels = state.conv_channels
    if state.kind == "mamba2" and state.groups % tp:  # extra_groups_for_head_shards: groups replicated
        channels += 2 * (tp - state.groups) * state.state_dim
    conv_bytes = (state.conv_kernel - 1) * (channels // tp) * ELEM_BYTES.get(conv, 2)
    ssm_bytes = max(state.heads // tp, 1) * state.head_dim * state.state_dim * ELEM_BYTES.get(ssm, 2)
    return conv_bytes + ssm_bytes


def group_size(attention_layers: int, state_layers: int) -> int:
    """`_get_kv_cache_groups_uniform_page_size`: the smallest type's layer count, the largest's when under 1.5x."""
    counts = [count for count in (attention_layers, state_layers) if count]
    group = min(counts)
    return max(counts) if max(counts) < 1.5 * group else group


def state_cache(release: str, budget: int, shape: KvShape, model: Model, layout: LayoutShape,
                settings: dict[str, Any], options: dict[str, Any]) -> dict[str, Any] | None:
    """The pool's blocks for this stage and how they compare with max_num_seqs; None for a model without a
    recurrent state the doctor sizes, or one without attention layers (no unified page)."""
    state = model.recurrent_state
    if state is None or shape.layers <= 0 or shape.cell_bytes <= 0 or model.num_layers <= 0:
        return None
    attention_token = shape.cell_bytes // shape.layers
    conv, ssm = conv_dtype(model, options), ssm_dtype(model, release, options)
    state_bytes = state_page_bytes(model, layout.tp, conv, ssm)
    align = KERNEL_BLOCK_ALIGNMENT
    block_size = align * -(-state_bytes // (align * attention_token))
    page = block_size * attention_token
    stage_layers = shape.layers + shape.linear_layers
    state_layers = max(1, round(state.layers * stage_layers / model.num_layers))
    per_block = page * group_size(shape.layers, state_layers)
    blocks = max(budget, 0) // per_block
    seqs = int(settings["max_num_seqs"])
    safe_blocks = int(blocks * LOGGED_SHARE_LOW)
    return {"blocks": blocks, "blocks_with_margin": (max(budget, 0) + ESTIMATE_MARGIN) // per_block,
            "safe_max_num_seqs": _round_down(safe_blocks), "block_size": block_size, "page_bytes": page,
            "state_bytes": state_bytes, "group_size": per_block // page, "conv_dtype": conv, "ssm_dtype": ssm,
            "max_num_seqs": seqs, "short": seqs > blocks,
            "short_for_sure": seqs > (max(budget, 0) + ESTIMATE_MARGIN) // per_block,
            "at_risk": seqs > safe_blocks,
            "full_cudagraphs": bool(options.get("full_cudagraphs", True)),
            "budget_gib": round(budget / GiB, 2), "per_block_mib": round(per_block / (1 << 20), 1)}


def _round_down(blocks: int) -> int:
    return blocks // 8 * 8 if blocks >= 16 else max(blocks, 1)
