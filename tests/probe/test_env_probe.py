"""The environment variables `check` records: the engines' own prefixes, and the few others that change what
runs (torch's allocator config, preloaded interposers, llama.cpp's CUDA-graph switch)."""

from __future__ import annotations

import re
from pathlib import Path

from doctor.buildargs import ARCH_VARIABLES
from doctor.probe.env import probe_env

RULES = Path(__file__).resolve().parents[2] / "rules"
ENV_FACT = re.compile(r"\benv\.([A-Z][A-Za-z0-9_]*)")


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


def _env_facts_rules_read() -> set[str]:
    """Every `env.NAME` a rule of rules/*.toml reads in a condition, a message or its evidence."""
    names: set[str] = set()
    for path in RULES.glob("*.toml"):
        names |= set(ENV_FACT.findall(path.read_text(encoding="utf-8")))
    return names


def test_every_variable_a_rule_reads_is_recorded():
    """A rule that reads a variable the probe drops never sees it on a live machine: one whose condition is
    `exists = false` (UMA's RAY_memory_monitor_refresh_ms, TLLM_USE_FLASHINFER_GDN_PREFILL) keeps firing after the
    user applied its fix, and one that needs it set (FLA_USE_TMA, GLOO_SOCKET_IFNAME) never fires."""
    read = _env_facts_rules_read()
    assert len(read) > 20
    dropped = sorted(name for name in read if name not in probe_env({name: "1"}))
    assert not dropped, f"rules read variables the probe does not record: {dropped}"


def test_every_build_arch_list_is_recorded():
    """`build.lists` (doctor/buildargs.py) parses each arch-list variable that is set: CMake's too."""
    assert set(probe_env(dict.fromkeys(ARCH_VARIABLES, "120a"))) == set(ARCH_VARIABLES)


def test_the_ray_prefix_still_redacts_secrets():
    env = probe_env({"RAY_memory_monitor_refresh_ms": "0", "RAY_AUTH_TOKEN": "abc", "RAYON_NUM_THREADS": "4"})
    assert env == {"RAY_memory_monitor_refresh_ms": "0", "RAY_AUTH_TOKEN": "<redacted>"}
