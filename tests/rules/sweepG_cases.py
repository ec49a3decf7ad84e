"""Cases for rules/sweepG.toml's log rules, DRV100 (the GSP firmware timing out) and WSL050 (ggml-cuda's VMM pool
failing to reserve its address range): each fires with its own signature shown on the SM12x GPUs the reports are
about, and stays silent in `check` (no log), with another rule's line shown (Xid 79 is DRV030's, a weight allocation
OOM020's), and just outside its GPU bound (Hopper 9.0, datacenter Blackwell 10.0)."""

from __future__ import annotations

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
