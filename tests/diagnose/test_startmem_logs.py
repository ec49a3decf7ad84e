"""OOM040 in `diagnose`: a CUDA-graph capture OOM in a vLLM log is explained by the release's unreserved graph pool
where the release is stated and did not reserve it, and by OOM006 (capture sizes, utilization) where it did or the
release is not stated."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named
from tests.diagnose.test_oom_lines import frame, torch_oom

CAPTURE = ("Traceback (most recent call last):\n"
           + frame("compile_or_warm_up_model", "vllm/v1/worker/gpu_worker.py") + frame("capture_model")
           + frame("_dummy_run")
           + torch_oom("1.10 GiB", "31.37 GiB", "612.00 MiB", "30.41 GiB", "29.70 GiB", "120.00 MiB"))


def test_a_release_without_the_reserve_names_the_switch():
    diagnosis = diagnose_text(CAPTURE, profile_base("rtx-5090", "vllm==0.19.0"))
    assert rules_named(diagnosis)[0] == "OOM040"
    assert any("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1" in t for t in fix_texts(diagnosis))


def test_a_release_that_reserves_it_keeps_the_capture_sizes():
    assert rules_named(diagnose_text(CAPTURE, profile_base("rtx-5090", "vllm==0.20.0")))[0] == "OOM006"


def test_no_release_stated_keeps_the_generic_explanation_first():
    assert rules_named(diagnose_text(CAPTURE, profile_base("rtx-5090")))[0] == "OOM006"


def _worker(text: str) -> str:
    return f"(EngineCore pid=111) INFO 06-07 08:56:40 [gpu_worker.py:451] {text}\n"


def test_the_workers_own_line_states_the_switch():
    """0.20.0 reserves the pool by default; its warning that profiling is disabled (=0) makes the log OOM040's. On
    0.19.0 the line that says profiling is enabled (=1) leaves it to OOM006."""
    off = ("INFO 06-07 08:55:00 [api_server.py:1] vLLM API server version 0.20.0\n" + _worker(
        "CUDA graph memory profiling is disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA "
        "graph memory is not accounted for during KV cache allocation, which may require lowering "
        "--gpu-memory-utilization to avoid OOM.") + CAPTURE)
    assert rules_named(diagnose_text(off, profile_base("rtx-5090")))[0] == "OOM040"
    on = ("INFO 06-07 08:55:00 [api_server.py:1] vLLM API server version 0.19.0\n" + _worker(
        "CUDA graph memory profiling is enabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1). This will become the "
        "default in v0.19.") + CAPTURE)
    assert rules_named(diagnose_text(on, profile_base("rtx-5090")))[0] == "OOM006"
