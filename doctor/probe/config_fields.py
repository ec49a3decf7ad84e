"""Which fields of a config.json the doctor's model reader did not look at, of those that could change how
much a model weighs or how much KV cache it needs: a new architecture's field (Gemma 4's
`num_kv_shared_layers`, a hybrid model's state sizes) is reported instead of silently mis-sizing the model."""

from __future__ import annotations

import re
from typing import Any

# Names that speak of shapes, layer kinds, experts or caches.
SIZING = re.compile(r"expert|layer|head|window|lora|rank|_dim$|_dim_|hidden|intermediate|vocab|sparse|moe|mtp|nextn|"
                    r"swa|linear|mamba|ssm|conv|state|group|kv|shared")
# Matching names that do not change a size: routing and loss knobs, fields every Hugging Face config carries,
# and fields another one stands for (MLA configs keep num_key_value_heads; gpt-oss repeats its top-k).
IGNORED = frozenset({
    "num_key_value_heads", "experts_per_token", "n_group", "topk_group", "moe_router_dtype", "max_window_layers",
    "cross_attention_hidden_size", "output_hidden_states", "pruned_heads", "router_aux_loss_coef",
    "output_router_logits", "norm_topk_prob", "ep_size", "hidden_act", "hidden_activation", "num_beam_groups",
})
# Fields the reader does not model that are harmless at these values (every layer MoE, no sliding window).
NEUTRAL: dict[str, Any] = {"decoder_sparse_step": 1, "moe_layer_freq": 1, "use_sliding_window": False}


class ReadTracking(dict):  # type: ignore[type-arg]
    """A config dict that remembers which keys the reader asked for."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.asked: set[Any] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(key)
        return super().__contains__(key)


def unread_sizing_fields(config: ReadTracking) -> tuple[str, ...]:
    """`name` (or `name=value` for a known field at a value that is not harmless) of every field the reader
    did not ask for and that could be sizing-relevant."""
    out = []
    for key, value in dict.items(config):
        if key in config.asked or not isinstance(key, str):
            continue
        if key in NEUTRAL:
            if value != NEUTRAL[key]:
                out.append(f"{key}={value!r}")
        elif key not in IGNORED and SIZING.search(key):
            out.append(key)
    return tuple(sorted(out))
