"""Cases for the arch-gate family (rules/arch_gates.toml, task archgate). Each rule reads `log.signatures` (filled
only by `diagnose`): it fires with its own signature shown on an RTX 5090, a GB10 and an RTX PRO 6000, and stays
silent in `check` (no log), with another rule's signature shown, and just outside its GPU bound (Hopper 9.0,
datacenter Blackwell 10.0)."""

from __future__ import annotations

from tests.rules.builders import Case, build, decode_attention, fused_moe, lib
from tests.rules.log_line_cases import OTHER, SM12X, logged

GATES = ("GATE001", "GATE002", "GATE003", "GATE004", "GATE005", "GATE006", "GATE007", "GATE008", "GATE030")

ARCH_GATE_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in GATES for profile in SM12X),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in GATES
      for profile in OTHER),
    *(logged(rule, False, "check: no log", "rtx-5090", shown=()) for rule in GATES),
    *(logged(rule, False, "another rule's line", "rtx-5090", shown=("TORCH001",)) for rule in GATES),
]


def _triton(profile: str, version: str, kernels: tuple = (fused_moe(True),), why: str = "", fires: bool = True):
    """GATE010: a check-time rule over the plan's Triton kernels with the installed Triton."""
    return Case("GATE010", fires, lambda: build(profile, libs=(lib("triton", version),)), (), kernels,
                why or f"triton {version} on {profile}")


ARCH_GATE_CASES += [
    _triton("rtx-5090", "3.3.0", why="torch 2.7.0's Triton compiles no tl.dot for 12.0"),
    _triton("dgx-spark", "3.3.0", why="nor for 12.1"),
    _triton("rtx-pro-6000", "3.3.0", kernels=(fused_moe(False),), why="whether or not the config fits"),
    _triton("rtx-5090", "3.3.1", fires=False, why="3.3.1 adds MMA v2 for capability < 13.0"),
    _triton("rtx-5090", "3.2.0", fires=False, why="TRI001's: Triton before 3.3 knows no sm_120 at all"),
    _triton("h100-sxm-x8", "3.3.0", fires=False, why="Hopper: MMA v3/v2"),
    _triton("b200-x8", "3.3.0", fires=False, why="datacenter Blackwell: MMA v5/v2"),
    _triton("rtx-5090", "3.3.0", kernels=(decode_attention(True),), fires=False,
            why="a plan whose only Triton kernel is decode stage 1 (no tl.dot in the MHA form)"),
]
