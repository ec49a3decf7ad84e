"""A GPU's compute capability from its marketing name, for logs that name the GPU but not its capability
(collect_env, nvidia-smi). Capabilities from NVIDIA's table, https://developer.nvidia.com/cuda-gpus."""

from __future__ import annotations

import re

_BY_NAME: tuple[tuple[str, str], ...] = (
    (r"\bGB10\b|\bDGX Spark\b", "12.1"),
    (r"RTX PRO \d+ Blackwell|RTX PRO \d{4}\b|RTX 50\d0|RTX 5090", "12.0"),
    (r"\bG?B300\b", "10.3"),
    (r"\bG?B200\b", "10.0"),
    (r"\bH(?:100|200|800|20)\b|GH200", "9.0"),
    (r"RTX 40\d0|\bL40S?\b|\bL4\b|RTX \d+ Ada|RTX 6000 Ada", "8.9"),
    (r"\bA100\b|\bA800\b|\bA30\b", "8.0"),
    (r"RTX 30\d0|RTX A\d{4}|\bA40\b|\bA10G?\b", "8.6"),
    (r"RTX 20\d0|\bT4\b|TITAN RTX|Quadro RTX", "7.5"),
    (r"\bV100\b", "7.0"),
)


def capability_of(name: str) -> str | None:
    for pattern, capability in _BY_NAME:
        if re.search(pattern, name):
            return capability
    return None
