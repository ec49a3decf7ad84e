"""Cases for rules/spec_decode.toml (task specdec): log-line rules about speculative decoding. Each fires with its
own signature shown on every SM12x profile (12.0 and 12.1), and stays silent in `check` (no log), with another
rule's line shown, and just outside its GPU bound: Hopper 9.0 and datacenter Blackwell 10.0."""

from __future__ import annotations

from tests.rules.log_line_cases import OTHER, SM12X, logged

SPEC_RULES = ("SPEC001", "SPEC002", "SPEC003", "SPEC004", "SPEC005")

SPEC_DECODE_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in SPEC_RULES for profile in SM12X),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in SPEC_RULES
      for profile in OTHER),
    *(logged(rule, False, "check: no log", "rtx-5090", shown=()) for rule in SPEC_RULES),
    *(logged(rule, False, "another rule's line (VLLM113's IMA frame)", "rtx-5090", shown=("VLLM113",))
      for rule in SPEC_RULES),
    logged("SPEC001", False, "the MTP weights line is SPEC002's, not a crash dump", "dgx-spark", shown=("SPEC002",)),
]
