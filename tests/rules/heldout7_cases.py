"""Positive and boundary cases of rules/heldout7.toml (task enc7) in the shared rule-case runner
(test_rule_cases.py); tests/rules/test_heldout7_rules.py runs the same boundaries through the CLI."""

from __future__ import annotations

from tests.rules.builders import a, build
from tests.rules.log_line_cases import logged

LLAMA70 = "meta-llama/Meta-Llama-3.1-70B"
NEMOTRON_H = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
LMCACHE = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
TRT_RC22 = ("tensorrt-llm==1.3.0rc22",)


def facts(profile: str, engines: tuple[str, ...], model: str | None = None):
    return lambda: build(profile, model, engines)


DRAFTER = ("--speculative-config", '{"method":"mtp","num_speculative_tokens":2}')

HELDOUT7_CASES = [
    # TRT150: custom all-reduce through CUDA IPC on PCIe-only SM120 at TP > 1
    a("TRT150", True, "8x pro 6000 tp8 rc22", facts("rtx-pro-6000-x8", TRT_RC22, LLAMA70), "--tp_size", "8"),
    a("TRT150", True, "4x 5090 tp4 rc22", facts("rtx-5090-x4", TRT_RC22, LLAMA70), "--tp_size", "4"),
    a("TRT150", False, "tp1", facts("rtx-pro-6000-x8", TRT_RC22, LLAMA70), "--tp_size", "1"),
    a("TRT150", False, "h100 (nvlink, 9.0)", facts("h100-sxm-x8", TRT_RC22, LLAMA70), "--tp_size", "8"),
    a("TRT150", False, "gb10 (12.1: one gpu per node)", facts("dgx-spark", TRT_RC22), "--tp_size", "2"),
    # TRT151: NCCL_SYMMETRIC on GB10 across nodes, releases before PR #12902
    a("TRT151", True, "gb10 tp2 1.2.0", facts("dgx-spark", ("tensorrt-llm==1.2.0",)), "--tp_size", "2"),
    a("TRT151", True, "gb10 tp2 1.3.0rc7", facts("dgx-spark", ("tensorrt-llm==1.3.0rc7",)), "--tp_size", "2"),
    a("TRT151", False, "gb10 tp2 1.3.0rc8 (after the fix PR)", facts("dgx-spark", ("tensorrt-llm==1.3.0rc8",)),
      "--tp_size", "2"),
    a("TRT151", False, "gb10 tp2 0.20.0", facts("dgx-spark", ("tensorrt-llm==0.20.0",)), "--tp_size", "2"),
    a("TRT151", False, "gb10 tp1", facts("dgx-spark", ("tensorrt-llm==1.2.0",)), "--tp_size", "1"),
    a("TRT151", False, "pro 6000 tp2 (12.0)", facts("rtx-pro-6000-x2", ("tensorrt-llm==1.2.0",)), "--tp_size", "2"),
    # NCCL140, DG060, CKPT090, KRN080: lines read from a log
    logged("NCCL140", True, "its line on gb10", "dgx-spark"),
    logged("NCCL140", False, "its line on an rtx pro 6000", "rtx-pro-6000"),
    logged("NCCL140", False, "its line on h100", "h100-sxm-x8"),
    logged("NCCL140", False, "check: no log", "dgx-spark", shown=()),
    logged("DG060", True, "its line on gb10", "dgx-spark"),
    logged("DG060", True, "its line on a 5090", "rtx-5090"),
    logged("DG060", False, "its line on h100", "h100-sxm-x8"),
    logged("DG060", False, "check: no log", "dgx-spark", shown=()),
    logged("CKPT090", True, "its line", "dgx-spark"),
    logged("CKPT090", False, "check: no log", "dgx-spark", shown=()),
    logged("KRN080", True, "its line", "dgx-spark"),
    logged("KRN080", False, "check: no log", "dgx-spark", shown=()),
    # VLLM340: MiniMax-M3 before vLLM 0.24.0
    a("VLLM340", True, "minimax-m3 on 0.23.0", facts("dgx-spark", ("vllm==0.23.0",), "MiniMaxAI/MiniMax-M3")),
    a("VLLM340", True, "minimax-m3 mxfp8 on 0.23.0",
      facts("dgx-spark", ("vllm==0.23.0",), "MiniMaxAI/MiniMax-M3-MXFP8")),
    a("VLLM340", False, "minimax-m3 on 0.24.0", facts("dgx-spark", ("vllm==0.24.0",), "MiniMaxAI/MiniMax-M3")),
    a("VLLM340", False, "minimax-m2.5 on 0.23.0", facts("dgx-spark", ("vllm==0.23.0",), "MiniMaxAI/MiniMax-M2.5")),
    # VLLM341: LMCache connector with a hybrid model, no --mamba-cache-mode align
    a("VLLM341", True, "nemotron-h with lmcache", facts("dgx-spark", ("vllm==0.23.0",), NEMOTRON_H),
      "--kv-transfer-config", LMCACHE),
    a("VLLM341", False, "with --mamba-cache-mode align", facts("dgx-spark", ("vllm==0.23.0",), NEMOTRON_H),
      "--kv-transfer-config", LMCACHE, "--mamba-cache-mode", "align"),
    a("VLLM341", False, "no connector", facts("dgx-spark", ("vllm==0.23.0",), NEMOTRON_H)),
    a("VLLM341", False, "attention-only model", facts("dgx-spark", ("vllm==0.23.0",), "Qwen/Qwen3-8B"),
      "--kv-transfer-config", LMCACHE),
    a("VLLM341", False, "vllm 0.20.0", facts("dgx-spark", ("vllm==0.20.0",), NEMOTRON_H),
      "--kv-transfer-config", LMCACHE),
    # VLLM342: instanttensor on GB10 at TP > 1 (several Sparks)
    a("VLLM342", True, "gb10 tp2 instanttensor", facts("dgx-spark", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "2", "--load-format", "instanttensor"),
    a("VLLM342", False, "gb10 tp2 safetensors", facts("dgx-spark", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "2", "--load-format", "safetensors"),
    a("VLLM342", False, "gb10 tp1 instanttensor", facts("dgx-spark", ("vllm==0.27.1",)),
      "--load-format", "instanttensor"),
    a("VLLM342", False, "pro 6000 tp2 instanttensor", facts("rtx-pro-6000-x2", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "2", "--load-format", "instanttensor"),
    # VLLM343: custom all-reduce at TP 2 on a PHB pair of SM120 cards
    a("VLLM343", True, "phb pair tp2", facts("rtx-pro-6000-phb-x2", ("vllm==0.27.1",), "Qwen/Qwen3-8B"),
      "--tensor-parallel-size", "2"),
    a("VLLM343", False, "node pair tp2", facts("rtx-pro-6000-x2", ("vllm==0.27.1",), "Qwen/Qwen3-8B"),
      "--tensor-parallel-size", "2"),
    a("VLLM343", False, "5090 phb pair without p2p", facts("rtx-5090-x2", ("vllm==0.27.1",), "Qwen/Qwen3-8B"),
      "--tensor-parallel-size", "2"),
    a("VLLM343", False, "phb pair, custom all-reduce off",
      facts("rtx-pro-6000-phb-x2", ("vllm==0.27.1",), "Qwen/Qwen3-8B"), "--tensor-parallel-size", "2",
      "--disable-custom-all-reduce"),
    a("VLLM343", False, "phb pair, eager", facts("rtx-pro-6000-phb-x2", ("vllm==0.27.1",), "Qwen/Qwen3-8B"),
      "--tensor-parallel-size", "2", "--enforce-eager"),
    # UMA170: 0.85-0.90 on GB10 at TP >= 4 with a drafter (the report's launch)
    a("UMA170", True, "gb10 tp4 0.85 with a drafter", facts("dgx-spark", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.85", *DRAFTER),
    a("UMA170", False, "gb10 tp4 0.85 without a drafter", facts("dgx-spark", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.85"),
    a("UMA170", False, "gb10 tp2 0.87 with a drafter: TP 2 not reported", facts("dgx-spark", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.87", *DRAFTER),
    a("UMA170", False, "gb10 tp4 0.84", facts("dgx-spark", ("vllm==0.27.1",)), "--tensor-parallel-size", "4",
      "--gpu-memory-utilization", "0.84", *DRAFTER),
    a("UMA170", False, "gb10 tp4 0.90 (the single-node rule's)", facts("dgx-spark", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.90", *DRAFTER),
    a("UMA170", False, "gb10 tp1 0.85", facts("dgx-spark", ("vllm==0.27.1",)), "--gpu-memory-utilization", "0.85",
      *DRAFTER),
    a("UMA170", False, "pro 6000 tp4 0.85", facts("rtx-pro-6000-ws-x4", ("vllm==0.27.1",)),
      "--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.85", *DRAFTER),
]
