"""Cases for the arch-gate family (rules/arch_gates.toml, task archgate). Each rule reads `log.signatures` (filled
only by `diagnose`): it fires with its own signature shown on an RTX 5090, a GB10 and an RTX PRO 6000, and stays
silent in `check` (no log), with another rule's signature shown, and just outside its GPU bound (Hopper 9.0,
datacenter Blackwell 10.0)."""

from __future__ import annotations

from tests.rules.log_line_cases import OTHER, SM12X, logged

GATES = ("GATE001", "GATE002", "GATE003", "GATE004", "GATE005", "GATE030")

ARCH_GATE_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in GATES for profile in SM12X),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in GATES
      for profile in OTHER),
    *(logged(rule, False, "check: no log", "rtx-5090", shown=()) for rule in GATES),
    *(logged(rule, False, "another rule's line", "rtx-5090", shown=("TORCH001",)) for rule in GATES),
]
