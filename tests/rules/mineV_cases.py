"""Cases for the log-line rules of rules/mineV.toml (task mineV): each fires with its own signature shown on the
SM12x GPUs it is about, and stays silent in `check` (no log), with another rule's signature shown, and on Hopper
(9.0) and datacenter Blackwell (10.0), whose builds compile the SM90/SM100 CUTLASS MoE kernels."""

from __future__ import annotations

from tests.rules.log_line_cases import OTHER, SM12X, logged

MINEV_CASES = [
    *(logged("VLLM680", True, f"its line on {profile}", profile) for profile in SM12X),
    *(logged("VLLM680", False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("VLLM680", False, "check: no log", "dgx-spark", shown=()),
    logged("VLLM680", False, "another rule's line", "dgx-spark", shown=("KRN030",)),
]
