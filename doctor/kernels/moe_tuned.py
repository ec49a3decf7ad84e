"""The tuned-config file format of the fused-MoE kernel family (one JSON per E, N, device and dtype: batch size
→ BLOCK_SIZE_M/N/K, GROUP_SIZE_M, num_warps, num_stages), as the engines that run this kernel read it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

# The batch sizes the engines' tuning scripts write entries for.
TUNED_BATCH_SIZES = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096)


def load_configs(path: str | os.PathLike[str]) -> dict[int, dict[str, Any]]:
    """A tuned-config JSON as the engines read it: batch size -> kernel config."""
    with open(path) as handle:
        return {int(key): value for key, value in json.load(handle).items()}


def select_config(configs: Mapping[int, dict[str, Any]], M: int) -> dict[str, Any]:
    """The entry the engine uses for M tokens: the nearest tuned batch size."""
    return configs[min(configs, key=lambda key: abs(key - M))]


def launch_config(config: Mapping[str, Any]) -> dict[str, int]:
    """A config with Triton's launch defaults filled in (4 warps, 3 stages on CUDA)."""
    full = {"GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 3}
    full.update({key: int(value) for key, value in config.items() if isinstance(value, (int, float))})
    return full
