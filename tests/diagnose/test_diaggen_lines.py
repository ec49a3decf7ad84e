"""KRN140 (rules/diaggen.toml) on the lines users paste: a GPU kernel library's `Unsupported architecture` refusal is
named on an SM12x GPU, with the library the words before it show (doctor/diagnose/arch_gate.py), and stays off the
same words on Hopper or datacenter Blackwell, without a GPU, with more text after them, and where a rule for the
exact wording exists (it ranks first)."""

from __future__ import annotations

import pytest

from tests.diagnose.corpus import diagnose_text, profile_base, rules_named

# The seventh held-out sample's F15 log (vllm#51959: vLLM's DeepGEMM pin on an RTX PRO 6000), as quoted.
BARE = b"Unsupported architecture\n"
TVM = b"tvm.error.InternalError: Unsupported architecture\n"
FMHA = (b"RuntimeError: Error in function 'TllmGenFmhaRunner' at /usr/local/lib/python3.12/dist-packages/flashinfer/"
        b"data/include/flashinfer/trtllm/fmha/fmhaRunner.cuh:37: Unsupported architecture\n")
# flashinfer#3263's form through FlashInfer's TVM-FFI op, and TensorRT-LLM's assertion with its (FILE:LINE)
TVM_FMHA = (b"tvm.error.InternalError: Error in function 'TllmGenFmhaRunner' at /venv/lib/python3.12/site-packages/"
            b"flashinfer/data/include/flashinfer/trtllm/fmha/fmhaRunner.cuh:37: Unsupported architecture\n")
TRTLLM = (b"RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Unsupported architecture "
          b"(/src/tensorrt_llm/cpp/tensorrt_llm/kernels/contextFusedMultiHeadAttention/fmhaRunner.cpp:87)\n")
DEEPGEMM = b"RuntimeError: Assertion error (csrc/apis/hyperconnection.hpp:63): Unsupported architecture\n"
NEAR_MISSES = {
    "an installer's CPU check": b"ERROR: Unsupported architecture: aarch64\n",
    "lower case, another sentence": b"error: unsupported architecture\n",
    "FlashMLA's own wording (GATE003's)": b"RuntimeError: Unsupported architecture for sparse decode fwd\n",
    "a preprocessor #error": b'error: #error "Unsupported architecture"\n',
    "a CPU arch in parentheses": b"RuntimeError: Unsupported architecture (x86_64)\n",
}


def explanations(log: bytes, profile: str | None, *engines: str):
    diagnosis = diagnose_text(log, profile_base(profile, *engines) if profile else None)
    return {e.rule: e for e in diagnosis.explanations}, rules_named(diagnosis)


@pytest.mark.parametrize("profile", ["rtx-pro-6000", "rtx-5090", "dgx-spark"])
def test_the_bare_line_is_named_on_sm12x(profile):
    found, named = explanations(BARE, profile, "vllm==0.24.0")
    assert named[0] == "KRN140"
    assert "not named by the line" in found["KRN140"].message
    assert found["KRN140"].message.startswith("If a GPU kernel library printed this line")  # the bare line: a condition


@pytest.mark.parametrize("profile", ["h100-sxm-x8", "b200-x8"])
def test_the_same_line_on_hopper_or_datacenter_blackwell_is_not(profile):
    assert "KRN140" not in explanations(BARE, profile, "vllm==0.24.0")[1]


def test_no_gpu_stated_no_claim():
    assert "KRN140" not in explanations(BARE, None)[1]


@pytest.mark.parametrize("why", sorted(NEAR_MISSES))
def test_near_misses_are_not_claimed(why):
    assert "KRN140" not in explanations(NEAR_MISSES[why], "dgx-spark", "vllm==0.24.0")[1]


def test_the_words_before_it_name_the_library():
    tvm, _ = explanations(TVM, "dgx-spark", "sglang==0.5.23")
    assert "TVM-FFI" in tvm["KRN140"].message and "FlashInfer" in tvm["KRN140"].message
    fmha, _ = explanations(FMHA, "rtx-5090")
    assert "trtllm-gen FMHA runner" in fmha["KRN140"].message
    tvm_fmha, _ = explanations(TVM_FMHA, "rtx-pro-6000", "sglang==0.5.23")
    assert "FlashInfer's trtllm-gen FMHA runner" in tvm_fmha["KRN140"].message
    trtllm, _ = explanations(TRTLLM, "rtx-5090")
    assert "TensorRT-LLM's own kernels" in trtllm["KRN140"].message


def test_a_rule_for_the_exact_wording_ranks_first():
    found, named = explanations(DEEPGEMM, "rtx-pro-6000")
    assert "KRN030" in named and named[-1] == "KRN140"  # the DeepGEMM rules first, the catch-all last
    assert "DeepGEMM" in found["KRN140"].message


def fix_summaries(log: bytes, profile: str) -> list[str]:
    found, _ = explanations(log, profile)
    return [fix.summary for fix in found["KRN140"].fixes]


def test_the_fixes_are_the_engine_s_the_log_names():
    vllm = fix_summaries(b"INFO 07-01 10:00:00 [api_server.py:1] vLLM API server version 0.24.0\n" + TVM,
                         "rtx-pro-6000")
    assert any(f.startswith("vLLM:") for f in vllm) and not any(f.startswith("SGLang") for f in vllm)
    sglang = fix_summaries(b"docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server\n" + TVM,
                           "rtx-pro-6000")
    assert not any(f.startswith("vLLM:") for f in sglang)
    assert any("--dsa-prefill-backend tilelang" in f for f in sglang)  # SGL140's DSA backends from 0.5.18
    before_dsa = fix_summaries(b"docker run --gpus all lmsysorg/sglang:v0.5.9 python3 -m sglang.launch_server\n" + TVM,
                               "rtx-pro-6000")
    assert any(f.startswith("SGLang:") for f in before_dsa)
    assert not any("--dsa-prefill-backend" in f for f in before_dsa)
    neither = fix_summaries(TVM, "rtx-pro-6000")  # a log that names no engine: every engine's fix
    assert any(f.startswith("vLLM:") for f in neither) and any(f.startswith("SGLang:") for f in neither)
