"""The signature of rules/encode_rest.toml's SGL330 on the line SGLang prints. flashinfer_gemm_w8a8_block_fp8_linear_
with_fallback (sglang/srt/layers/quantization/fp8_utils.py, 0.5.10-0.5.23) builds its assertion message from
`tuple(weight_scale.shape)`, `expected_weight_scale_shape`, the strides and m, n, k, block_size; flashinfer#2787
reports the assert in prose without the log, so these lines are the source's format with GLM-5-FP8's fused
q_a + kv_a projection (n = 2624, k = 6144), not a report's."""

from __future__ import annotations

from tests.diagnose.corpus import claimed
from tests.diagnose.corpus import profile_base as profile

FRAME = ('  File "/sgl-workspace/sglang/python/sglang/srt/layers/quantization/fp8_utils.py", line 521, in '
         'flashinfer_gemm_w8a8_block_fp8_linear_with_fallback\n    assert weight_scale.shape == '
         'expected_weight_scale_shape, (\n')
B_SCALE = ("AssertionError: FlashInfer CUTLASS groupwise FP8 expects B scale layout (k//block_k, n//block_n) for "
           "scale_major_mode='MN', got (21, 48); expected (48, 20). strides=(48, 1) is_contiguous=True m=8192 "
           "n=2624 k=6144 block_size=[128, 128]\n")
A_SCALE = ("AssertionError: FlashInfer CUTLASS groupwise FP8 expects A scale layout (k//block_k, m) for "
           "scale_major_mode='MN', got (8192, 48); expected (48, 8192). strides=(1, 8192) is_contiguous=False "
           "m=8192 n=2624 k=6144 block_size=[128, 128]\n")



def test_the_b_scale_assert_is_sgl330s():
    assert claimed(FRAME + B_SCALE)[:1] == ["SGL330"]


def test_on_sm120_and_gb10():
    assert claimed(FRAME + B_SCALE, profile("rtx-pro-6000-x8"))[:1] == ["SGL330"]
    assert claimed(B_SCALE, profile("dgx-spark"))[:1] == ["SGL330"]


def test_the_a_scale_assert_is_not_claimed_by_it():
    assert "SGL330" not in claimed(FRAME + A_SCALE)


SERVER_ARGS = ("[2026-03-15 10:00:00] server_args=ServerArgs(model_path='zai-org/GLM-5-FP8', tp_size=8, "
               "fp8_gemm_runner_backend='{backend}', kv_cache_dtype='auto')\n")


def test_the_server_args_field_reaches_check_as_the_flag():
    """ServerArgs prints `fp8_gemm_runner_backend`; the flag is `--fp8-gemm-backend`: with the log's own flag the
    deployment confirms SGL330, with the default it rules it out."""
    base = profile("rtx-pro-6000-x8", "sglang==0.5.10")
    assert claimed(SERVER_ARGS.format(backend="flashinfer_cutlass") + B_SCALE, base)[:1] == ["SGL330"]
    assert "SGL330" not in claimed(SERVER_ARGS.format(backend="triton") + B_SCALE, base)


PE_DIM_0_28 = ("RuntimeError: concat_and_cache_mla, /workspace/csrc/libtorch_stable/cache_kernels.cu:928,\n"
               "pe_dim must be 64 for fp8_ds_mla\n")
PE_DIM_0_31 = ("RuntimeError: concat_and_cache_mla, /workspace/csrc/libtorch_stable/cache_kernels.cu:950,\n"
               "pe_dim must be 64 or 0 for fp8_ds_mla\n")
PE_DIM_NVFP4 = "RuntimeError: concat_and_cache_mla, cache_kernels.cu:990, pe_dim must be 64 for nvfp4_ds_mla\n"


def test_the_pre_0_31_pe_dim_line_is_vllm220s():
    assert claimed(PE_DIM_0_28, profile("rtx-pro-6000-x8"))[:1] == ["VLLM220"]
    assert claimed(PE_DIM_0_28, profile("dgx-spark"))[:1] == ["VLLM220"]


def test_the_0_31_check_and_the_nvfp4_writer_are_not_its():
    """0.31.0 accepts pe_dim 0: its line means another pe_dim; nvfp4_ds_mla is another KV format."""
    assert "VLLM220" not in claimed(PE_DIM_0_31, profile("rtx-pro-6000-x8"))
    assert "VLLM220" not in claimed(PE_DIM_NVFP4, profile("rtx-pro-6000-x8"))


def test_not_claimed_on_hopper():
    assert "VLLM220" not in claimed(PE_DIM_0_28, profile("h100-sxm-x8"))
