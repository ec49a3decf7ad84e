"""Positive and boundary cases for the rules of task fixpr2 (rules/sglang_fixpr2.toml: VLLM260-VLLM299, SGL400-SGL439,
FI120-FI139). test_rule_cases.py runs them; tests/rules/test_error_boundaries.py sweeps each error rule's bounds."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
QWEN3 = "Qwen/Qwen3-8B"
QWEN_FP8 = "Qwen/Qwen3-30B-A3B-FP8"  # block FP8 (128x128), MoE


def sglang(version: str, model: str = QWEN3, profile: str = PRO, env: dict[str, str] | None = None
           ) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"sglang=={version}",), env=env)


PDMUX = ("--enable-pdmux",)

FIXPR2_CASES = [
    # SGL400: get_arch_constraints() maps majors 6-9 only, from 0.5.4.post2 (first pdmux) to 0.5.23
    a("SGL400", True, "0.5.20 --enable-pdmux on an RTX PRO 6000 (sglang#32933)", sglang("0.5.20"), *PDMUX),
    a("SGL400", True, "0.5.4.post2: first release with PD multiplexing, GB10", sglang("0.5.4.post2", profile=SPARK),
      *PDMUX),
    a("SGL400", True, "0.5.23: still no 12.x branch, 5090", sglang("0.5.23", profile=R5090), *PDMUX),
    a("SGL400", False, "0.5.4.post1 has no PD multiplexing", sglang("0.5.4.post1"), *PDMUX),
    a("SGL400", False, "flag not given", sglang("0.5.20")),
    a("SGL400", False, "a pdmux config file may give manual_divisions", sglang("0.5.20"), *PDMUX,
      "--pdmux-config-path", "pdmux.yaml"),
    a("SGL400", False, "Hopper (9.0) is in the table", sglang("0.5.20", profile=H100), *PDMUX),
    a("SGL400", False, "B200 (10.0): the same raise, not an SM12x finding", sglang("0.5.20", profile=B200), *PDMUX),
]

DG_GEMM, DG_MOE = ("--fp8-gemm-backend", "deep_gemm"), ("--moe-runner-backend", "deep_gemm")

FIXPR2_CASES += [
    # SGL401: the DeepGEMM gate / SM120 probe test `sm == 120`, so GB10 (121) keeps DeepGEMM on (0.5.13-0.5.20)
    a("SGL401", True, "0.5.18 GB10, --fp8-gemm-backend deep_gemm", sglang("0.5.18", QWEN_FP8, SPARK), *DG_GEMM),
    a("SGL401", True, "0.5.13 GB10: first release with the == 120 gate", sglang("0.5.13", QWEN_FP8, SPARK), *DG_GEMM),
    a("SGL401", True, "0.5.20 GB10, DeepGEMM MoE runner", sglang("0.5.20", QWEN_FP8, SPARK), *DG_MOE),
    a("SGL401", False, "0.5.21 probes 120 and 121 alike", sglang("0.5.21", QWEN_FP8, SPARK), *DG_GEMM),
    a("SGL401", False, "0.5.12.post1: no SM12x gate at all (DG001/DG002's era)", sglang("0.5.12.post1", QWEN_FP8,
                                                                                     SPARK), *DG_GEMM),
    a("SGL401", False, "12.0 takes the gate", sglang("0.5.18", QWEN_FP8, PRO), *DG_GEMM),
    a("SGL401", False, "no DeepGEMM request: auto stays off DeepGEMM", sglang("0.5.18", QWEN_FP8, SPARK)),
    a("SGL401", False, "DeepGEMM switched off", sglang("0.5.18", QWEN_FP8, SPARK,
                                                      env={"SGLANG_ENABLE_JIT_DEEPGEMM": "0"}), *DG_GEMM),
    a("SGL401", False, "Hopper: DeepGEMM's home", sglang("0.5.18", QWEN_FP8, H100), *DG_GEMM),
]

DSV4 = "deepseek-ai/DeepSeek-V4-Flash-0731"
DSPARK = ("--tp-size", "8", "--speculative-algorithm", "DSPARK")
PRO8 = "rtx-pro-6000-x8"


def sglang_fi(version: str, flashinfer: str, model: str = DSV4, profile: str = PRO8,
              env: dict[str, str] | None = None) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"sglang=={version}", f"flashinfer-python=={flashinfer}"), env=env)


FIXPR2_CASES += [
    # FI120: DSpark's SWA index width 192 has no FlashInfer SM120 sparse-MLA instantiation before 0.6.18
    a("FI120", True, "0.5.16 with its pin 0.6.14, DSPARK (sglang#33407)", sglang_fi("0.5.16", "0.6.14"), *DSPARK),
    a("FI120", True, "0.5.18 with its pin 0.6.17, GB10", sglang_fi("0.5.18", "0.6.17", profile=SPARK),
      "--speculative-algorithm", "DSPARK"),
    a("FI120", True, "lower-case algorithm name", sglang_fi("0.5.17", "0.6.15.post1"),
      "--tp-size", "8", "--speculative-algorithm", "dspark"),
    a("FI120", False, "FlashInfer 0.6.18 has top-k 192/256", sglang_fi("0.5.18", "0.6.18"), *DSPARK),
    a("FI120", False, "0.5.19 with its pin 0.6.18", sglang_fi("0.5.19", "0.6.18"), *DSPARK),
    a("FI120", False, "FlashInfer 0.6.13 has no SM120 sparse MLA at all", sglang_fi("0.5.16", "0.6.13"), *DSPARK),
    a("FI120", False, "0.5.15 has no DSPARK", sglang_fi("0.5.15", "0.6.14"), *DSPARK),
    a("FI120", False, "no speculative decoding", sglang_fi("0.5.18", "0.6.17"), "--tp-size", "8"),
    a("FI120", False, "EAGLE/MTP draft: top-k widths the tables have", sglang_fi("0.5.18", "0.6.17"),
      "--tp-size", "8", "--speculative-algorithm", "EAGLE"),
    a("FI120", False, "Triton sparse-MLA fallback",
      sglang_fi("0.5.18", "0.6.17", env={"SGLANG_SM120_FLASHMLA_BACKEND": "triton"}), *DSPARK),
    a("FI120", False, "not DeepSeek-V4", sglang_fi("0.5.18", "0.6.17", model="deepseek-ai/DeepSeek-V3.2"), *DSPARK),
    a("FI120", False, "Hopper runs FlashMLA, not the SM120 module", sglang_fi("0.5.18", "0.6.17", profile=H100),
      *DSPARK),
    a("FI120", False, "B200 runs trtllm-gen sparse MLA", sglang_fi("0.5.18", "0.6.17", profile=B200), *DSPARK),
]

DSPARK_CONFIG = ("--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8",
                 "--speculative-config", '{"method": "dspark", "num_speculative_tokens": 7}')
MTP_CONFIG = ("--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8",
              "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}')


def vllm_fi(version: str, flashinfer: str | None = None, model: str = DSV4, profile: str = PRO8
            ) -> Callable[[], Facts]:
    engines = (f"vllm=={version}",) + ((f"flashinfer-python=={flashinfer}",) if flashinfer else ())
    return lambda: build(profile, model, engines)


FIXPR2_CASES += [
    # FI121: vLLM's DSpark draft width (256 before 0.28, 192 from 0.28) has no FlashInfer SM120 kernel before 0.6.18
    a("FI121", True, "vLLM 0.26.0 on its pin 0.6.14", vllm_fi("0.26.0"), *DSPARK_CONFIG),
    a("FI121", True, "vLLM 0.28.0 on its pin 0.6.16.post3, GB10", vllm_fi("0.28.0", profile=SPARK),
      "--kv-cache-dtype", "fp8", "--speculative-config", '{"method": "dspark", "num_speculative_tokens": 5}'),
    a("FI121", True, "vLLM 0.27.1 with FlashInfer 0.6.17", vllm_fi("0.27.1", "0.6.17"), *DSPARK_CONFIG),
    a("FI121", False, "vLLM 0.29.0 pins 0.6.18", vllm_fi("0.29.0"), *DSPARK_CONFIG),
    a("FI121", False, "FlashInfer 0.6.18 beside 0.27.1", vllm_fi("0.27.1", "0.6.18"), *DSPARK_CONFIG),
    a("FI121", False, "vLLM 0.25.1: before the DSpark widths read", vllm_fi("0.25.1", "0.6.14"), *DSPARK_CONFIG),
    a("FI121", False, "MTP drafting", vllm_fi("0.26.0"), *MTP_CONFIG),
    a("FI121", False, "no speculative decoding", vllm_fi("0.26.0"), "--tensor-parallel-size", "8"),
    a("FI121", False, "not DeepSeek-V4", vllm_fi("0.26.0", model="deepseek-ai/DeepSeek-V3.2"), *DSPARK_CONFIG),
    a("FI121", False, "Hopper", vllm_fi("0.26.0", profile=H100), *DSPARK_CONFIG),
    a("FI121", False, "B200", vllm_fi("0.26.0", profile=B200), *DSPARK_CONFIG),
]
