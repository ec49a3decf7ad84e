"""Positive and boundary cases for the rules of helper deepen2 (rules/deepen2.toml): ledger reports read further.
test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"


def dsl(version: str, files: str | None = "base", cu13: bool = True, profile: str = SPARK) -> Callable[[], Facts]:
    """nvidia-cutlass-dsl as the probe records it (doctor/probe/cutlass_dsl.py): whose extension is on disk."""
    details: dict[str, object] = {"libs_base_installed": True, "libs_cu13_installed": cu13}
    if files is not None:
        details["libs_files"] = files
    return lambda: build(profile, libs=(lib("nvidia-cutlass-dsl", version, **details),))


DEEPEN2_CASES = [
    # KRN220: -libs-base's extension on disk, 4.4.0-4.5.0 (no PTX path of its own for SM120 block-scaled MMA)
    a("KRN220", True, "4.4.2 on GB10 (vllm#40082's cu130 nightly)", dsl("4.4.2")),
    a("KRN220", True, "4.5.0 on an RTX PRO 6000 (cutlass#3227)", dsl("4.5.0", profile=PRO)),
    a("KRN220", True, "4.4.0: the first split release", dsl("4.4.0", profile=R5090)),
    a("KRN220", False, "4.5.1: -libs-base has its inline PTX path", dsl("4.5.1")),
    a("KRN220", False, "4.3.0: one wheel, nothing collides", dsl("4.3.0")),
    a("KRN220", False, "-libs-cu13's extension on disk", dsl("4.5.0", files="cu13")),
    a("KRN220", False, "an extension neither wheel wrote (patched)", dsl("4.5.0", files="neither")),
    a("KRN220", True, "-libs-base alone (vllm#40082's 2026-05-15 comment, SM121)", dsl("4.5.0", cu13=False)),
    a("KRN220", False, "the version without the probe's file fact (a what-if)", dsl("4.5.0", files=None)),
    a("KRN220", False, "Hopper", dsl("4.5.0", profile=H100)),
    a("KRN220", False, "B200: datacenter Blackwell", dsl("4.5.0", profile=B200)),
    # CUT001 (rescoped here): 4.5.0 stays an error unless the probe reads -libs-cu13's build on disk
    a("CUT001", True, "4.5.0 with -libs-base's build on disk", dsl("4.5.0", profile=PRO)),
    a("CUT001", True, "4.5.0 with an extension neither wheel wrote", dsl("4.5.0", files="neither")),
    a("CUT001", False, "4.5.0 with -libs-cu13's build on disk (cutlass#3227's update)", dsl("4.5.0", files="cu13")),
]
