"""Cases for rules/sweepG.toml. The log rules, DRV100 (the GSP firmware timing out) and WSL050 (ggml-cuda's VMM pool
failing to reserve its address range), each fire with their own signature shown on the SM12x GPUs the reports are
about and stay silent in `check` (no log), with another rule's line shown (Xid 79 is DRV030's, a weight allocation
OOM020's), and just outside their GPU bound (Hopper 9.0, datacenter Blackwell 10.0). HW010 fires for a
CUDA_VISIBLE_DEVICES whose first entry names no device and stays silent for indices, UUIDs, MIG ids and no value."""

from __future__ import annotations

from tests.rules.builders import a, build
from tests.rules.log_line_cases import OTHER, logged

REPORTED = ("rtx-5080", "rtx-5090", "rtx-pro-6000", "dgx-spark")

SWEEPG_CASES = [
    *(logged("DRV100", True, f"GSP heartbeat / Xid 119 / Xid 154 on {profile}", profile) for profile in REPORTED),
    *(logged("DRV100", False, f"{profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("DRV100", False, "check: no log", "rtx-5080", shown=()),
    logged("DRV100", False, "Xid 79 is DRV030's line", "rtx-5080", shown=("DRV030",)),
]

# WSL050: ggml-cuda's VMM pool failing to reserve its address range, from a log
SWEEPG_CASES += [
    *(logged("WSL050", True, f"VMM reserve failure on {profile}", profile) for profile in REPORTED),
    *(logged("WSL050", False, f"{profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("WSL050", False, "check: no log", "rtx-5090", shown=()),
    logged("WSL050", False, "another rule's line (llama.cpp's weight allocation)", "rtx-5090", shown=("OOM020",)),
]


def _visible(value: str):
    return lambda: build("rtx-5070-ti", env={"CUDA_VISIBLE_DEVICES": value})


# HW010: CUDA_VISIBLE_DEVICES whose first entry names no device
SWEEPG_CASES += [
    a("HW010", True, "-1 hides every GPU", _visible("-1")),
    a("HW010", True, "an empty value hides every GPU", _visible("")),
    a("HW010", True, "a leading invalid entry hides the rest", _visible("none,0")),
    a("HW010", False, "index 0", _visible("0")),
    a("HW010", False, "two indices", _visible("0,1")),
    a("HW010", False, "a GPU UUID", _visible("GPU-93808743-a5f5-6561-b7ea-e70aa68a7e75")),
    a("HW010", False, "a MIG id", _visible("MIG-0f2c6d8e-6b3c-5a1e-9b1f-1c2d3e4f5a6b")),
    a("HW010", False, "variable unset", lambda: build("rtx-5070-ti")),
]
