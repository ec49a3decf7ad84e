"""The signatures of rules/sweep9.toml on the raise strings of the wheels the rules read (no SM12x report quoting
them was found): SGLang's DeepSeek-V4 backend and KV-layout assertions, claimed only where the log or the stated
machine shows an SM12x GPU."""

from __future__ import annotations

from tests.diagnose.corpus import claimed
from tests.diagnose.corpus import profile_base as profile

HOOK = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/arg_groups/deepseek_v4_hook.py", line 141, in '
        "apply_deepseek_v4_defaults\n"
        '    assert cfg.device == "cuda" and is_sm100_supported(), (\n')
TRTLLM = HOOK + "AssertionError: --dsv4-attn-backend trtllm requires an SM100/SM103 (Blackwell) GPU.\n"
MEGA = HOOK + "AssertionError: --dsv4-attn-backend flashmla_mega requires DeepSeek-V4.1 on SM100/SM103.\n"
POOL = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/mem_cache/deepseek_v4_memory_pool.py", line 189, '
        "in select_dsv4_kv_layout\n"
        '    assert is_sm100, "the V4.1 KV cache layouts need an SM100 / SM103 GPU"\n'
        "AssertionError: the V4.1 KV cache layouts need an SM100 / SM103 GPU\n")
PRO = "GPU 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition\nGPU 0 Compute Capability: 12.0\n"
SPARK = "GPU 0: NVIDIA GB10\nGPU 0 Compute Capability: 12.1\n"
HOPPER = "GPU 0: NVIDIA H100 80GB HBM3\nGPU 0 Compute Capability: 9.0\n"
ARGS = "server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V4-Flash', tp_size=2, dsv4_attn_backend='{}')\n"



def test_the_trtllm_assertion_on_sm12x_is_sgl500s():
    assert claimed(PRO + "sglang: 0.5.21\n" + ARGS.format("trtllm") + TRTLLM)[:1] == ["SGL500"]
    assert claimed(SPARK + TRTLLM)[:1] == ["SGL500"]
    assert claimed(TRTLLM, profile("rtx-5090", "sglang==0.5.23"))[:1] == ["SGL500"]


def test_the_flashmla_mega_assertion_on_sm12x_is_sgl500s():
    assert claimed(PRO + MEGA)[:1] == ["SGL500"]


def test_the_v41_layout_assertion_on_sm12x_is_sgl501s():
    assert claimed(SPARK + POOL)[:1] == ["SGL501"]
    assert claimed(POOL, profile("rtx-pro-6000", "sglang==0.5.22"))[:1] == ["SGL501"]


def test_the_assertions_are_not_claimed_off_sm12x_or_without_a_gpu():
    for log in (TRTLLM, MEGA, POOL):
        assert not {"SGL500", "SGL501"} & set(claimed(HOPPER + log))
        assert not {"SGL500", "SGL501"} & set(claimed(log))  # no GPU in the log, none stated
        assert not {"SGL500", "SGL501"} & set(claimed(log, profile("h100-sxm-x8", "sglang==0.5.23")))


PREFIX = "(EngineCore_DP0 pid=412) ERROR 10-21 09:12:40 [core.py:1010] "
ORACLE = (PREFIX + '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/oracle/'
          '{}.py", line 273, in _return_or_raise\n'
          + PREFIX + "ValueError: {} MoE backend '{}' does not support the deployment configuration since kernel "
          "does not support current device {}.\n")
PRO_NAME, H100_NAME = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "NVIDIA H100 80GB HBM3"


def test_a_refused_b12x_backend_on_sm12x_is_vllm360s():
    assert claimed(ORACLE.format("nvfp4", "NvFp4", "B12X", PRO_NAME))[:1] == ["VLLM360"]
    assert claimed(ORACLE.format("mxfp4", "Mxfp4", "B12X_MXFP4_MXFP8", "NVIDIA GB10"))[:1] == ["VLLM360"]
    assert claimed(ORACLE.format("nvfp4", "NvFp4", "B12X", "cuda"),
                   profile("rtx-5090", "vllm==0.31.0"))[:1] == ["VLLM360"]


def test_other_refused_backends_and_other_gpus_are_not_vllm360s():
    assert "VLLM360" not in claimed(ORACLE.format("nvfp4", "NvFp4", "FLASHINFER_B12X", PRO_NAME))
    assert "VLLM360" not in claimed(ORACLE.format("nvfp4", "NvFp4", "FLASHINFER_TRTLLM", PRO_NAME))
    assert "VLLM360" not in claimed(ORACLE.format("nvfp4", "NvFp4", "B12X", H100_NAME))


LINEAR = (PREFIX + "ValueError: Failed to find a kernel that can implement the ScaledMM linear layer. Reasons: \n"
          + PREFIX + "B12xFp8BlockScaledMMKernel: Install the B12X backend with `pip install vllm[b12x]`\n")


def test_the_b12x_linear_install_reason_is_vllm360s():
    assert claimed(LINEAR, profile("rtx-pro-6000", "vllm==0.33.0"))[:1] == ["VLLM360"]
    assert claimed("GPU 0: NVIDIA GB10\n" + LINEAR)[:1] == ["VLLM360"]
    assert "VLLM360" not in claimed(LINEAR, profile("h100-sxm-x8", "vllm==0.33.0"))


def test_the_b12x_attention_install_reason_is_vllm360s():
    log = ("ValueError: Selected backend B12X is not valid for this configuration. Reason: ['Install the b12x backend "
           "with `pip install vllm[b12x]`']\n")
    assert claimed(log, profile("rtx-5090", "vllm==0.32.0"))[:1] == ["VLLM360"]


QSA = ('  File "/sgl-workspace/sglang/python/sglang/srt/arg_groups/model_overrides/qwen4_exp.py", line 83, in '
       "_qwen4_exp_overrides\n"
       "ValueError: --qsa-indexer-dtype fp8_e4m3 requires a CUDA SM90/SM100 GPU\n")


def test_the_fp8_qsa_indexer_refusal_on_sm12x_is_sgl502s():
    assert claimed(SPARK + QSA)[:1] == ["SGL502"]
    assert claimed(QSA, profile("rtx-pro-6000", "sglang==0.5.23"))[:1] == ["SGL502"]
    assert "SGL502" not in claimed(QSA)  # no GPU shown or stated
    assert "SGL502" not in claimed(HOPPER + QSA)


ONLINE = "ValueError: --quantization nvfp4_online is supported only on NVIDIA Blackwell SM100/SM103 GPUs.\n"


def test_the_nvfp4_online_refusal_on_sm12x_is_sgl503s():
    assert claimed(PRO + ONLINE)[:1] == ["SGL503"]
    assert claimed(ONLINE, profile("dgx-spark", "sglang==0.5.21"))[:1] == ["SGL503"]
    assert "SGL503" not in claimed(HOPPER + ONLINE)


ROUNDING = ("ValueError: Stochastic rounding for the Mamba SSM cache with --mamba-backend triton requires SM100 with "
            "CUDA >= 12.8 because it uses the cvt.rs.f16x2.f32 PTX instruction. On H100/SM90, run with --mamba-backend "
            "flashinfer --mamba-ssm-dtype float16, or disable --enable-mamba-cache-stochastic-rounding.\n")


def test_sglangs_stochastic_rounding_refusal_on_sm12x_is_sgl504s():
    assert claimed(SPARK + ROUNDING)[:1] == ["SGL504"]
    assert "SGL504" not in claimed(HOPPER + ROUNDING)


def test_a_b12x_backend_refused_for_its_parallel_config_is_vllm361s():
    log = ORACLE.format("nvfp4", "NvFp4", "B12X", "X").replace(
        "current device X", "parallel config FusedMoEParallelConfig(tp_size=1, ep_size=2, use_ep=True)")
    assert claimed(log)[:1] == ["VLLM361"]
    assert "VLLM360" not in claimed(log)
