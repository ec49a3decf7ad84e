"""Positive and boundary cases for the issue-25 knowledge areas: operating environment (WSL2, the display
GPU), GB10 unified memory, third-party kernels. test_rule_cases.py holds these to the every-rule check."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib
from tests.rules.feature_cases import FORCED_MOE_CASES, XQA_HEAD_512_CASES
from tests.rules.gguf_arch_cases import GGUF_ARCH_CASES

PRO, R5090, SPARK, H100 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def on(profile: str, engines: tuple[str, ...] = (), host: dict[str, Any] | None = None,
       gpu: dict[str, Any] | None = None, env: dict[str, str] | None = None, libs=()) -> Callable[[], Facts]:
    def facts() -> Facts:
        built = build(profile, LLAMA if engines else None, engines, libs=tuple(libs), env=env)
        if host:
            built = built.replace(host=dataclasses.replace(built.host, **host))
        if gpu:
            built = built.replace(gpus=tuple(dataclasses.replace(g, **gpu) for g in built.gpus))
        return built
    return facts


GIB = 1 << 30
WSL = {"wsl": True}
FREE_67 = {"memory_available_bytes": int(67.92 * GIB)}


def spark_vllm(available_gib: float | None = None) -> Callable[[], Facts]:
    host = {"memory_available_bytes": int(available_gib * GIB)} if available_gib is not None else None
    return on(SPARK, ("vllm==0.24.0",), host=host)
DISPLAY = {"display_active": True}
LMCACHE = ("--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}')

AREA_CASES = [
    a("WSL001", True, "wsl2 5090 graphs on", on(R5090, ("vllm==0.17.1",), host=WSL)),
    a("WSL001", True, "wsl2 5090 no engine", on(R5090, host=WSL)),
    a("WSL001", False, "wsl2 enforce eager", on(R5090, ("vllm==0.17.1",), host=WSL), "--enforce-eager"),
    a("WSL001", False, "wsl2 sglang no graphs", on(R5090, ("sglang==0.5.10",), host=WSL), "--disable-cuda-graph"),
    a("WSL001", False, "native linux", on(R5090, ("vllm==0.17.1",), host={"wsl": False})),
    a("WSL001", False, "wsl2 hopper", on(H100, ("vllm==0.17.1",), host=WSL)),
    a("HW005", True, "display on 5090", on(R5090, gpu=DISPLAY)),
    a("HW005", False, "headless 5090", on(R5090, gpu={"display_active": False})),
    a("HW005", False, "display unknown", on(R5090)),
    a("HW005", False, "display on hopper", on(H100, gpu=DISPLAY)),
    a("UMA001", True, "0.7 with 67.92 GiB available", on(SPARK, ("vllm==0.24.0",), host=FREE_67),
      "--gpu-memory-utilization", "0.7"),
    a("UMA001", True, "default 0.9 with 100 GiB available", spark_vllm(100)),
    a("UMA001", False, "0.5 with 67.92 GiB available", on(SPARK, ("vllm==0.24.0",), host=FREE_67),
      "--gpu-memory-utilization", "0.5"),
    a("UMA001", False, "0.9 with 115 GiB available", spark_vllm(115)),
    a("UMA001", False, "availability unknown (profile)", spark_vllm(), "--gpu-memory-utilization", "0.9"),
    a("UMA001", False, "vllm on 5090", on(R5090, ("vllm==0.24.0",), host=FREE_67)),
    a("UMA001", False, "sglang on spark", on(SPARK, ("sglang==0.5.10",), host=FREE_67)),
    a("UMA002", True, "ray executor", on(SPARK, ("vllm==0.26.0",)), "--distributed-executor-backend", "ray"),
    a("UMA002", True, "ray executor =", on(SPARK, ("vllm==0.26.0",)), "--distributed-executor-backend=ray"),
    a("UMA002", False, "ray monitor off", on(SPARK, ("vllm==0.26.0",), env={"RAY_memory_monitor_refresh_ms": "0"}),
      "--distributed-executor-backend", "ray"),
    a("UMA002", False, "mp executor", on(SPARK, ("vllm==0.26.0",)), "--distributed-executor-backend", "mp"),
    a("UMA002", False, "ray on 5090", on(R5090, ("vllm==0.26.0",)), "--distributed-executor-backend", "ray"),
    a("UMA003", True, "0.23.0 on spark", on(SPARK, ("vllm==0.23.0",))),
    a("UMA003", False, "0.24.0 on spark", on(SPARK, ("vllm==0.24.0",))),
    a("UMA003", False, "0.22.0 on spark", on(SPARK, ("vllm==0.22.0",))),
    a("UMA003", False, "0.23.0 on 5090", on(R5090, ("vllm==0.23.0",))),
]

def lmc(version: str, profile: str = PRO) -> Callable[[], Facts]:
    return on(profile, ("vllm==0.13.0",), libs=[lib("lmcache", version)])


LMCACHE_CASES = [
    a("TPK001", True, "lmcache 0.3.9 connector", lmc("0.3.9"), *LMCACHE),
    a("TPK001", True, "lmcache 0.4.4 connector", lmc("0.4.4"), *LMCACHE),
    a("TPK001", False, "lmcache 0.4.5 connector", lmc("0.4.5"), *LMCACHE),
    a("TPK001", False, "lmcache 0.3.9 no connector", lmc("0.3.9")),
    a("TPK001", False, "lmcache 0.3.9 on hopper", lmc("0.3.9", H100), *LMCACHE),
    a("TPK001", False, "lmcache 0.3.9 on spark (no aarch64 wheel audited)",
      lmc("0.3.9", SPARK), *LMCACHE),
]
AREA_CASES += LMCACHE_CASES

GEMMA4 = "tests/cases/models/gemma-4-26b-a4b-it"


def vllm_on_pro(version: str, model: str = GEMMA4) -> Callable[[], Facts]:
    def facts() -> Facts:
        from doctor.probe.model import load_model

        return build("rtx-pro-6000-ws-x4", None, (f"vllm=={version}",)).replace(
            model=load_model(model, {}, offline=True))
    return facts


MODEL_FEATURE_CASES = [
    a("VLLM030", True, "gemma4 flashinfer 0.19.1", vllm_on_pro("0.19.1"), "--attention-backend", "FLASHINFER"),
    a("VLLM030", True, "gemma4 flashinfer 0.21.0", vllm_on_pro("0.21.0"), "--attention-backend", "FLASHINFER"),
    a("VLLM030", False, "gemma4 flashinfer 0.22.0", vllm_on_pro("0.22.0"), "--attention-backend", "FLASHINFER"),
    a("VLLM030", False, "gemma4 auto backend 0.19.1", vllm_on_pro("0.19.1")),
    a("VLLM030", False, "gemma4 triton 0.19.1", vllm_on_pro("0.19.1"), "--attention-backend", "TRITON_ATTN"),
    a("VLLM030", False, "head 128 flashinfer", vllm_on_pro("0.19.1", LLAMA), "--attention-backend", "FLASHINFER"),
]
AREA_CASES += MODEL_FEATURE_CASES
AREA_CASES += FORCED_MOE_CASES
AREA_CASES += XQA_HEAD_512_CASES
AREA_CASES += GGUF_ARCH_CASES

DSV3 = "deepseek-ai/DeepSeek-V3"
MLA_CASES = [
    a("VLLM031", True, "mla fp8 kv 0.17.0", vllm_on_pro("0.17.0", DSV3), "--kv-cache-dtype", "fp8"),
    a("VLLM031", True, "mla fp8_e4m3 kv 0.13.0", vllm_on_pro("0.13.0", DSV3), "--kv-cache-dtype", "fp8_e4m3"),
    a("VLLM031", False, "mla fp8 kv 0.18.0", vllm_on_pro("0.18.0", DSV3), "--kv-cache-dtype", "fp8"),
    a("VLLM031", False, "mla auto kv 0.17.0", vllm_on_pro("0.17.0", DSV3)),
    a("VLLM031", False, "gqa fp8 kv 0.17.0", vllm_on_pro("0.17.0", LLAMA), "--kv-cache-dtype", "fp8"),
    a("VLLM031", False, "mla fp8 on hopper", lambda: build(H100, DSV3, ("vllm==0.17.0",)), "--kv-cache-dtype", "fp8"),
]
KIMI_NVFP4, KIMI_NVFP4_HQC = "nvidia/Kimi-K2-Thinking-NVFP4", "nvidia/Kimi-K2.6-NVFP4"
MLA_CHECKPOINT_KV_CASES = [
    a("VLLM040", True, "modelopt fp8 kv 0.14.0", vllm_on_pro("0.14.0", KIMI_NVFP4)),
    a("VLLM040", True, "modelopt fp8 kv 0.17.0 auto named", vllm_on_pro("0.17.0", KIMI_NVFP4),
      "--kv-cache-dtype", "auto"),
    a("VLLM040", True, "hf_quant_config fp8 kv 0.15.0", vllm_on_pro("0.15.0", KIMI_NVFP4_HQC)),
    a("VLLM040", False, "0.13.0 keeps auto", vllm_on_pro("0.13.0", KIMI_NVFP4)),
    a("VLLM040", False, "0.18.0 triton mla takes fp8", vllm_on_pro("0.18.0", KIMI_NVFP4)),
    a("VLLM040", False, "bf16 kv named", vllm_on_pro("0.16.0", KIMI_NVFP4), "--kv-cache-dtype", "bfloat16"),
    a("VLLM040", False, "no kv scheme", vllm_on_pro("0.14.0", "tests/cases/models/deepseek-v3.1-nvfp4")),
    a("VLLM040", False, "bf16 mla", vllm_on_pro("0.14.0", DSV3)),
    a("VLLM040", False, "hopper", lambda: build(H100, KIMI_NVFP4, ("vllm==0.14.0",))),
]
AREA_CASES += MLA_CASES + MLA_CHECKPOINT_KV_CASES


def live_without_gpus(module: str) -> Callable[[], Facts]:
    def facts() -> Facts:
        from doctor.pipeline.facts import Source

        built = build(R5090)
        return built.replace(gpus=(), topology=(), source=Source(kind="live"),
                             host=dataclasses.replace(built.host, nvidia_module=module))
    return facts


DRIVER_CASES = [
    a("DRV004", True, "proprietary on 5090", on(R5090, host={"nvidia_module": "proprietary"})),
    a("DRV004", True, "proprietary on spark", on(SPARK, host={"nvidia_module": "proprietary"})),
    a("DRV004", False, "open on 5090", on(R5090, host={"nvidia_module": "open"})),
    a("DRV004", False, "unknown module", on(R5090)),
    a("DRV004", False, "proprietary on hopper", on(H100, host={"nvidia_module": "proprietary"})),
    a("DRV005", True, "live, proprietary, no gpu", live_without_gpus("proprietary")),
    a("DRV005", False, "live, open, no gpu", live_without_gpus("open")),
    a("DRV005", False, "profile with gpus", on(R5090, host={"nvidia_module": "proprietary"})),
]
AREA_CASES += DRIVER_CASES

from tests.rules.p2p_cases import CASES as P2P_DRIVER_CASES  # noqa: E402

AREA_CASES += P2P_DRIVER_CASES

from tests.rules.lcpp_cases import CASES as LCPP_BUILD_CASES  # noqa: E402

AREA_CASES += LCPP_BUILD_CASES

from tests.rules.ollama_cases import OLLAMA_CASES  # noqa: E402

AREA_CASES += OLLAMA_CASES

from tests.rules.parser_cases import PARSER_CASES  # noqa: E402

AREA_CASES += PARSER_CASES

from tests.rules.startmem_cases import STARTMEM_CASES  # noqa: E402

AREA_CASES += STARTMEM_CASES
