"""Cases for rules/lmstudio.toml (task lmstudio). LMS001 explains LM Studio's load dialog: it reads
`log.signatures` (only `diagnose` fills it), so it fires with its signature shown on SM12x GPUs in llama.cpp's run,
and stays silent in `check` (no log), with another rule's line, and on Hopper 9.0 / datacenter Blackwell 10.0."""

from __future__ import annotations

from tests.rules.builders import lib
from tests.rules.log_line_cases import logged

LLAMA_CPP = (lib("llama.cpp", "9000"), lib("lmstudio", "2.27.1"))

LMSTUDIO_CASES = [
    *(logged("LMS001", True, f"the exit-code dialog on {profile}", profile, libs=LLAMA_CPP)
      for profile in ("rtx-5090", "dgx-spark", "rtx-pro-6000", "rtx-5060-ti-16gb")),
    *(logged("LMS001", False, f"the exit-code dialog on {profile}: not an SM12x GPU", profile, libs=LLAMA_CPP)
      for profile in ("h100-sxm-x8", "b200-x8")),
    logged("LMS001", False, "check: no log", "rtx-5090", shown=(), libs=LLAMA_CPP),
    logged("LMS001", False, "another rule's line", "rtx-5090", shown=("LCPP042",), libs=LLAMA_CPP),
]
