"""The context Ollama gave the load that failed, for LCPP260: its signature captures Ollama's own load-failure text
(`log_ollama_load`, printed by Ollama 0.15.5-0.29.x when the /load request to its runner fails), and
`log.ollama_load` says, from the Ollama release and the GPUs the user or the log states, the num_ctx a request that
sets none got (server/routes.go's VRAM tiers, doctor/engines/llama_cpp/bundles.py) and where it came from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doctor.diagnose.read import first_captures
from doctor.engines.llama_cpp.bundles import GiB, ollama_context
from doctor.pipeline.facts import Facts

GROUP = "log_ollama_load"


def ollama_load_view(hits: Sequence[Any], facts: Facts) -> dict[str, Any]:
    """`log.ollama_load` ({} without the line, the Ollama release or the GPUs' memory)."""
    if GROUP not in first_captures(hits, {GROUP: GROUP}):
        return {}
    library = facts.libraries.get("ollama")
    totals = [g.memory_total_bytes for g in facts.gpus if g.memory_total_bytes]
    if library is None or not library.version or not totals:
        return {}
    context = ollama_context(library.version, facts.env, totals)
    return {"ollama_load": {"release": library.version, "num_ctx": context.num_ctx, "source": context.source,
                            "total_vram_gib": round(context.total_vram / GiB, 1)}}
