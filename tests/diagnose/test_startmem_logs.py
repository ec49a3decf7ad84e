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
