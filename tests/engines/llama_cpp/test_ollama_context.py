"""Ollama's default context (server/routes.go `Serve` and `modelOptions`, llm/server.go's cap at the trained
context, llm/llama_server.go's `-c num_ctx x parallel`), as doctor/engines/llama_cpp/bundles.py computes it."""

from __future__ import annotations

import io

import pytest

from doctor.engines.llama_cpp.bundles import ollama_context, ollama_server_flags

GiB = 1 << 30


@pytest.mark.parametrize(("totals", "expected"), [
    ([int(15.9 * GiB)], 4096),
    ([int(22.99 * GiB)], 4096),
    ([23 * GiB], 32768),            # 23 GiB, not 24: the source's "slightly lower thresholds"
    ([int(31.8 * GiB)], 32768),
    ([int(46.99 * GiB)], 32768),
    ([47 * GiB], 262144),
    ([int(15.9 * GiB)] * 2, 32768),  # summed over GPUs
    ([int(31.8 * GiB)] * 2, 262144),
    ([int(95.6 * GiB)], 262144),
])
def test_vram_tiers_from_0_15_5(totals, expected):
    context = ollama_context("0.15.5", {}, totals)
    assert (context.num_ctx, context.source) == (expected, "vram-tier")


def test_gpu_overhead_comes_off_every_gpu():
    two = {"OLLAMA_GPU_OVERHEAD": str(2 * GiB)}
    assert ollama_context("0.32.15", two, [24 * GiB]).num_ctx == 4096          # 22 GiB
    assert ollama_context("0.32.15", two, [24 * GiB] * 2).num_ctx == 32768     # 44 GiB
    assert ollama_context("0.32.15", {"OLLAMA_GPU_OVERHEAD": str(GiB)}, [24 * GiB] * 2).num_ctx == 32768  # 46
    assert ollama_context("0.32.15", {"OLLAMA_GPU_OVERHEAD": str(GiB)}, [25 * GiB] * 2).num_ctx == 262144  # 48
    assert ollama_context("0.32.15", {"OLLAMA_GPU_OVERHEAD": "junk"}, [24 * GiB]).num_ctx == 32768


@pytest.mark.parametrize(("version", "expected"), [("0.6.0", 2048), ("0.6.6", 2048), ("0.6.7", 4096),
                                                   ("0.15.4", 4096), ("v0.15.4", 4096)])
def test_fixed_defaults_before_the_tiers(version, expected):
    context = ollama_context(version, {}, [96 * GiB])
    assert (context.num_ctx, context.source) == (expected, "fixed default")


def test_the_environment_wins_and_zero_means_automatic():
    assert ollama_context("0.32.15", {"OLLAMA_CONTEXT_LENGTH": "8192"}, [96 * GiB]).source == "OLLAMA_CONTEXT_LENGTH"
    assert ollama_context("0.32.15", {"OLLAMA_CONTEXT_LENGTH": "0"}, [96 * GiB]).num_ctx == 262144


def test_capped_at_the_trained_context_and_multiplied_by_the_slots():
    context = ollama_context("0.32.15", {"OLLAMA_NUM_PARALLEL": "2"}, [96 * GiB], n_ctx_train=131072)
    assert (context.num_ctx, context.effective, context.parallel) == (262144, 131072, 2)
    assert context.view()["llama_server_ctx"] == 262144 and context.view()["capped_by_model"] is True
    flags = ollama_server_flags({"OLLAMA_NUM_PARALLEL": "2"}, "0.32.15", [96 * GiB], 131072)
    assert flags[:4] == ["-c", "262144", "-np", "2"]


def test_flags_without_the_gpus_keep_the_environment_only():
    assert ollama_server_flags({}, "0.32.15", []) == ["--flash-attn", "auto"]
    assert ollama_server_flags({}, "0.32.15", [int(31.8 * GiB)])[:4] == ["-c", "32768", "-np", "1"]


def test_a_truncation_in_an_ollama_log_is_explained_by_the_tier():
    """An Ollama 0.32.15 server log on a 16 GB RTX 5060 Ti, in the line formats llm/llama_server.go,
    server/routes.go and discover/types.go print: the truncation warning is OLL080's, confirmed by the deployment."""
    from doctor.diagnose.diagnosis import diagnose
    from tests.diagnose.corpus import empty_base

    log = (b'time=2026-09-02T10:11:02.117Z level=INFO source=routes.go:1598 msg="server config" env="map['
           b'OLLAMA_CONTEXT_LENGTH:0 OLLAMA_FLASH_ATTENTION:false OLLAMA_NUM_PARALLEL:1]"\n'
           b'time=2026-09-02T10:11:02.120Z level=INFO source=routes.go:1651 msg="Listening on [::]:11434 '
           b'(version 0.32.15)"\n'
           b'time=2026-09-02T10:11:02.401Z level=INFO source=types.go:42 msg="inference compute" id=GPU-5f1b '
           b'library=CUDA compute=12.0 name=CUDA0 description="NVIDIA GeForce RTX 5060 Ti" driver=13.0 '
           b'type=discrete total="15.9 GiB" available="15.2 GiB"\n'
           b'time=2026-09-02T10:11:02.401Z level=INFO source=routes.go:2058 msg="vram-based default context" '
           b'total_vram="15.9 GiB" default_num_ctx=4096\n'
           b'time=2026-09-02T10:12:40.905Z level=WARN source=llama_server.go:317 msg="truncating input prompt" '
           b'limit=4096 prompt=11483 keep=4 new=4096\n')
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "nothing", {})
    assert diagnosis.explanations and diagnosis.explanations[0].rule == "OLL080"
    assert diagnosis.explanations[0].status == "confirmed"


def test_the_logged_default_context_confirms_it_without_the_gpu_lines():
    """Ollama 0.20.0 (its own runners: no llama-server plan) with only its version, the tier line and the
    truncation: the tier the server logged settles the cause; a 32768 tier line does not."""
    from doctor.diagnose.diagnosis import diagnose
    from tests.diagnose.corpus import empty_base

    def log(ctx: int) -> bytes:
        return (b'time=2026-04-02T10:11:02.120Z level=INFO source=routes.go:1651 msg="Listening on 127.0.0.1:11434 '
                b'(version 0.20.0)"\n'
                b'time=2026-04-02T10:11:02.401Z level=INFO source=routes.go:1842 msg="vram-based default context" '
                b'total_vram="%s GiB" default_num_ctx=%d\n'
                b'time=2026-04-02T10:12:40.905Z level=WARN source=runner.go:186 msg="truncating input prompt" '
                b'limit=4096 prompt=9383 keep=4 new=4096\n') % (b"11.9" if ctx == 4096 else b"31.8", ctx)

    small = diagnose(io.BufferedReader(io.BytesIO(log(4096))), "t", empty_base(), "nothing", {})
    assert small.explanations[0].rule == "OLL080" and small.explanations[0].status == "confirmed"
    large = diagnose(io.BufferedReader(io.BytesIO(log(32768))), "t", empty_base(), "nothing", {})
    assert all(e.status != "confirmed" for e in large.explanations if e.rule == "OLL080")
