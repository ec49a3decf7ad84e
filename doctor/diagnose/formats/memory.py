"""Which startup phase a traceback (or the engine's own lines) shows: weight loading, the profile run, the KV-cache
allocation, CUDA-graph capture, the sampler warm-up; for llama.cpp, which buffer failed. An out-of-memory line's fix
depends on it (doctor/diagnose/oom.py: the innermost phase wins). Frames are the serving engines' own worker and
model-runner functions (rules/oom.toml cites the files they come from)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FRAME = r"line \d+, in "


def _phase(name: str) -> Callable[[Any, int, LogFacts], None]:
    def handle(_m: Any, line: int, facts: LogFacts) -> None:
        facts.memory_phases.setdefault(name, line)

    return handle


MAX_PARTS = 8  # the sentences of one message; a log that prints more is not a wrapped message


def _part(m: Any, _line: int, facts: LogFacts) -> None:
    if len(facts.oom_parts) < MAX_PARTS:
        facts.oom_parts.append(m.string.strip()[:400])


RULES = (
    LineRule("memory", FRAME + r"_dummy_sampler_run\b|CUDA out of memory occurred when warming up sampler",
             _phase("sampler")),
    LineRule("memory", FRAME + r"(?:capture_model|_capture_cudagraphs|capture_one_batch_size|init_device_graphs"
                       r"|_capture_graphs|capture)\b|cuda_graph_runner\.py"
                       r"|Capture cuda graph failed: CUDA out of memory",
             _phase("cuda_graph")),
    LineRule("memory", FRAME + r"(?:profile_run|determine_available_memory|determine_num_available_blocks"
                       r"|_dummy_run)\b", _phase("profile")),
    LineRule("memory", FRAME + r"(?:initialize_kv_cache|_allocate_kv_cache_tensors|_allocate_kv_cache"
                       r"|init_memory_pool|_init_cache_engine|initialize_from_config)\b", _phase("kv_cache")),
    LineRule("memory", FRAME + r"(?:load_model|load_weights|weight_loader|process_weights_after_loading"
                       r"|initialize_model)\b|Failed to load model - not enough GPU memory", _phase("weights")),
    # llama.cpp: what the failed buffer was for (src/llama-model.cpp, llama-context.cpp, ggml-alloc.c)
    LineRule("memory", r"unable to allocate CUDA\d+ buffer|error loading model: unable to allocate",
             _phase("llama_weights")),
    LineRule("memory", r"failed to allocate buffer for kv cache|llama_kv_cache_init: failed", _phase("llama_kv")),
    LineRule("memory", r"ggml_gallocr_reserve_n(?:_impl)?: failed to allocate|failed to allocate compute buffers",
             _phase("llama_compute")),
    # torch's OOM message as a report re-wraps it, one sentence a line (pytorch#182286): read back as one line
    LineRule("memory", r"^\W{0,4}(?:Tried to allocate [\d.]+ ?(?:bytes|[KMGT]iB)\.|GPU \d+ has a total "
                       r"capac(?:i)?ty of |Including non-PyTorch memory, this process has |Of the allocated memory "
                       r"|and [\d.]+ ?(?:bytes|[KMGT]iB) is reserved by PyTorch but unallocated)", _part, once=False),
)
