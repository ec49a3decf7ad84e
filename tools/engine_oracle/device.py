"""The devices the oracle emulates: the capability under test and what torch reports about it."""

from __future__ import annotations

from typing import Any

GIB = 1024**3
DEVICES: dict[str, dict[str, Any]] = {
    "12.0": {"capability": [12, 0], "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
             "memory_bytes": 96 * GIB, "sms": 188, "smem_per_block_optin": 101376, "smem_per_sm": 102400,
             "l2_bytes": 128 * 1024**2},
    "12.1": {"capability": [12, 1], "name": "NVIDIA GB10", "memory_bytes": 119 * GIB, "sms": 48,
             "smem_per_block_optin": 101376, "smem_per_sm": 102400, "l2_bytes": 24 * 1024**2,
             "integrated": True},
    "10.0": {"capability": [10, 0], "name": "NVIDIA B200", "memory_bytes": 179 * GIB, "sms": 148,
             "smem_per_block_optin": 232448, "smem_per_sm": 233472, "l2_bytes": 126 * 1024**2},
    "9.0": {"capability": [9, 0], "name": "NVIDIA H100 80GB HBM3", "memory_bytes": 79 * GIB, "sms": 132,
            "smem_per_block_optin": 232448, "smem_per_sm": 233472, "l2_bytes": 50 * 1024**2},
}
