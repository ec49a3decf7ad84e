"""The environment variables `check` records: the engines' own prefixes, and the few others that change what
runs (torch's allocator config, preloaded interposers, llama.cpp's CUDA-graph switch)."""

from __future__ import annotations

from doctor.probe.env import probe_env


def test_allocator_preload_and_graph_switches_are_recorded():
    env = probe_env({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                     "PYTORCH_ALLOC_CONF": "max_split_size_mb:64",
                     "LD_PRELOAD": "/usr/local/vgpu/libvgpu.so", "GGML_CUDA_DISABLE_GRAPHS": "1", "HOME": "/root",
                     "PATH": "/usr/bin"})
    assert env == {"GGML_CUDA_DISABLE_GRAPHS": "1", "LD_PRELOAD": "/usr/local/vgpu/libvgpu.so",
                   "PYTORCH_ALLOC_CONF": "max_split_size_mb:64", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}


def test_max_jobs_is_recorded():
    """FlashInfer's JIT passes ninja -j MAX_JOBS: FI250 and FI251 weigh it, so the probe must carry it."""
    assert probe_env({"MAX_JOBS": "4", "MAKEFLAGS": "-j8"}) == {"MAX_JOBS": "4"}
