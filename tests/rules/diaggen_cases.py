"""Cases for the generic diagnose classes of rules/diaggen.toml (task diaggen). KRN140 reads `log.signatures` and
the library its signature captured (`log.arch_gate`): it fires with its line shown on the SM12x GPUs, and stays
silent in `check` (no log), with another rule's line shown, and just outside its GPU bound (Hopper 9.0, datacenter
Blackwell 10.0)."""

from __future__ import annotations

from tests.rules.builders import Case, build
from tests.rules.log_line_cases import OTHER, SM12X

ARCH_GATE = {"library": "not named by the line", "way_out": "the traceback's frames", "named": False,
             "lead": "If a GPU kernel library printed this line, it refused"}


def shown(rule: str, fires: bool, why: str, profile: str, signatures: tuple[str, ...] | None = None) -> Case:
    """`profile`'s facts as `diagnose` rebuilds them; `signatures=()` is `check` (no log at all)."""
    log = None if signatures == () else {"signatures": list(signatures or (rule,)), "arch_gate": ARCH_GATE}
    return Case(rule, fires, lambda: build(profile), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


DIAGGEN_CASES = [
    *(shown("KRN140", True, f"its line on {profile}", profile) for profile in SM12X),
    *(shown("KRN140", False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    shown("KRN140", False, "check: no log", "rtx-5090", signatures=()),
    shown("KRN140", False, "another rule's line", "rtx-5090", signatures=("KRN030",)),
]
