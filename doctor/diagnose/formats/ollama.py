"""Ollama server logs (logfmt): `msg="inference compute" ... compute=12.0 driver=12.8 name="..."`, the version
in `Listening on ... (version X)`, `source=file.go:N`. Its runner prints llama.cpp lines too (llama_cpp.py)."""

from __future__ import annotations

import re
from typing import Any

from doctor.diagnose.formats.base import VERSION, LineRule, hint, version_of
from doctor.diagnose.logfacts import LogFacts

FMT = "ollama"


def _compute(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("ollama", line)
    fields = {k: v.strip('"') for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', m.group(0))}
    if fields.get("library", "").lower() == "cpu":  # no GPU found: the CPU's own line (discover/types.go)
        return
    name = fields.get("name", "")
    if not name or re.fullmatch(r"(?:CUDA|ROCm|Vulkan)\d+", name):  # from 0.12.4 name is the backend's device
        name = fields.get("description", name)
    total = re.match(r'([\d.]+) GiB', fields.get("total", ""))
    compute = fields.get("compute") if re.fullmatch(r"\d+\.\d+", fields.get("compute", "")) else None
    index = len(facts.gpus)
    if name:
        facts.gpu(index, name, compute, int(float(total.group(1)) * 1024) if total else None, line)
    if fields.get("driver"):
        facts.set_once("cuda_driver", fields["driver"], line)


def _cuda_init_failure(m: Any, line: int, facts: LogFacts) -> None:
    """Ollama's GPU discovery could not initialise the CUDA driver: the CUresult cuInit returned."""
    facts.saw(FMT, line)
    facts.hint_engine("ollama", line)
    facts.detail("ollama", "cuda_init_error", m.group("code"), line)


def _default_context(m: Any, line: int, facts: LogFacts) -> None:
    """`msg="vram-based default context" total_vram="15.9 GiB" default_num_ctx=4096` (server/routes.go `Serve`,
    0.15.5 on): the context Ollama gives a request that sets no num_ctx, and the VRAM sum it read."""
    facts.saw(FMT, line)
    facts.hint_engine("ollama", line)
    facts.detail("ollama", "logged_default_num_ctx", int(m.group("ctx")), line)
    facts.detail("ollama", "logged_total_vram_gib", float(m.group("gib")), line)


def _server_config(m: Any, line: int, facts: LogFacts) -> None:
    """`msg="server config" env="map[OLLAMA_FLASH_ATTENTION:false OLLAMA_KV_CACHE_TYPE:q8_0 ...]"`: the Ollama
    settings the server runs with, as environment facts (empty ones are unset and left out)."""
    from doctor.diagnose.logfacts import Stated

    facts.saw(FMT, line)
    facts.hint_engine("ollama", line)
    for name, value in re.findall(r"\b((?:OLLAMA|GGML|CUDA)_\w+):([^\s\]]*)", m.group("map")):
        if value and name not in facts.env:
            facts.env[name] = Stated(value, line)


RULES = (
    LineRule(FMT, r'msg="server config" env="map\[(?P<map>[^"]*)', _server_config),
    LineRule(FMT, r'msg="inference compute".*', _compute, once=False),
    LineRule(FMT, r'msg="vram-based default context" total_vram="(?P<gib>[\d.]+) GiB" default_num_ctx=(?P<ctx>\d+)',
             _default_context),
    LineRule(FMT, r"\(version " + VERSION + r"\)", version_of("ollama", FMT, "ollama")),
    # the issue form's answer (`### Ollama version` / `0.12.11`, read as one line by doctor/diagnose/markdown.py),
    # `- **Ollama Version**: 0.13.1`, and `ollama -v`'s `ollama version is 0.12.3`
    LineRule(FMT, r"(?i)\bOllama(?: version)?(?:\s*[:=]\s*|\s+is\s+)v?" + VERSION, version_of("ollama", FMT, "ollama")),
    LineRule(FMT, r"cuda driver library init failure: (?P<code>\d+)", _cuda_init_failure),
    LineRule(FMT, r"level=\w+ source=[\w./-]+\.go:\d+", hint(FMT, "ollama")),
)
