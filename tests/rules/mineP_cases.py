"""Cases for rules/mineP.toml. FI292 (FlashInfer's b12x MoE refusing a CUDA 12.x) explains a log line only: it fires
with its own line shown on the SM12x GPUs the b12x kernels are for and stays silent in `check` (no log), with
another rule's line shown, and just outside its GPU bound (Hopper 9.0, datacenter Blackwell 10.0)."""

from __future__ import annotations

from tests.rules.log_line_cases import OTHER, SM12X, logged

MINEP_CASES = [
    *(logged("FI292", True, f"b12x refused CUDA 12.x on {profile}", profile) for profile in SM12X),
    *(logged("FI292", False, f"{profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("FI292", False, "check: no log", "rtx-pro-6000", shown=()),
    logged("FI292", False, "another rule's line (b12x's shared-memory overflow)", "rtx-pro-6000", shown=("MOE030",)),
]
