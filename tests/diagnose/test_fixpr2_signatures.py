"""The signatures of rules/sglang_fixpr2.toml on the lines the reports quote (sglang#32933's pdmux traceback is a whole
issue body in bodies.toml; sglang#33943 and sglang#33134 are logs here) and on the raise strings of the wheels the
rules read. Each must stay unclaimed where the log or the stated machine shows another GPU or another cause."""

from __future__ import annotations

from pathlib import Path

from tests.diagnose.corpus import claimed
from tests.diagnose.corpus import profile_base as profile

LOGS = Path(__file__).parent / "logs"
DSPARK_DECODE = (LOGS / "sglang-33943-dspark-topk192-decode-sm120.log").read_text(encoding="utf-8")
DSPARK_PREFILL = (LOGS / "sglang-33134-dspark-topk192-prefill-spark.log").read_text(encoding="utf-8")
# flashinfer#5135's shape (vLLM, num_heads=16 topk=512 prefill): a missing instantiation, not the DSpark width
OTHER_SHAPE = ("tvm.error.InternalError: Check failed: (ok) is false: Unsupported sparse-MLA prefill configuration: "
               "model=DSV4 num_heads=16 topk=512 page_block_size=64 topk_extra=0 extra_page_block_size=0\n")
PDMUX = ('  File "/usr/lib/python3.12/site-packages/sglang/srt/multiplex/pdmux_context.py", line 67, in '
         "get_arch_constraints\n"
         '    raise ValueError(f"Unsupported compute capability: {major}.{minor}")\n')
FA4_INTERFACE = ("AssertionError: Unsupported compute capability: 12.1. Supported: 8.x, 9.x, 10.x, 11.x, 12.x\n")
DEEPGEMM_GB10 = ("INFO 09-20 [model_runner.py] GPU: NVIDIA GB10, capability (12, 1)\n"
                 "RuntimeError: Assertion error (/deepgemm/csrc/apis/gemm.hpp:164): Unsupported architecture or "
                 "scaling factor types\n")



def test_the_dspark_decode_fallthrough_is_fi120s():
    assert claimed(DSPARK_DECODE)[:1] == ["FI120"]
    assert claimed(DSPARK_DECODE, profile("rtx-5090", "sglang==0.5.16"))[:1] == ["FI120"]


def test_the_dspark_prefill_rejection_wrapped_over_two_lines_is_fi120s():
    assert claimed(DSPARK_PREFILL)[:1] == ["FI120"]
    assert claimed(DSPARK_PREFILL, profile("dgx-spark", "sglang==0.5.18"))[:1] == ["FI120"]


def test_the_dspark_width_is_not_claimed_off_sm12x_nor_for_another_shape():
    assert "FI120" not in claimed(DSPARK_DECODE, profile("h100-sxm-x8", "sglang==0.5.18"))
    assert "FI120" not in claimed(DSPARK_DECODE, profile("rtx-pro-6000", "sglang==0.5.15"))  # no DSPARK yet
    assert "FI120" not in claimed(OTHER_SHAPE)


def test_the_pdmux_raise_with_an_sm12x_capability_is_sgl400s():
    log = PDMUX + "ValueError: Unsupported compute capability: 12.1\n"
    assert claimed(log)[:1] == ["SGL400"]
    assert claimed(log, profile("dgx-spark", "sglang==0.5.20"))[:1] == ["SGL400"]


def test_the_pdmux_raise_elsewhere_is_not_sgl400s():
    assert "SGL400" not in claimed(PDMUX + "ValueError: Unsupported compute capability: 10.0\n")  # a B200
    assert "SGL400" not in claimed(FA4_INTERFACE)  # flash-attn's CuTe interface words its own line
    assert "SGL400" not in claimed(PDMUX + "ValueError: Unsupported compute capability: 12.0\n",
                                   profile("rtx-pro-6000", "sglang==0.5.4.post1"))  # no pdmux in that release


def test_deepgemms_assert_on_gb10_is_sgl401s():
    assert "SGL401" in claimed(DEEPGEMM_GB10, profile("dgx-spark", "sglang==0.5.18"))


def test_deepgemms_assert_elsewhere_is_not_sgl401s():
    assert "SGL401" not in claimed(DEEPGEMM_GB10, profile("dgx-spark", "sglang==0.5.21"))  # probes 121 too
    assert "SGL401" not in claimed(DEEPGEMM_GB10.replace("GB10, capability (12, 1)", "H100, capability (9, 0)"))


VLLM_REFUSAL = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/models/deepseek_v4/nvidia/flashinfer_sparse.py", '
                "line 594, in __init__\n"
                "RuntimeError: FLASHINFER_MLA_SPARSE_DSV4 on SM120 requires a FlashInfer DSV4 sparse MLA decode "
                "specialization for (num_q_heads=16, top_k=192). Install a FlashInfer build containing "
                "flashinfer-ai/flashinfer#4380.\n")
VLLM_DSPARK_ABORT = ("INFO 08-03 [arg_utils.py] speculative_config={'method': 'dspark', 'num_speculative_tokens': 7}\n"
                     "(Worker_TP0 pid=311) ERROR [multiproc_executor.py] tvm.error.InternalError: Check failed: "
                     "num_tokens > 64 (7 vs. 64) : Decode (num_tokens <= 64) must go through "
                     "sparse_mla_sm120_decode_dsv3_2 or sparse_mla_sm120_decode_dsv4; got num_tokens=7\n")


def test_vllms_own_refusal_is_fi121s():
    assert claimed(VLLM_REFUSAL, profile("rtx-pro-6000-x8", "vllm==0.28.0"))[:1] == ["FI121"]


def test_vllms_dspark_abort_is_fi121s_and_not_the_sglang_rule():
    named = claimed(VLLM_DSPARK_ABORT, profile("dgx-spark", "vllm==0.26.0"))
    assert named[:1] == ["FI121"]
    assert "FI120" not in named  # an SGLang rule stays out of a vLLM log


def test_vllms_dspark_abort_off_sm12x_is_not_fi121s():
    assert "FI121" not in claimed(VLLM_DSPARK_ABORT, profile("h100-sxm-x8", "vllm==0.26.0"))


FMHAV2_REFUSAL = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/arg_groups/attention_hook.py", '
                  "line 218, in handle_attention_backend_compatibility\n"
                  "ValueError: TRTLLM FMHAv2 prefill on SM120 does not support fp8_e4m3 KV cache or skip-softmax.\n")


def test_sglangs_own_fmhav2_fp8_refusal_is_sgl243s():
    assert claimed(FMHAV2_REFUSAL)[:1] == ["SGL243"]
    assert claimed(FMHAV2_REFUSAL, profile("dgx-spark", "sglang==0.5.21"))[:1] == ["SGL243"]


def test_the_fmhav2_refusal_with_a_release_before_the_sm120_prefill_is_not_sgl243s():
    assert "SGL243" not in claimed(FMHAV2_REFUSAL, profile("rtx-pro-6000", "sglang==0.5.18"))


def test_the_bare_check_line_from_a_dspark_warmup_is_fi120s():
    log = ("Initialized DSpark draft runner. attention_backend=dsv4, model=DeepseekV4ForCausalLMDSpark, gamma=5\n"
           '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/mla/_sparse_mla_sm120.py", line 548, in '
           "_sparse_mla_sm120_paged_attention\n"
           "TVM_FFI_ICHECK_GT(num_tokens, 64)\n")
    assert claimed(log, profile("rtx-5090", "sglang==0.5.16"))[:1] == ["FI120"]
    assert "FI120" not in claimed(log, profile("b200-x8", "sglang==0.5.16"))
