"""The tuned-config file format of the fused-MoE kernel family (one JSON per E, N, device and dtype: batch size
→ BLOCK_SIZE_M/N/K, GROUP_SIZE_M, num_warps, num_stages), as the engines that run this kernel read it, validated
on the way in: a file that is a list, a string or null, or holds `"num_warps": Infinity` or `false`, is one
InputError naming the file, the entry and the value."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from doctor.errors import InputError
from doctor.output import read_json_file
from doctor.validation import check_int, shown

# The batch sizes the engines' tuning scripts write entries for.
TUNED_BATCH_SIZES = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096)
CONFIG_KEYS = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages")
# Ranges Triton accepts for fused_moe_kernel: block sizes and warps are powers of two (tl.arange, layouts).
_POW2_LIMIT = {"BLOCK_SIZE_M": 1024, "BLOCK_SIZE_N": 1024, "BLOCK_SIZE_K": 1024, "num_warps": 64}
_RANGE = {"GROUP_SIZE_M": (1, 1 << 16), "num_stages": (0, 16)}
MAX_CONFIG_FILE = 4 << 20


def load_configs(path: str | os.PathLike[str]) -> dict[int, dict[str, Any]]:
    """A tuned-config JSON as the engines read it: batch size -> kernel config, validated (one InputError)."""
    return parse_configs(read_json_file(Path(path), "MoE config file", MAX_CONFIG_FILE), f"MoE config {path}")


def parse_configs(data: Any, where: str) -> dict[int, dict[str, Any]]:
    """Batch size (a positive integer key) -> config whose known keys are integers in Triton's ranges."""
    if not isinstance(data, dict) or not data:
        raise InputError(f"{where}: expected a non-empty object of batch size -> config, got {_kind(data)}")
    out = {}
    for key, entry in data.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and 0 < int(key) <= 1 << 31):
            raise InputError(f"{where}: key {shown(key)} is not a batch size (a positive integer)")
        if not isinstance(entry, dict):
            raise InputError(f"{where}: entry {key}: expected an object, got {_kind(entry)}")
        for name in CONFIG_KEYS:
            if name in entry:
                check_config_value(entry[name], name, f"{where}: entry {key}")
            elif name.startswith("BLOCK_SIZE"):
                raise InputError(f"{where}: entry {key} has no {name}")
        out[int(key)] = entry
    return out


def check_config_value(value: Any, name: str, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: {name}={shown(value)} is not an integer")
    if name in _POW2_LIMIT:
        if not (0 < value <= _POW2_LIMIT[name] and value & (value - 1) == 0):
            raise InputError(f"{where}: {name}={value} is not a power of two in 1..{_POW2_LIMIT[name]}")
    else:
        check_int(value, f"{where}: {name}", *_RANGE[name])


def _kind(value: Any) -> str:
    names = {dict: "an empty object", list: "a list", str: "a string", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def select_config(configs: Mapping[int, dict[str, Any]], M: int) -> dict[str, Any]:
    """The entry the engine uses for M tokens: the nearest tuned batch size."""
    return configs[min(configs, key=lambda key: abs(key - M))]


def launch_config(config: Mapping[str, Any]) -> dict[str, int]:
    """A config with Triton's launch defaults filled in (4 warps, 3 stages on CUDA); only the kernel's own
    keys (ROCm extras such as waves_per_eu are not CUDA launch parameters)."""
    full = {"GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 3}
    full.update({key: int(config[key]) for key in CONFIG_KEYS if isinstance(config.get(key), int)})
    return full
