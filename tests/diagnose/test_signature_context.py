"""What decides whether a signature's match counts: its `context` (another log line, or what the user says of the
log's machine: `--engine`, `--hardware`) and its `unless` (a line that shows another library printed the error)."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from doctor.hardware import load_profile
from doctor.pipeline.gather import with_engines
from tests.diagnose.corpus import empty_base

NO_KERNEL = b"RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
RMSNORM = b"RuntimeError: RMSNorm failed with error code no kernel image is available for execution on the device\n"


def run(log: bytes, base=None, user_says: bool = False):
    return diagnose(io.BufferedReader(io.BytesIO(log)), "t", base or empty_base(), "test", {},
                    judge_on_log_only=not user_says)


def claimed(diagnosis) -> list[str]:
    return [e.rule for e in diagnosis.explanations]


def rtx5090(*engines: str):
    return with_engines(load_profile("rtx-5090").replace(libraries={}, env={}), list(engines), pinned=False)


def test_vllm_named_by_the_user_meets_vllm001s_context():
    diagnosis = run(NO_KERNEL, rtx5090("vllm==0.9.1"), user_says=True)
    assert claimed(diagnosis)[0] == "VLLM001" and diagnosis.explanations[0].status == "confirmed"


def test_a_bare_no_kernel_image_is_not_vllms_without_vllm():
    assert "VLLM001" not in claimed(run(NO_KERNEL, rtx5090(), user_says=True))
    assert "VLLM001" not in claimed(run(NO_KERNEL))


def test_hardware_gpu_meets_the_sm12x_context_of_sgl_kernels_signature():
    assert claimed(run(RMSNORM, rtx5090(), user_says=True))[0] == "WHL001"
    assert "WHL001" not in claimed(run(RMSNORM))  # no GPU stated anywhere: not claimed on the text alone


def test_this_machines_gpu_never_meets_a_context():
    """Without --hardware/--facts/--engine the base is the machine diagnose runs on, not the log's."""
    assert "WHL001" not in claimed(run(RMSNORM, rtx5090(), user_says=False))


def test_unless_line_rules_torch_out_and_names_the_line():
    log = NO_KERNEL + b"  File \"/venv/lib/python3.12/site-packages/xformers/ops/fmha/flash.py\", line 10\n"
    diagnosis = run(log)
    assert "TORCH001" not in claimed(diagnosis)
    reasons = {r.rule: r.reason for r in diagnosis.ruled_out}
    assert "line 2" in reasons["TORCH001"] and "xformers" in reasons["TORCH001"]


def test_without_an_unless_line_torch_still_claims_the_bare_message():
    assert claimed(run(NO_KERNEL))[0] == "TORCH001"


# vLLM 0.24+ lists its SM120 sparse MLA backend among the candidates; older releases had none (VLLM022's cause)
SPARSE_MLA_024 = (b"ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=512, "
                  b"dtype=torch.bfloat16, kv_cache_dtype=fp8, block_size=None, use_mla=True, has_sink=False, "
                  b"use_sparse=True, use_mm_prefix=False). Reasons: {TRITON_MLA: [sparse not supported], "
                  b"FLASHINFER_MLA_SPARSE_SM120: [FLASHINFER_MLA_SPARSE_SM120 requires FlashInfer's sparse MLA "
                  b"decode API]}.\n")
SPARSE_MLA_OLD = (b"ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, "
                  b"dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=64, use_mla=True, has_sink=False, "
                  b"use_sparse=True)\n")


def test_a_log_that_lists_the_sm120_sparse_mla_backend_is_not_vllm022s():
    diagnosis = run(SPARSE_MLA_024, rtx5090(), user_says=True)
    assert "VLLM022" not in claimed(diagnosis)
    assert any(r.rule == "VLLM022" and "SM120 sparse MLA backend" in r.reason for r in diagnosis.ruled_out)


def test_a_log_without_it_still_is():
    assert "VLLM022" in claimed(run(SPARSE_MLA_OLD, rtx5090(), user_says=True))


OOR = (b"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 116992, "
       b"Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n")


def test_the_generic_triton_line_is_sm12xs_only_where_an_sm12x_gpu_is_named():
    """101376 B is also the Ampere/Ada limit: TRI010 needs the log or --hardware to name an SM12x GPU."""
    assert "TRI010" not in claimed(run(OOR))
    assert "TRI010" not in claimed(run(b"GPU 0: NVIDIA GeForce RTX 4090\n" + OOR))
    assert claimed(run(b"GPU 0: NVIDIA GeForce RTX 5090\n" + OOR))[0] == "TRI010"
    assert claimed(run(OOR, rtx5090(), user_says=True))[0] == "TRI010"


def test_a_kernel_with_its_own_rule_keeps_the_line():
    frame = b'  File "/sgl/python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py", line 10, in invoke\n'
    diagnosis = run(b"GPU 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition\n" + frame + OOR)
    assert claimed(diagnosis)[0] == "SGL102" and "TRI010" not in claimed(diagnosis)


def test_an_illegal_memory_access_is_flashinfers_fp8_scaled_mm_only_where_vllm_selected_it():
    ima = (b"(EngineCore pid=134) ERROR 07-02 22:10:01 [core.py:1348] RuntimeError: CUDA error: an illegal memory "
           b"access was encountered\n")
    selected = (b"(EngineCore pid=134) INFO 07-02 21:27:53 [__init__.py:594] Selected "
                b"FlashInferFP8ScaledMMLinearKernel for ModelOptFp8LinearMethod\n")
    assert "ATTN002" not in claimed(run(ima))
    assert "ATTN002" in claimed(run(selected + ima))


def test_an_illegal_memory_access_is_flashinfer_attentions_only_where_vllm_picked_it():
    ima = b"(EngineCore_DP0 pid=210) RuntimeError: CUDA error: an illegal memory access was encountered\n"
    picked = (b"(EngineCore_DP0 pid=210) INFO 08-28 10:00:01 [cuda.py:478] Using AttentionBackendEnum.FLASHINFER "
              b"backend.\n")
    assert "ATTN010" not in claimed(run(ima))
    diagnosis = run(picked + ima)
    assert "ATTN010" in claimed(diagnosis)
    assert all(e.severity == "warning" for e in diagnosis.explanations if e.rule == "ATTN010")


def test_tritons_compile_target_names_the_gpu():
    """Triton prints its GPUTarget with compile errors: arch=120 is an SM12x GPU, arch=89 says nothing of one."""
    sm120 = OOR + b"  target: GPUTarget(backend='cuda', arch=120, warp_size=32)\n"
    ada = OOR + b"  target: GPUTarget(backend='cuda', arch=89, warp_size=32)\n"
    assert claimed(run(sm120))[0] == "TRI010"
    assert "TRI010" not in claimed(run(ada))
