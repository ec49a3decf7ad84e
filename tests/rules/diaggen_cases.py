"""Cases for the generic diagnose classes of rules/diaggen.toml (task diaggen). KRN140 reads `log.signatures` and
the library its signature captured (`log.arch_gate`): it fires with its line shown on the SM12x GPUs, and stays
silent in `check` (no log), with another rule's line shown, and just outside its GPU bound (Hopper 9.0, datacenter
Blackwell 10.0). LCPP260 reads `log.ollama_load` (the Ollama release and the context it sized by VRAM): it fires for
the releases that print its line (0.15.5-0.24.x) when the context is an automatic tier of 32768 or more, and not for
0.30.0, not below the 23 GiB tier, not with OLLAMA_CONTEXT_LENGTH set, not off SM12x."""

from __future__ import annotations

from tests.rules.builders import Case, build
from tests.rules.log_line_cases import OTHER, SM12X

ARCH_GATE = {"library": "not named by the line", "way_out": "the traceback's frames", "named": False}


def shown(rule: str, fires: bool, why: str, profile: str, signatures: tuple[str, ...] | None = None,
          view: dict | None = None) -> Case:
    """`profile`'s facts as `diagnose` rebuilds them; `signatures=()` is `check` (no log at all)."""
    log = None if signatures == () else {"signatures": list(signatures or (rule,)), "arch_gate": ARCH_GATE,
                                         **(view or {})}
    return Case(rule, fires, lambda: build(profile), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


DIAGGEN_CASES = [
    *(shown("KRN140", True, f"its line on {profile}", profile) for profile in SM12X),
    *(shown("KRN140", False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    shown("KRN140", False, "check: no log", "rtx-5090", signatures=()),
    shown("KRN140", False, "another rule's line", "rtx-5090", signatures=("KRN030",)),
]


def ollama(release: str, num_ctx: int = 262144, source: str = "vram-tier") -> dict:
    """`log.ollama_load` as doctor/diagnose/ollama_load.py builds it."""
    return {"ollama_load": {"release": release, "num_ctx": num_ctx, "source": source, "total_vram_gib": 95.6}}


DIAGGEN_CASES += [
    shown("LCPP260", True, "Ollama 0.15.5 at 262144 on an RTX PRO 6000", "rtx-pro-6000", view=ollama("0.15.5")),
    shown("LCPP260", True, "Ollama 0.24.0, the last release with the line", "dgx-spark", view=ollama("0.24.0")),
    shown("LCPP260", True, "Ollama 0.20.0 at 32768 on an RTX 5090", "rtx-5090", view=ollama("0.20.0", 32768)),
    shown("LCPP260", False, "Ollama 0.15.4: no VRAM tiers and no such line", "rtx-pro-6000", view=ollama("0.15.4")),
    shown("LCPP260", False, "Ollama 0.30.0 runs llama-server and prints no such line", "rtx-pro-6000",
          view=ollama("0.30.0")),
    shown("LCPP260", False, "the 4096 tier (below 23 GiB)", "rtx-5060-ti-16gb", view=ollama("0.15.5", 4096)),
    shown("LCPP260", False, "OLLAMA_CONTEXT_LENGTH set", "rtx-pro-6000",
          view=ollama("0.15.5", 262144, "OLLAMA_CONTEXT_LENGTH")),
    shown("LCPP260", False, "Hopper", "h100-sxm-x8", view=ollama("0.15.5")),
    shown("LCPP260", False, "the release unknown: no view", "rtx-pro-6000"),
    shown("LCPP260", False, "check: no log", "rtx-pro-6000", signatures=()),
]
