"""Out-of-memory lines read by their numbers (doctor/diagnose/oom.py, rules/oom.toml): the arithmetic picks the
cause, the traceback's frames the phase, and every error stays silent just outside its boundary (another GPU than
GB10, memory outside the process just under the floor, reserved-unallocated just under the request, WSL2)."""

from __future__ import annotations

import pytest

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

# torch 2.x's message as printed (the task's GB10 figures; the wording of vllm-backport#24 and Wan2.1#465)
GB10_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "119.70 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 60.10 GiB memory in "
            "use. Of the allocated memory 58.00 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.\n")


def torch_oom(request: str, total: str, free: str, own: str, allocated: str, unallocated: str) -> str:
    return (f"(VllmWorker rank=0 pid=10672) ERROR 03-16 06:12:38 [multiproc_executor.py:375] torch.OutOfMemoryError: "
            f"CUDA out of memory. Tried to allocate {request}. GPU 0 has a total capacity of {total} of which {free} "
            f"is free. Including non-PyTorch memory, this process has {own} memory in use. Of the allocated memory "
            f"{allocated} is allocated by PyTorch, and {unallocated} is reserved by PyTorch but unallocated. If "
            "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            "to avoid fragmentation.\n")


def frame(name: str, path: str = "vllm/v1/worker/gpu_model_runner.py") -> str:
    return (f'(VllmWorker rank=0 pid=10672) ERROR 03-16 06:12:38 [multiproc_executor.py:375]   File '
            f'"/usr/local/lib/python3.12/dist-packages/{path}", line 2210, in {name}\n')


def top(log: str, profile: str | None = None, *engines: str) -> str:
    base = profile_base(profile, *engines) if profile else None
    named = rules_named(diagnose_text(log, base))
    return named[0] if named else ""


def test_gb10_pool_held_outside_is_the_host():
    diagnosis = diagnose_text(GB10_OOM, profile_base("dgx-spark", "vllm==0.20.0"))
    assert rules_named(diagnosis)[0] == "OOM002"
    assert "58.4 GiB is held outside" in diagnosis.explanations[0].message
    assert any("drop_caches" in text for text in fix_texts(diagnosis))


@pytest.mark.parametrize("profile", ["h100-sxm-x8", "b200-x8", "rtx-pro-6000"])
def test_gb10_cause_is_not_claimed_on_other_gpus(profile):
    named = rules_named(diagnose_text(GB10_OOM, profile_base(profile)))
    assert "OOM002" not in named and named[0] == "OOM001"


def test_gb10_total_alone_names_the_pool():
    assert top(GB10_OOM) == "OOM002"
    assert top(GB10_OOM.replace("119.70 GiB", "79.25 GiB")) == "OOM001"


def test_outside_memory_below_the_floor_is_the_process_own():
    # 0.90 GiB outside (31.37 - 0.20 - 30.27), over the 0.30 GiB shortfall but under 1 GiB: a CUDA context's order
    log = torch_oom("512.00 MiB", "31.37 GiB", "204.80 MiB", "30.27 GiB", "29.90 GiB", "19.41 MiB")
    assert top(log) == "OOM008"
    above = torch_oom("512.00 MiB", "31.37 GiB", "204.80 MiB", "30.07 GiB", "29.90 GiB", "19.41 MiB")
    assert top(above) == "OOM001"


def test_fragmentation_needs_the_request_reserved():
    log = torch_oom("2.96 GiB", "79.25 GiB", "1.16 GiB", "78.08 GiB", "68.35 GiB", "2.95 GiB")
    assert top(log) == "OOM008"
    assert top(log.replace("and 2.95 GiB is reserved", "and 2.96 GiB is reserved")) == "OOM009"


def test_zero_bytes_process_use_is_not_trusted():
    log = torch_oom("1.88 GiB", "21.96 GiB", "1.29 GiB", "0 bytes", "19.02 GiB", "1.32 GiB")
    assert top(log) == "OOM010"


@pytest.mark.parametrize(("frames", "rule", "fix"), [
    ([frame("load_model", "vllm/v1/worker/gpu_worker.py"),
      frame("load_weights", "vllm/model_executor/models/qwen3.py")],
     "OOM003", "--cpu-offload-gb"),
    ([frame("determine_available_memory", "vllm/v1/worker/gpu_worker.py"), frame("profile_run"), frame("_dummy_run")],
     "OOM004", "--max-num-batched-tokens"),
    ([frame("initialize_from_config", "vllm/v1/worker/gpu_worker.py"), frame("initialize_kv_cache")],
     "OOM005", "--kv-cache-memory-bytes"),
    ([frame("compile_or_warm_up_model", "vllm/v1/worker/gpu_worker.py"), frame("capture_model"), frame("_dummy_run")],
     "OOM006", "--max-cudagraph-capture-size"),
    ([frame("compile_or_warm_up_model", "vllm/v1/worker/gpu_worker.py"), frame("_dummy_sampler_run")],
     "OOM007", "--max-num-seqs 64"),
    ([frame("init_device_graphs", "sglang/srt/model_executor/model_runner.py"),
      frame("capture", "sglang/srt/model_executor/cuda_graph_runner.py")], "OOM006", "--cuda-graph-max-bs"),
])
def test_phase_from_the_frames_decides_the_fix(frames, rule, fix):
    log = "Traceback (most recent call last):\n" + "".join(frames) + torch_oom(
        "1.74 GiB", "15.48 GiB", "953.94 MiB", "14.53 GiB", "12.19 GiB", "368.65 MiB")
    diagnosis = diagnose_text(log, profile_base("rtx-5080"))
    assert rules_named(diagnosis)[0] == rule
    assert any(fix in text for text in fix_texts(diagnosis))


def test_request_larger_than_the_gpu():
    log = torch_oom("125537.24 GiB", "23.64 GiB", "8.26 GiB", "14.56 GiB", "13.86 GiB", "213.20 MiB")
    assert top(log) == "OOM015"
    assert top(log.replace("125537.24 GiB", "8.30 GiB")) == "OOM008"


VLLM_KV = ("ValueError: To serve at least one request with the model's max seq len (180000), (3.05 GiB KV cache is "
           "needed, which is larger than the available KV cache memory (2.17 GiB). Based on the available memory, the "
           "estimated maximum model length is 111456. Try increasing `gpu_memory_utilization` or decreasing "
           "`max_model_len` when initializing the engine.\n")


def test_vllm_kv_names_the_length_and_the_share():
    diagnosis = diagnose_text(VLLM_KV, profile_base("rtx-5090", "vllm==0.20.0"))
    assert rules_named(diagnosis)[0] == "OOM011"
    texts = fix_texts(diagnosis)
    assert any("--max-model-len 111456" in t for t in texts)
    assert any("raise --gpu-memory-utilization by 0.03" in t for t in texts)


def test_vllm_kv_without_an_estimate_is_the_share():
    line = VLLM_KV.replace("Based on the available memory, the estimated maximum model length is 111456. ", "")
    assert top(line) == "OOM012"


STARTUP = ("(EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:0 (67.92/121.69 GiB) on startup is less "
           "than desired GPU memory utilization (0.7, 85.18 GiB). Decrease GPU memory utilization or reduce GPU memory "
           "used by other processes.\n")


def test_startup_free_memory_on_gb10():
    named = rules_named(diagnose_text("NVIDIA GB10 detected\n" + STARTUP, profile_base("dgx-spark", "vllm==0.20.0")))
    assert "OOM014" in named and "OOM013" not in named
    diagnosis = diagnose_text(STARTUP, profile_base("dgx-spark", "vllm==0.20.0"))
    oom = next(e for e in diagnosis.explanations if e.rule == "OOM014")
    assert "--gpu-memory-utilization 0.55" in " ".join(f.summary for f in oom.fixes)


@pytest.mark.parametrize("profile", ["b200-x8", "h100-sxm-x8", "rtx-pro-6000"])
def test_startup_free_memory_elsewhere_is_not_gb10(profile):
    named = rules_named(diagnose_text(STARTUP.replace("121.69", "178.36"), profile_base(profile, "vllm==0.20.0")))
    assert "OOM013" in named and "OOM014" not in named


def test_startup_under_wsl_names_the_share_that_fits():
    log = "Linux 6.6.87.2-microsoft-standard-WSL2\n" + STARTUP.replace("121.69", "31.84").replace("67.92", "30.12")
    diagnosis = diagnose_text(log, profile_base("rtx-5090", "vllm==0.20.0"))
    oom = next(e for e in diagnosis.explanations if e.rule == "OOM013")
    assert "--gpu-memory-utilization 0.94" in " ".join(f.summary for f in oom.fixes)


LLAMA = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4480.00 MiB on device 3: cudaMalloc failed: out of "
         "memory\n")


@pytest.mark.parametrize(("follow", "rule"), [
    ("llama_model_load: error loading model: unable to allocate CUDA3 buffer\n", "OOM020"),
    ("llama_kv_cache_init: failed to allocate buffer for kv cache\n", "OOM021"),
    ("ggml_gallocr_reserve_n: failed to allocate CUDA3 buffer of size 4697620480\n", "OOM022"),
])
def test_llama_cpp_buffer_by_what_it_was_for(follow, rule):
    assert top(LLAMA + follow) == rule


def test_llama_cpp_retry_without_pipeline_parallelism_is_not_a_failure():
    log = (LLAMA + "ggml_gallocr_reserve_n_impl: failed to allocate CUDA3 buffer of size 4697620480\n"
           "sched_reserve: compute buffer allocation failed, retrying without pipeline parallelism\n")
    assert "OOM022" not in rules_named(diagnose_text(log))


def test_engine_phase_lines_without_frames():
    """vLLM 0.20+ wraps a loader OOM as 'Failed to load model - not enough GPU memory ... (original error: ...)';
    SGLang re-raises a capture OOM as 'Capture cuda graph failed: ...' (cuda_graph_runner.py)."""
    oom_line = torch_oom("1.74 GiB", "15.48 GiB", "953.94 MiB", "14.53 GiB", "12.19 GiB", "368.65 MiB")
    torch_text = oom_line.split("torch.OutOfMemoryError: ")[1]
    loader = ("ERROR 05-20 10:00:01 [gpu_model_runner.py:2603] Failed to load model - not enough GPU memory. Try "
              "lowering --gpu-memory-utilization to free memory for weights, increasing --tensor-parallel-size, or "
              f"using --quantization. (original error: {torch_text}")
    assert top(loader, "rtx-5080") == "OOM003"
    capture = f"[2026-01-10 10:00:09 TP0] Exception: Capture cuda graph failed: {torch_text}"
    assert top(capture, "rtx-5080") == "OOM006"
