"""Positive and boundary cases for the know-sgl2 rules (rules/sglang_know2.toml, SGL240-SGL269);
test_rule_cases.py runs them with the rest (and test_error_boundaries.py sweeps the error rules)."""

from __future__ import annotations

from tests.rules.builders import a, build

PRO, R5090, SPARK, H100, B200 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"
QWEN235_FP8, QWEN30_FP8 = "Qwen/Qwen3-235B-A22B-FP8", "tests/cases/models/qwen3-30b-a3b-fp8"
QWEN32_FP8_DENSE, QWEN30 = "tests/cases/models/qwen3-32b-fp8", "Qwen/Qwen3-30B-A3B"
FI_CUTLASS = ("--moe-runner-backend", "flashinfer_cutlass")


def sg(version, model=QWEN235_FP8, profile=PRO, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


KNOW_SGL2_CASES = [
    a("SGL240", True, "0.5.19 qwen3 235b fp8 with flashinfer_cutlass", sg("0.5.19"), *FI_CUTLASS),
    a("SGL240", True, "0.5.9: first release read", sg("0.5.9", QWEN30_FP8, R5090), *FI_CUTLASS),
    a("SGL240", True, "0.5.13 on spark", sg("0.5.13", QWEN30_FP8, SPARK), *FI_CUTLASS),
    a("SGL240", True, "not a GPU matter: hopper too", sg("0.5.16", profile=H100), *FI_CUTLASS),
    a("SGL240", False, "0.5.20 falls back to triton", sg("0.5.20"), *FI_CUTLASS),
    a("SGL240", False, "0.5.8.post1 not read", sg("0.5.8.post1"), *FI_CUTLASS),
    a("SGL240", False, "triton runner", sg("0.5.19"), "--moe-runner-backend", "triton"),
    a("SGL240", False, "no runner named", sg("0.5.19")),
    a("SGL240", False, "dense fp8: no experts", sg("0.5.19", QWEN32_FP8_DENSE), *FI_CUTLASS),
    a("SGL240", False, "ModelOpt FP8 has a flashinfer_cutlass path", sg("0.5.19", quant={"method": "modelopt"}),
      *FI_CUTLASS),
    a("SGL240", False, "bf16 MoE", sg("0.5.19", QWEN30), *FI_CUTLASS),
]

FA4, FP8_KV = ("--attention-backend", "fa4"), ("--kv-cache-dtype", "fp8_e5m2")

KNOW_SGL2_CASES += [
    a("SGL241", True, "0.5.20 fa4 + fp8_e5m2 on 5090 (sglang#23985)", sg("0.5.20", QWEN30, R5090), *FA4, *FP8_KV),
    a("SGL241", True, "0.5.16 first release read, spark, fp8_e4m3", sg("0.5.16", QWEN30, SPARK), *FA4,
      "--kv-cache-dtype", "fp8_e4m3"),
    a("SGL241", True, "0.5.23 prefill backend fa4", sg("0.5.23", QWEN30), "--prefill-attention-backend", "fa4",
      *FP8_KV),
    a("SGL241", False, "0.5.15 not read (FA4 in the kernel wheel)", sg("0.5.15", QWEN30), *FA4, *FP8_KV),
    a("SGL241", False, "0.5.24 not read", sg("0.5.24", QWEN30), *FA4, *FP8_KV),
    a("SGL241", False, "16-bit KV runs on SM12x", sg("0.5.20", QWEN30), *FA4),
    a("SGL241", False, "flashinfer with fp8 KV", sg("0.5.20", QWEN30), "--attention-backend", "flashinfer", *FP8_KV),
    a("SGL241", False, "b200: FA4 FP8 is SM100", sg("0.5.20", QWEN30, B200), *FA4, *FP8_KV),
    a("SGL241", False, "hopper", sg("0.5.20", QWEN30, H100), *FA4, *FP8_KV),
]

GPTOSS = "openai/gpt-oss-20b"

KNOW_SGL2_CASES += [
    a("SGL242", True, "0.5.17 gpt-oss with flashinfer_cutlass on 5090 (sglang#36569's release)",
      sg("0.5.17", GPTOSS, R5090), *FI_CUTLASS),
    a("SGL242", True, "0.5.11: first release read", sg("0.5.11", GPTOSS), *FI_CUTLASS),
    a("SGL242", True, "0.5.23: NotImplementedError at startup, spark", sg("0.5.23", GPTOSS, SPARK), *FI_CUTLASS),
    a("SGL242", True, "not a GPU matter: b200 too", sg("0.5.20", GPTOSS, B200), *FI_CUTLASS),
    a("SGL242", False, "0.5.10.post1 not read", sg("0.5.10.post1", GPTOSS), *FI_CUTLASS),
    a("SGL242", False, "0.5.24 not read", sg("0.5.24", GPTOSS), *FI_CUTLASS),
    a("SGL242", False, "flashinfer_mxfp4 is the MXFP4 runner", sg("0.5.17", GPTOSS), "--moe-runner-backend",
      "flashinfer_mxfp4"),
    a("SGL242", False, "no runner named", sg("0.5.17", GPTOSS)),
    a("SGL242", False, "fp8 experts are SGL240", sg("0.5.17"), *FI_CUTLASS),
]

TRTLLM_MHA, E4M3 = ("--attention-backend", "trtllm_mha"), ("--kv-cache-dtype", "fp8_e4m3")

KNOW_SGL2_CASES += [
    a("SGL243", True, "0.5.19 trtllm_mha + fp8_e4m3 on pro 6000", sg("0.5.19", QWEN30), *TRTLLM_MHA, *E4M3),
    a("SGL243", True, "0.5.23 on spark (12.1 is major 12 too)", sg("0.5.23", QWEN30, SPARK), *TRTLLM_MHA, *E4M3),
    a("SGL243", True, "prefill backend named alone", sg("0.5.21", QWEN30, R5090),
      "--prefill-attention-backend", "trtllm_mha", *E4M3),
    a("SGL243", False, "0.5.18: prefill refused earlier (SGL107)", sg("0.5.18", QWEN30), *TRTLLM_MHA, *E4M3),
    a("SGL243", False, "0.5.24 not read", sg("0.5.24", QWEN30), *TRTLLM_MHA, *E4M3),
    a("SGL243", False, "fp8_e5m2: no query cast", sg("0.5.19", QWEN30), *TRTLLM_MHA, "--kv-cache-dtype", "fp8_e5m2"),
    a("SGL243", False, "16-bit KV", sg("0.5.19", QWEN30), *TRTLLM_MHA),
    a("SGL243", False, "prefill on flashinfer", sg("0.5.19", QWEN30), *TRTLLM_MHA,
      "--prefill-attention-backend", "flashinfer", *E4M3),
    a("SGL243", False, "hopper: FMHAv2 FP8 allowed", sg("0.5.19", QWEN30, H100), *TRTLLM_MHA, *E4M3),
    a("SGL243", False, "b200: trtllm-gen", sg("0.5.19", QWEN30, B200), *TRTLLM_MHA, *E4M3),
]

QNEXT, QWEN35 = "tests/cases/models/qwen3-next-80b-a3b", "tests/cases/models/qwen3.5-35b-a3b"
FI_ATTN = ("--attention-backend", "flashinfer")

KNOW_SGL2_CASES += [
    a("SGL244", True, "0.5.9 qwen3-next + flashinfer on 5090", sg("0.5.9", QNEXT, R5090), *FI_ATTN),
    a("SGL244", True, "0.5.5 qwen3-next + flashinfer: triton only", sg("0.5.5", QNEXT), *FI_ATTN),
    a("SGL244", True, "0.5.4.post2: first release counting SM12x as Blackwell", sg("0.5.4.post2", QNEXT), *FI_ATTN),
    a("SGL244", True, "0.5.19 qwen3.5 + fa4 on spark", sg("0.5.19", QWEN35, SPARK), "--attention-backend", "fa4"),
    a("SGL244", True, "0.5.12 qwen3.5 + fa3", sg("0.5.12", QWEN35), "--attention-backend", "fa3"),
    a("SGL244", False, "0.5.4.post1: is_blackwell is major 10 only", sg("0.5.4.post1", QNEXT), *FI_ATTN),
    a("SGL244", False, "0.5.24 not read", sg("0.5.24", QNEXT), *FI_ATTN),
    a("SGL244", False, "0.5.10: flashinfer joins the list", sg("0.5.10", QNEXT), *FI_ATTN),
    a("SGL244", False, "0.5.19: flashinfer on SM12x", sg("0.5.19", QWEN35), *FI_ATTN),
    a("SGL244", False, "0.5.12: fa4 in the list", sg("0.5.12", QWEN35), "--attention-backend", "fa4"),
    a("SGL244", False, "0.5.9 triton", sg("0.5.9", QNEXT), "--attention-backend", "triton"),
    a("SGL244", False, "0.5.8: qwen3.5 not a hybrid GDN config yet", sg("0.5.8", QWEN35), *FI_ATTN),
    a("SGL244", False, "no backend named", sg("0.5.9", QNEXT)),
    a("SGL244", False, "prefill and decode named (0.5.19)", sg("0.5.19", QWEN35), "--attention-backend", "fa4",
      "--prefill-attention-backend", "flashinfer", "--decode-attention-backend", "triton"),
    a("SGL244", False, "not a hybrid GDN model", sg("0.5.9", QWEN30), *FI_ATTN),
    a("SGL244", False, "hopper", sg("0.5.9", QNEXT, H100), *FI_ATTN),
]
