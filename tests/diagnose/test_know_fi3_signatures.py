"""The signatures of rules/know_fi3.toml on the lines the code prints. FlashInfer's GDN prefill launcher builds its
message as `"delta rule kernel does not support this device major version: " << device_major`
(csrc/gdn_prefill_launcher.cu, v0.6.0-v0.6.13, wrapped by FLASHINFER_ERROR as "Error in function '...' at
file:line: msg"); no public log with the line was found, so these lines are the source's format, not a report's."""

from __future__ import annotations

from tests.diagnose.corpus import claimed
from tests.diagnose.corpus import profile_base as profile

LAUNCHER = ("RuntimeError: Error in function 'gdn_prefill_launcher' at /workspace/csrc/gdn_prefill_launcher.cu:63: "
            "delta rule kernel does not support this device major version: {major}\n")
TRT_FRAME = '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/modules/mamba/gdn_mixer.py", line 70\n'
SGL_FRAME = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/attention/linear/kernels/'
             'gdn_flashinfer.py", line 262, in extend\n')
SGL_012 = ("NotImplementedError: FlashInfer GDN prefill is not supported on SM100+. "
           "Use --linear-attn-prefill-backend triton.\n")



def test_the_launchers_line_for_major_12_is_fi040s():
    assert claimed(LAUNCHER.format(major=12))[:1] == ["FI040"]


def test_no_other_major_is_claimed():
    assert claimed(LAUNCHER.format(major=10)) == []
    assert claimed(LAUNCHER.format(major=8)) == []


def test_a_tensorrt_llm_traceback_ranks_trt060_first():
    assert claimed(TRT_FRAME + LAUNCHER.format(major=12))[:2] == ["TRT060", "FI040"]


def test_an_sglang_traceback_names_sgl281():
    names = claimed(SGL_FRAME + LAUNCHER.format(major=12))
    assert "SGL281" in names and "TRT060" not in names


def test_sglang_012s_own_refusal_is_sgl280s_beside_an_sm12x_gpu_only():
    assert "SGL280" in claimed(SGL_012, profile("rtx-pro-6000", "sglang==0.5.12"))
    assert "SGL280" not in claimed(SGL_012, profile("b200-x8", "sglang==0.5.12"))
    assert "SGL280" not in claimed(SGL_012)


def test_the_thrmma_line_is_cut020s_and_cut021s_only_beside_deepseek_v4():
    line = "AttributeError: module 'cutlass.cute.core' has no attribute 'ThrMma'\n"
    assert claimed(line) == ["CUT020"]
    frame = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/models/deepseek_v4/nvidia/ops/'
             'fused_indexer_q_cutedsl.py", line 18, in <module>\n')
    assert set(claimed(frame + line)) == {"CUT020", "CUT021"}


def test_the_dsv4_sparse_mla_keyword_error_is_fi041s():
    line = ("TypeError: trtllm_batch_decode_sparse_mla_dsv4() got an unexpected keyword argument "
            "'swa_topk_lens'\n")
    assert claimed(line) == ["FI041"]
    assert claimed(line.replace("swa_topk_lens", "seq_lens")) == []


def test_sglangs_cuda_13_refusal_is_sgl284s_beside_an_sm12x_gpu_only():
    line = "ValueError: --linear-attn-prefill-backend flashinfer on SM100+ requires CUDA 13+, got CUDA 12.8\n"
    assert "SGL284" in claimed(line, profile("rtx-pro-6000", "sglang==0.5.16"))
    assert "SGL284" not in claimed(line, profile("b200-x8", "sglang==0.5.16"))
