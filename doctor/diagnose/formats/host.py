"""The host a log shows: a WSL2 kernel (`6.6.87.2-microsoft-standard-WSL2` in uname, collect_env's platform line,
a `/proc/version` paste) or vLLM's own `Using 'pin_memory=False' as WSL is detected` warning. Under WSL2 the GPU
is reached through the Windows driver, which changes what pinned memory and CUDA graphs can do."""

from __future__ import annotations

from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "host"


def _wsl(_m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.set_once("wsl", True, line)


RULES = (
    LineRule(FMT, r"(?i)microsoft-standard-WSL2", _wsl),
    LineRule(FMT, r"pin_memory=False' as WSL is detected", _wsl),
)
