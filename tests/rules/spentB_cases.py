"""Positive and boundary cases for rules/spentB.toml (task spentB: the spent tenth held-out sample's expressible
rows). test_rule_cases.py runs them; NCCL161 (several nodes checked as one) has its cases in tests/cluster/cases.py."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

SPARK, PRO, R5090 = "dgx-spark", "rtx-pro-6000", "rtx-5090"
QWEN36_NVFP4 = "tests/cases/models/qwen3.6-35b-a3b-nvfp4"  # a MoE (qwen3_5_moe)
DENSE = "Qwen/Qwen3.6-27B"


def vllm(version: str = "0.25.0", profile: str = SPARK, model: str | None = None, libs=(), env=None,
         driver: str | None = None) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"vllm=={version}",), libs=tuple(libs), env=env, driver=driver)


def sglang(version: str = "0.5.23", profile: str = SPARK, model: str | None = None) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"sglang=={version}",))


HUMMING = ("--moe-backend", "humming")
OFFLOAD = ("--kv-transfer-config", '{"kv_connector":"OffloadingConnector","kv_role":"kv_both"}')
RAY2 = ("--tensor-parallel-size", "2", "--distributed-executor-backend", "ray")
GGUF = ("--dtype", "float32", "--quantization", "gguf")

VLLM460_CASES = [
    # vllm#49554: humming-kernels <= 0.1.11 queries NVML_CLOCK_MEM unguarded; GB10 answers NOT_SUPPORTED
    a("VLLM460", True, "0.25.0 (pins humming-kernels 0.1.10), humming MoE on GB10, model-less", vllm(), *HUMMING),
    a("VLLM460", True, "0.23.0 (pins 0.1.4), the first release with the pin", vllm("0.23.0"), *HUMMING),
    a("VLLM460", True, "0.27.1 (pins 0.1.10), the last release before 0.1.12", vllm("0.27.1"), *HUMMING),
    a("VLLM460", True, "a MoE model", vllm(model=QWEN36_NVFP4), *HUMMING),
    a("VLLM460", True, "humming-kernels 0.1.11 stated: still unguarded",
      vllm(libs=(lib("humming-kernels", "0.1.11"),)), *HUMMING),
    a("VLLM460", False, "0.28.0 pins humming-kernels 0.1.12 (GB10 guarded)", vllm("0.28.0"), *HUMMING),
    a("VLLM460", False, "0.22.0: humming not pinned, the installed release decides", vllm("0.22.0"), *HUMMING),
    a("VLLM460", False, "humming-kernels 0.1.12 stated over the 0.25.0 pin",
      vllm(libs=(lib("humming-kernels", "0.1.12"),)), *HUMMING),
    a("VLLM460", False, "another MoE backend", vllm(), "--moe-backend", "marlin"),
    a("VLLM460", False, "no --moe-backend", vllm()),
    a("VLLM460", False, "a dense model: no MoE layer reaches humming", vllm(model=DENSE), *HUMMING),
    a("VLLM460", False, "RTX PRO 6000 (12.0): a discrete memory clock", vllm(profile=PRO), *HUMMING),
    a("VLLM460", False, "RTX 5090 (12.0)", vllm(profile=R5090), *HUMMING),
    a("VLLM460", False, "H100 (9.0)", vllm(profile="h100-sxm-x8"), *HUMMING),
    a("VLLM460", False, "B200 (10.0)", vllm(profile="b200-x8"), *HUMMING),
]

VLLM461_CASES = [
    # MiaAI GLM-5.3-Flash-EXL3-2x#57: OffloadingConnector with expandable_segments off drained GB10's host memory
    a("VLLM461", True, "0.25.0, OffloadingConnector, GB10", vllm(), *OFFLOAD),
    a("VLLM461", True, "0.23.0: the first release with the cumem exemption", vllm("0.23.0"), *OFFLOAD),
    a("VLLM461", False, "0.21.0: its guard exempts only sleep mode (not covered)", vllm("0.21.0"), *OFFLOAD),
    a("VLLM461", False, "the cumem allocator on (the guard's exemption)", vllm(), *OFFLOAD, "--enable-cumem-allocator"),
    a("VLLM461", False, "sleep mode (turns the cumem allocator on)", vllm(), *OFFLOAD, "--enable-sleep-mode"),
    a("VLLM461", False, "no KV connector", vllm()),
    a("VLLM461", False, "another connector (NIXL)", vllm(),
      "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
    a("VLLM461", False, "RTX PRO 6000: not unified memory", vllm(profile=PRO), *OFFLOAD),
]

SGL530_CASES = [
    # MiaAI Qwen3.8-Flash-Next-Dual#19: NVFP4 KV -> the sglang#36537 token-0 loop on 2x Spark
    a("SGL530", True, "fp4_e2m1 KV on GB10, model-less", sglang("0.5.20"), "--kv-cache-dtype", "fp4_e2m1"),
    a("SGL530", True, "nvfp4 KV on GB10, model-less", sglang(), "--kv-cache-dtype", "nvfp4"),
    a("SGL530", False, "fp8_e4m3 KV (the report's fix)", sglang(), "--kv-cache-dtype", "fp8_e4m3"),
    a("SGL530", False, "auto KV", sglang()),
    a("SGL530", False, "another model (Qwen3.6-35B-A3B NVFP4): not what the report ran",
      sglang(model=QWEN36_NVFP4), "--kv-cache-dtype", "nvfp4"),
    a("SGL530", False, "RTX PRO 6000 (12.0): not reported", sglang(profile=PRO), "--kv-cache-dtype", "nvfp4"),
    a("SGL530", False, "vLLM with an nvfp4 KV cache: another engine's code", vllm("0.33.0"),
      "--kv-cache-dtype", "nvfp4"),
]

NCCL160_CASES = [
    # NVIDIA/nccl#2167: NCCL 2.30.4's NVLS path hangs MoE weight loading across Sparks
    a("NCCL160", True, "vllm tp2 over ray, nccl 2.30.4, model-less", vllm(libs=(lib("nccl", "2.30.4"),)), *RAY2),
    a("NCCL160", True, "vllm --nnodes 2, a MoE", vllm(model=QWEN36_NVFP4, libs=(lib("nccl", "2.30.4"),)),
      "--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "0", "--enable-expert-parallel"),
    a("NCCL160", False, "nccl 2.30.3 (works in the report)", vllm(libs=(lib("nccl", "2.30.3"),)), *RAY2),
    a("NCCL160", False, "nccl 2.30.5 (not established)", vllm(libs=(lib("nccl", "2.30.5"),)), *RAY2),
    a("NCCL160", False, "NCCL_NVLS_ENABLE=0 (the workaround)",
      vllm(libs=(lib("nccl", "2.30.4"),), env={"NCCL_NVLS_ENABLE": "0"}), *RAY2),
    a("NCCL160", False, "one node", vllm(libs=(lib("nccl", "2.30.4"),)), "--tensor-parallel-size", "1"),
    a("NCCL160", False, "a dense model: no expert weights", vllm(model=DENSE, libs=(lib("nccl", "2.30.4"),)), *RAY2),
    a("NCCL160", False, "RTX PRO 6000 nodes (12.0): not reported", vllm(profile=PRO, libs=(lib("nccl", "2.30.4"),)),
      *RAY2),
]

DRV060_CASES = [
    # NVIDIA/open-gpu-kernel-modules#1001: 115 -> 5 tok/s after 570-open -> 580.105.08
    a("DRV060", True, "RTX 5090, 580.105.08, vLLM 0.14.0 GGUF", vllm("0.14.0", R5090, driver="580.105.08"), *GGUF),
    a("DRV060", True, "RTX PRO 6000 (12.0), 580.105.08", vllm("0.14.0", PRO, driver="580.105.08"), *GGUF),
    a("DRV060", False, "570.195.03 (the report's baseline branch)", vllm("0.14.0", R5090, driver="570.195.03"),
      *GGUF),
    a("DRV060", False, "580.105.09: not the build reported", vllm("0.14.0", R5090, driver="580.105.09"), *GGUF),
    a("DRV060", False, "not GGUF", vllm("0.14.0", R5090, driver="580.105.08"), "--dtype", "bfloat16"),
    a("DRV060", False, "GB10 (12.1): not reported", vllm("0.14.0", SPARK, driver="580.105.08"), *GGUF),
    a("DRV060", False, "driver not stated", vllm("0.14.0", R5090), *GGUF),
]

SPENTB_CASES = [*VLLM460_CASES, *VLLM461_CASES, *SGL530_CASES, *NCCL160_CASES, *DRV060_CASES]
