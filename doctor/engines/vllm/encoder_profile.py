"""The multimodal encoder's share of vLLM's profile run.

`GPUModelRunner.profile_run` (v1, every release the doctor tabulates) runs the vision tower once on a dummy batch
of the modality with the most tokens per item (`MultiModalBudget`: items per batch = encoder budget // tokens per
item, the budget being max(`max_num_batched_tokens`, tokens per item)), keeps the outputs in the encoder cache
through the language model's dummy forward and sampler run, and counts the peak like any other activation. It is
skipped with `--skip-mm-profiling`, `--language-model-only`, or a `--limit-mm-per-prompt` of 0 for every modality.

Modelled for the Qwen3-VL vision tower only (Qwen3-VL, Qwen3-VL-MoE, Qwen3.5, Qwen3.5-MoE), whose processors ship
`size.longest_edge` = 16777216 pixels (16384 merged tokens a dummy image, above the video's 12288). The peak is
measured, not derived: transformers 5.17's vision model in bf16 on an H200 (bench/device/vision_peak.py,
bench/RESULTS-memory-gb10.md) peaks at 44,416 bytes a patch for hidden size 1152 and 39,488 for 1024, at 16384 to
65536 patches and depths 8 and 27 alike: 38.5 x hidden + 64 bytes a patch. Other vision towers are not modelled
(the plan then leaves their profile out, as before)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from doctor.engines.spi import Model

QWEN3_VL_TYPES = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
QWEN3_VL_MAX_PIXELS = 16777216
QWEN3_VL_PATCH = 16
QWEN3_VL_MERGE = 2


def peak_bytes_per_patch(vision_hidden: int) -> int:
    return int(38.5 * vision_hidden) + 64


def profiled(values: Mapping[str, Any]) -> bool:
    """Whether the launch leaves vLLM's encoder profile on."""
    if values.get("skip_mm_profiling") or values.get("language_model_only"):
        return False
    limits = values.get("limit_mm_per_prompt")
    if isinstance(limits, str):
        limits = _limits(limits)
    every_modality_off = isinstance(limits, dict) and limits and all(v == 0 for v in limits.values())
    return not every_modality_off


def _limits(text: str) -> dict[str, object]:
    """`{"image": 0, "video": 0}` (JSON), or the older `image=0,video=0`; {} when neither."""
    try:
        parsed = json.loads(text)
        return parsed if isinstance(parsed, dict) else {}
    except ValueError:
        pairs = [item.split("=", 1) for item in text.split(",") if "=" in item]
        return {k.strip(): int(v) if v.strip().isdigit() else v for k, v in pairs}


def encoder_profile(model: Model, max_num_batched_tokens: int) -> tuple[int, int]:
    """(peak of the encoder's forward, bytes its outputs hold through the LM's dummy run); (0, 0) when unmodelled."""
    if model.vision is None or model.model_type not in QWEN3_VL_TYPES:
        return 0, 0
    patches = QWEN3_VL_MAX_PIXELS // QWEN3_VL_PATCH ** 2
    tokens = patches // QWEN3_VL_MERGE ** 2
    items = max(1, max(max_num_batched_tokens, tokens) // tokens)
    return items * patches * peak_bytes_per_patch(model.vision.hidden_size), items * tokens * model.hidden_size * 2
