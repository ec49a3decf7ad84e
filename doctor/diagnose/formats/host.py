"""The host a log shows: a WSL2 kernel (`6.6.87.2-microsoft-standard-WSL2` in uname, collect_env's platform line,
a `/proc/version` paste) or vLLM's own `Using 'pin_memory=False' as WSL is detected` warning. Under WSL2 the GPU
is reached through the Windows driver, which changes what pinned memory and CUDA graphs can do. A native Windows
run shows itself by a drive-letter path (`C:\\Users\\...`, Ollama's build path `C:\\a\\ollama\\...`,
`D:\\a\\llama.cpp\\...` in a CUDA error's file), a `.exe`/`.dll`/`.pyd` module, a win_amd64 wheel or a Windows
exception status (`exit status 0xc0000409`); rules gated on the host OS (llama.cpp's and Ollama's Windows-only
failures) then read Windows, whatever a `--hardware` profile assumes."""

from __future__ import annotations

import re
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


def _os(m: Any, line: int, facts: LogFacts) -> None:
    """An OS line: collect_env's `OS : Ubuntu 24.04.3 LTS (aarch64)`, an issue form's `OS: Windows` / `WSL2` /
    `Docker`, llama.cpp's `Operating systems: Linux`, TensorRT-LLM's `CPU architecture (...): aarch64`."""
    value = m.group("os").strip()
    facts.saw(FMT, line)
    lower = value.lower()
    if "wsl" in lower:
        facts.set_once("wsl", True, line)
    elif re.match(r"(?:microsoft )?windows\b", lower):
        facts.set_once("host_os", "Windows", line)
    if "docker" in lower:
        facts.set_once("container", True, line)
    arch = re.search(r"\b(x86_64|aarch64|arm64|amd64)\b", lower)
    if arch:
        facts.set_once("host_arch", {"arm64": "aarch64", "amd64": "x86_64"}.get(arch.group(1), arch.group(1)), line)


RULES = (
    # TensorRT-LLM's form: `- OS (Ubuntu 24.04, CentOS 8): Ubuntu 24.04`, `- CPU architecture (e.g., x86_64, aarch64):
    # aarch64` (an unfilled line has no colon and no answer)
    LineRule(FMT, r"(?i)^[\s*+-]*(?:OS|Operating systems?|CPU architecture)(?: \([^)]{0,80}\))?\s*[:=]\s*"
                  r"(?P<os>\S.{0,120})", _os, once=False),
    LineRule(FMT, r"(?i)microsoft-standard-WSL2", _wsl),
    LineRule(FMT, r"pin_memory=False' as WSL is detected", _wsl),
    LineRule(FMT, r"\b[A-Z]:\\{1,2}(?:Users|Program Files|a\\{1,2}ollama|ProgramData)\\|\\ggml-cuda\.dll\b"
                  r"|exit status 0xc0000(?:005|0fd|409)\b", _windows),
    LineRule(FMT, r"(?:^|[\s\"'(=])[A-Za-z]:\\(?:[\w .()+-]+\\)+[\w .()+-]*", _windows),
    LineRule(FMT, r"(?i)\b[\w.-]+\.(?:exe|dll|pyd)\b(?:!|\s|$|[\"',:)])", _windows),
    LineRule(FMT, r"(?i)\bwin_amd64\b|\bwin-cuda-\d", _windows),
)
