"""The host a log shows: a WSL2 kernel (`6.6.87.2-microsoft-standard-WSL2` in uname, collect_env's platform line,
a `/proc/version` paste) or vLLM's own `Using 'pin_memory=False' as WSL is detected` warning. Under WSL2 the GPU
is reached through the Windows driver, which changes what pinned memory and CUDA graphs can do. Native Windows:
a drive-letter path to a program's files (`C:\\Users\\...`, Ollama's build path `C:\\a\\ollama\\...`), a `.dll` CUDA
backend, or a Windows exception status (`exit status 0xc0000409`)."""

from __future__ import annotations

from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "host"


def _wsl(_m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.set_once("wsl", True, line)


def _windows(_m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.set_once("host_os", "Windows", line)


RULES = (
    LineRule(FMT, r"(?i)microsoft-standard-WSL2", _wsl),
    LineRule(FMT, r"pin_memory=False' as WSL is detected", _wsl),
    LineRule(FMT, r"\b[A-Z]:\\{1,2}(?:Users|Program Files|a\\{1,2}ollama|ProgramData)\\|\\ggml-cuda\.dll\b"
                  r"|exit status 0xc0000(?:005|0fd|409)\b", _windows),
)
