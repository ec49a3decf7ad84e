"""Cases for rules/mineG.toml (task mineG: DGX Spark / GB10 reports of ledger/mineG.toml)."""

from __future__ import annotations

from tests.rules.log_line_cases import OTHER, SM12X, logged

MINEG_CASES = [
    *(logged("VLLM740", True, f"its line on {profile}", profile) for profile in SM12X),
    *(logged("VLLM740", False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("VLLM740", False, "check: no log", "dgx-spark", shown=()),
    logged("VLLM740", False, "another rule's line (VLLM002's cutlass_scaled_mm)", "dgx-spark", shown=("VLLM002",)),
]
