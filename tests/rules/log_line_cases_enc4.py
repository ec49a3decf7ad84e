"""Cases for the log-line rules of rules/enc4_lines.toml (task enc4). KRN050 fires with its line on every SM12x
profile and stays silent just outside its bound (Hopper 9.0, datacenter Blackwell 10.0), in `check` (no log) and
with another rule's line; CKPT060 is GPU-independent (the loader skips the tensors on any GPU), so it fires on
Hopper too and is silent only without its line."""

from __future__ import annotations

from tests.rules.log_line_cases import OTHER, SM12X, logged

LOG_LINE_ENC4_CASES = [
    *(logged("KRN050", True, f"its line on {profile}", profile) for profile in SM12X),
    *(logged("KRN050", False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("KRN050", False, "check: no log", "rtx-5090", shown=()),
    logged("KRN050", False, "another rule's line", "rtx-5090", shown=("KRN031",)),
    *(logged("CKPT060", True, f"its line on {profile}", profile) for profile in ("dgx-spark", "h100-sxm-x8")),
    logged("CKPT060", False, "check: no log", "dgx-spark", shown=()),
    logged("CKPT060", False, "another rule's line", "dgx-spark", shown=("CKPT016",)),
]
