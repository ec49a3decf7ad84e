"""The signatures of rules/force_vllm.toml on the lines vLLM prints. Each line is the raise string of the wheel the
rule reads (oracle/mxfp4.py, oracle/fp8.py and oracle/nvfp4.py of 0.15.0/0.21.0, the reason modular_kernel.py
appends), inside the traceback frame vLLM prints it from. The texts are printed on other GPUs too (Ampere, Ada,
Hopper, Thor), so each is claimed only beside an SM12x GPU."""

from __future__ import annotations

from tests.diagnose.corpus import claimed
from tests.diagnose.corpus import profile_base as profile

ORACLE = "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/oracle"
MXFP4_BF16 = (f'  File "{ORACLE}/mxfp4.py", line 389, in select_mxfp4_moe_backend\n'
              "    raise ValueError(\n"
              "ValueError: VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1 is set but the current device capability is not "
              "supported. Only SM90 (CUTLASS) and SM100+ (TRTLLM) are supported.\n")
MXFP4_MXFP8 = (f'  File "{ORACLE}/mxfp4.py", line 340, in _return_or_raise\n'
               "    raise ValueError(_make_log_unsupported(backend, reason))\n"
               "ValueError: Mxfp4 MoE backend 'FLASHINFER_TRTLLM_MXFP4_MXFP8' does not support the deployment "
               "configuration since kernel does not support current device cuda.\n")
FP8_FLASHINFER = (f'  File "{ORACLE}/fp8.py", line 355, in select_fp8_moe_backend\n'
                  "    raise NotImplementedError(\n"
                  "NotImplementedError: Found VLLM_USE_FLASHINFER_MOE_FP8=1, but no FlashInfer FP8 MoE backend "
                  "supports the configuration.\n")
FP8_CUTLASS = (f'  File "{ORACLE}/fp8.py", line 281, in _return_or_raise\n'
               "ValueError: FP8 MoE backend FLASHINFER_CUTLASS does not support the deployment configuration since "
               "kernel does not support quantization scheme QuantKey(f8e4m3fn,scale(f32,static,GroupShape(row=128, "
               "col=128)),symmetric)xQuantKey(f8e4m3fn,scale(f32,dynamic,GroupShape(row=1, col=128)),symmetric).\n")
DEEPGEMM = (f'  File "{ORACLE}/fp8.py", line 281, in _return_or_raise\n'
            "ValueError: FP8 MoE backend DEEPGEMM does not support the deployment configuration since kernel does "
            "not support current device cuda.\n")
FP4_0150 = (f'  File "{ORACLE}/nvfp4.py", line 230, in select_nvfp4_moe_backend\n'
            "NotImplementedError: Found VLLM_USE_FLASHINFER_MOE_FP4=1, but no FlashInfer NVFP4 MoE backend supports "
            "the configuration.\n")
TRTLLM_FLAG = (f'  File "{ORACLE}/mxfp4.py", line 356, in select_mxfp4_moe_backend\n'
               "ValueError: Mxfp4 MoE backend 'FLASHINFER_TRTLLM_MXFP4_BF16' does not support the deployment "
               "configuration since kernel does not support current device cuda.\n")  # --moe-backend flashinfer_trtllm
CUTEDSL_FLAG = (f'  File "{ORACLE}/nvfp4.py", line 215, in _return_or_raise\n'
                "ValueError: NvFp4 MoE backend 'FLASHINFER_CUTEDSL' does not support the deployment configuration "
                "since kernel does not support current device cuda.\n")
GB10_LINE = "INFO 06-12 10:01:02 [cuda.py:120] Device: NVIDIA GB10, compute capability 12.1\n"



def test_each_refusal_on_sm12x_is_its_rule():
    assert claimed(MXFP4_BF16, profile("dgx-spark", "vllm==0.21.0"))[:1] == ["VLLM250"]
    assert claimed(MXFP4_MXFP8, profile("dgx-spark", "vllm==0.22.0"))[:1] == ["VLLM251"]
    assert claimed(FP8_FLASHINFER, profile("rtx-pro-6000", "vllm==0.21.0"))[:1] == ["VLLM252"]
    assert claimed(FP8_CUTLASS, profile("rtx-5090", "vllm==0.19.0"))[:1] == ["VLLM252"]
    assert claimed(DEEPGEMM, profile("rtx-pro-6000", "vllm==0.20.0"))[:1] == ["VLLM253"]
    assert claimed(FP4_0150, profile("rtx-pro-6000", "vllm==0.15.0"))[:1] == ["VLLM254"]


def test_a_log_that_names_its_gb10_needs_no_base():
    assert claimed(GB10_LINE + MXFP4_MXFP8)[:1] == ["VLLM251"]
    assert claimed(GB10_LINE + MXFP4_BF16)[:1] == ["VLLM250"]


def test_the_refusals_without_an_sm12x_gpu_are_not_claimed():
    for log, rule in ((MXFP4_BF16, "VLLM250"), (MXFP4_MXFP8, "VLLM251"), (FP8_FLASHINFER, "VLLM252"),
                      (DEEPGEMM, "VLLM253"), (FP4_0150, "VLLM254")):
        assert rule not in claimed(log), rule  # no GPU in the log
        assert rule not in claimed(log, profile("h100-sxm-x8", "vllm==0.21.0")), rule


def test_a_release_outside_the_window_rules_the_refusal_out():
    assert "VLLM254" not in claimed(FP4_0150, profile("rtx-pro-6000", "vllm==0.21.0"))  # 0.15.1+ take CUTLASS
    assert "VLLM253" not in claimed(DEEPGEMM, profile("rtx-pro-6000", "vllm==0.24.0"))


def test_a_named_backend_refused_on_its_device_test_is_vllm255():
    """vllm#41477's --moe-backend flashinfer_trtllm on GB10, and CuTe DSL NVFP4 on an RTX PRO 6000."""
    assert claimed(TRTLLM_FLAG, profile("dgx-spark", "vllm==0.20.0"))[:1] == ["VLLM255"]
    assert claimed(GB10_LINE + TRTLLM_FLAG)[:1] == ["VLLM255"]
    assert claimed(CUTEDSL_FLAG, profile("rtx-pro-6000", "vllm==0.21.0"))[:1] == ["VLLM255"]
    assert "VLLM251" not in claimed(TRTLLM_FLAG, profile("dgx-spark", "vllm==0.20.0"))  # not the MXFP8 variable


def test_the_env_var_rules_rank_before_vllm255():
    assert claimed(MXFP4_MXFP8, profile("dgx-spark", "vllm==0.22.0"))[:1] == ["VLLM251"]
    assert claimed(DEEPGEMM, profile("rtx-pro-6000", "vllm==0.20.0"))[:1] == ["VLLM253"]


def test_a_named_backend_refused_elsewhere_is_not_vllm255():
    assert "VLLM255" not in claimed(TRTLLM_FLAG)
    assert "VLLM255" not in claimed(CUTEDSL_FLAG, profile("h100-sxm-x8", "vllm==0.21.0"))
