"""Cases for UMA060 (rules/uma_pressure.toml): the global OOM killer's lines name the unified pool on GB10 only;
the other SM12x part, Hopper 9.0 and datacenter Blackwell 10.0 keep the same lines as host RAM, and `check`
(no log) or another rule's line never fires it. test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.log_line_cases import logged

GB10MEM_CASES = [
    logged("UMA060", True, "its line on dgx-spark", "dgx-spark"),
    logged("UMA060", False, "its line on rtx-pro-6000: discrete memory, host RAM", "rtx-pro-6000"),
    logged("UMA060", False, "its line on rtx-5090: discrete memory, host RAM", "rtx-5090"),
    logged("UMA060", False, "its line on h100 (9.0)", "h100-sxm-x8"),
    logged("UMA060", False, "its line on b200 (10.0)", "b200-x8"),
    logged("UMA060", False, "check: no log", "dgx-spark", shown=()),
    logged("UMA060", False, "another rule's line on dgx-spark", "dgx-spark", shown=("UMA010",)),
]
