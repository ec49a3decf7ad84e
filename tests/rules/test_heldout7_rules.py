"""Boundary cases of rules/heldout7.toml (the seventh held-out sample's classes): each positive next to a
deployment just outside the rule's scope (the other SM12x part, one release outside, the engine setting that
avoids the failure, one node instead of several), run through `check` and `diagnose` as a user would."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from doctor.cli import main

NEMOTRON_H = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
LMCACHE = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'


def _json(args: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    assert code in (0, 1), code
    return json.loads(out.getvalue())


def fired(model: str | None, hardware: str, engine: str, *flags: str, nodes: int = 1, tp: int = 1) -> set[str]:
    args = ["check", *([model] if model else []), "--offline", "--hardware", hardware, "--engine", engine,
            "--format", "json"]
    if nodes > 1:
        args += ["--nodes", str(nodes)]
    if tp > 1:
        args += ["--tp", str(tp)]
    report = _json([*args, "--", *flags] if flags else args)
    return {f["id"] for f in report["findings"]}


def named(log: str, tmp_path, hardware: str | None = None) -> list[str]:
    path = tmp_path / "x.log"
    path.write_text(log, encoding="utf-8")
    args = ["diagnose", str(path), "--format", "json", *(["--hardware", hardware] if hardware else [])]
    return [e["rule"] for e in _json(args)["explanations"]]


def options(tmp_path, text: str) -> str:
    path = tmp_path / "opts.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("hardware", "engine", "nodes", "tp", "extra", "expected"), [
    ("rtx-pro-6000-x8", "tensorrt-llm==1.3.0rc22", 1, 8, None, True),
    ("rtx-5090-x4", "tensorrt-llm==1.3.0rc22", 1, 4, None, True),
    ("rtx-pro-6000-x8", "tensorrt-llm==1.3.0rc22", 1, 8, "allreduce_strategy: NCCL\n", False),
    ("rtx-pro-6000-x8", "tensorrt-llm==1.3.0rc22", 1, 1, None, False),
    ("dgx-spark", "tensorrt-llm==1.3.0rc22", 2, 2, None, False),  # GB10: no PCIe peer, TRT151's territory
    ("h100-sxm-x8", "tensorrt-llm==1.3.0rc22", 1, 8, None, False),
])
def test_trt150_custom_allreduce_ipc_on_pcie_sm120(tmp_path, hardware, engine, nodes, tp, extra, expected):
    flags = ["--tp_size", str(tp)] + (["--extra_llm_api_options", options(tmp_path, extra)] if extra else [])
    found = fired("meta-llama/Meta-Llama-3.1-70B", hardware, engine, *flags, nodes=nodes, tp=tp)
    assert ("TRT150" in found) is expected


@pytest.mark.parametrize(("hardware", "engine", "nodes", "extra", "expected"), [
    ("dgx-spark", "tensorrt-llm==1.2.0", 2, None, True),
    ("dgx-spark", "tensorrt-llm==1.3.0rc7", 2, None, True),
    ("dgx-spark", "tensorrt-llm==1.3.0rc8", 2, None, False),  # cut after the fix PR was opened: not known
    ("dgx-spark", "tensorrt-llm==0.20.0", 2, None, False),
    ("dgx-spark", "tensorrt-llm==1.2.0", 1, None, False),
    ("dgx-spark", "tensorrt-llm==1.2.0", 2, "allreduce_strategy: NCCL\n", False),
    ("rtx-pro-6000", "tensorrt-llm==1.2.0", 2, None, False),  # the other SM12x part
])
def test_trt151_nccl_symmetric_on_gb10_clusters(tmp_path, hardware, engine, nodes, extra, expected):
    flags = ["--tp_size", str(nodes)] + (["--extra_llm_api_options", options(tmp_path, extra)] if extra else [])
    assert ("TRT151" in fired(None, hardware, engine, *flags, nodes=nodes, tp=nodes)) is expected


@pytest.mark.parametrize(("hardware", "expected"), [
    ("dgx-spark", True), ("rtx-pro-6000", False), ("h100-sxm-x8", False), (None, False),
])
def test_nccl140_retry_exceeded_on_gb10_only(tmp_path, hardware, expected):
    assert ("NCCL140" in named("RDMA IBV_WC_RETRY_EXC_ERR(12) on large transfers\n", tmp_path, hardware)) is expected


@pytest.mark.parametrize(("model", "engine", "expected"), [
    ("MiniMaxAI/MiniMax-M3", "vllm==0.23.0", True),
    ("MiniMaxAI/MiniMax-M3-MXFP8", "vllm==0.23.0", True),
    ("MiniMaxAI/MiniMax-M3", "vllm==0.24.0", False),
    ("MiniMaxAI/MiniMax-M2.5", "vllm==0.23.0", False),
])
def test_vllm340_minimax_m3_from_0_24(model, engine, expected):
    assert ("VLLM340" in fired(model, "dgx-spark", engine, nodes=2, tp=2)) is expected


@pytest.mark.parametrize(("log", "hardware", "expected"), [
    ("CUDA_ERROR_INVALID_IMAGE\nnot disable_ue8m0_cast\n", "dgx-spark", True),
    ("Assertion error: not disable_ue8m0_cast\n", "rtx-pro-6000", True),
    ("CUDA_ERROR_INVALID_IMAGE\nnot disable_ue8m0_cast\n", "h100-sxm-x8", False),
    ("RuntimeError: CUDA driver error: CUDA_ERROR_INVALID_IMAGE\n", "dgx-spark", False),  # no DeepGEMM in the log
])
def test_dg060_deepgemm_lines(tmp_path, log, hardware, expected):
    assert ("DG060" in named(log, tmp_path, hardware)) is expected


@pytest.mark.parametrize(("model", "engine", "flags", "expected"), [
    (NEMOTRON_H, "vllm==0.23.0", ("--kv-transfer-config", LMCACHE), True),
    (NEMOTRON_H, "vllm==0.23.0", ("--kv-transfer-config", LMCACHE, "--mamba-cache-mode", "align"), False),
    (NEMOTRON_H, "vllm==0.23.0", (), False),
    ("Qwen/Qwen3-8B", "vllm==0.23.0", ("--kv-transfer-config", LMCACHE), False),  # no recurrent state
    (NEMOTRON_H, "vllm==0.20.0", ("--kv-transfer-config", LMCACHE), False),  # before --mamba-cache-mode
])
def test_vllm341_lmcache_with_hybrid_models(model, engine, flags, expected):
    assert ("VLLM341" in fired(model, "dgx-spark", engine, *flags)) is expected


@pytest.mark.parametrize(("hardware", "nodes", "load_format", "expected"), [
    ("dgx-spark", 2, "instanttensor", True),
    ("dgx-spark", 2, "safetensors", False),
    ("dgx-spark", 1, "instanttensor", False),
    ("rtx-pro-6000", 2, "instanttensor", False),
])
def test_vllm342_instanttensor_on_spark_clusters(hardware, nodes, load_format, expected):
    flags = ["--tensor-parallel-size", str(nodes), "--distributed-executor-backend", "ray",
             "--load-format", load_format]
    assert ("VLLM342" in fired(None, hardware, "vllm==0.27.1", *flags, nodes=nodes, tp=nodes)) is expected


def test_ckpt090_fastsafetensors_duplicate_keys(tmp_path):
    assert named("key ...qweight must be unique among files\n", tmp_path, "dgx-spark")[0] == "CKPT090"


@pytest.mark.parametrize(("hardware", "flags", "expected"), [
    ("rtx-pro-6000-phb-x2", (), True),
    ("rtx-pro-6000-x2", (), False),  # NODE: the pair on separate root ports
    ("rtx-5090-x2", (), False),  # PHB, but no P2P: vLLM's custom all-reduce stays off
    ("rtx-pro-6000-phb-x2", ("--disable-custom-all-reduce",), False),
    ("rtx-pro-6000-phb-x2", ("--enforce-eager",), False),
])
def test_vllm343_custom_allreduce_on_a_phb_pair(hardware, flags, expected):
    found = fired("Qwen/Qwen3-8B", hardware, "vllm==0.27.1", "--tensor-parallel-size", "2", *flags, tp=2)
    assert ("VLLM343" in found) is expected


@pytest.mark.parametrize(("nodes", "utilization", "drafter", "expected"), [
    (4, "0.85", True, True), (4, "0.88", True, True), (4, "0.85", False, False), (2, "0.87", False, False),
    (2, "0.88", True, False), (4, "0.84", True, False), (4, "0.90", True, False), (1, "0.85", True, False),
])
def test_uma170_spark_cluster_headroom(nodes, utilization, drafter, expected):
    flags = ["--tensor-parallel-size", str(nodes), "--gpu-memory-utilization", utilization]
    if drafter:
        flags += ["--speculative-config", '{"method":"mtp","num_speculative_tokens":2}']
    if nodes > 1:
        flags += ["--distributed-executor-backend", "ray"]
    assert ("UMA170" in fired(None, "dgx-spark", "vllm==0.27.1", *flags, nodes=nodes, tp=nodes)) is expected


def test_krn080_ds4_topk_bound(tmp_path):
    assert named("TOPK-BOUND-VIOL\n", tmp_path) == ["KRN080"]


@pytest.mark.parametrize(("log", "hardware", "expected"), [
    ("MLIRError\nweakly congruent\n", "rtx-pro-6000", True),
    ("MLIRError\nweakly congruent\n", "dgx-spark", True),
    ("MLIRError\nweakly congruent\n", "h100-sxm-x8", False),
    ("the layouts are weakly congruent\n", "rtx-pro-6000", False),  # no MLIRError: not the CuTe DSL's check
])
def test_sgl282_short_form(tmp_path, log, hardware, expected):
    assert ("SGL282" in named(log, tmp_path, hardware)) is expected


@pytest.mark.parametrize(("hardware", "expected"), [
    ("dgx-spark", {"FI121"}), ("rtx-pro-6000", {"FI121"}), ("h100-sxm-x8", set()), (None, set()),
])
def test_sparse_mla_bare_num_tokens_check(tmp_path, hardware, expected):
    """The line as eugr/spark-vllm-docker#319 shortens it: FlashInfer's SM120 sparse-MLA orchestrator, so only with
    an SM12x GPU stated."""
    assert set(named("num_tokens > 64\n", tmp_path, hardware)) == expected


def test_minimax_m3_support_is_tabulated_from_0_24_under_vllms_class_names():
    """The seventh sample's 'Noticed' data bug, checked against the 0.24.0 wheel: the table is right. vLLM registers
    MiniMax-M3 as MiniMaxM3Sparse* (model type minimax_m3_vl) from 0.24.0; the bundled MiniMaxAI/MiniMax-M3 config
    (aiconfigurator's copy) names MiniMaxM3ForCausalLM / minimax_m3, which no vLLM release registers, while the
    MXFP8 checkpoint's own config names vLLM's class. VLLM340 keys on either name."""
    from doctor.engines import model_support

    arch = "architectures"
    assert model_support.first_release("vllm", arch, "MiniMaxM3SparseForConditionalGeneration") == "0.24.0"
    assert not model_support.knows("vllm", arch, "MiniMaxM3SparseForConditionalGeneration", "0.23.0")
    assert model_support.first_release("vllm", arch, "MiniMaxM3ForCausalLM") is None
    found = fired("MiniMaxAI/MiniMax-M3-MXFP8", "dgx-spark", "vllm==0.24.0", nodes=2, tp=2)
    assert not found & {"ARCH001", "ARCH002", "VLLM340"}
