"""The wheel facts the sparse-MLA / DSA rules rest on (rules/sparse_mla.toml, rules/sparse_moe.toml), re-read from the
real wheels (slow: downloads). docs/rules/audit.toml cites them; when a release changes one, the rule's scope must
move with it:
- DG010: vLLM's indexer builds its decode schedule with DeepGEMM whenever `deep_gemm` imports, and the DeepGEMM
  bundled in 0.24.0 and 0.27.1 has no sm120 paged MQA logits where 0.28.0 and 0.33.0 have them;
- VLLM100/VLLM102: the SM120 sparse backend refuses without FlashInfer's sparse MLA decode API (and without
  `has_flashinfer()`); 0.24.0 requires flashinfer-cubin, 0.28.0 and 0.33.0 do not;
- VLLM101: the FP4 indexer cache is family-100 only (an assertion in 0.24.0, a ValueError from 0.28.0);
- DG011: SGLang 0.5.12's DSA metadata calls deep_gemm.get_paged_mqa_logits_metadata on CUDA; sgl-deep-gemm 0.1.0
  has no sm120 paged MQA logits, 0.1.5.post3 (pinned by 0.5.18) has;
- SGL200: SGLANG_OPT_FLASHMLA_SPARSE_PREFILL defaults off in 0.5.14, on in 0.5.15; 0.5.16 keeps SM12x off;
- FI020: flashinfer-python 0.6.16.post3 (the pin of vLLM 0.27-0.28) has the Relu2 case in moeGemmBiasAct.
Run with `pytest -m slow tests/rules/test_scope_sources_know_sparse_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import re

import pytest

from tests.wheels import wheel_metadata as metadata
from tests.wheels import wheel_names as names
from tests.wheels import wheel_text as member

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

PAGED_MQA_SM120 = "deep_gemm/include/deep_gemm/impls/sm120_fp8_paged_mqa_logits.cuh"


@pytest.mark.parametrize("version", ["0.24.0", "0.27.1"])
def test_dg010_indexer_schedule_on_deep_gemm_without_a_gate(version):
    source = member("vllm", version, "vllm/v1/attention/backends/mla/indexer.py")
    call = source.index("get_paged_mqa_logits_metadata(\n")
    guard = source.rindex("if ", 0, call)
    assert source[guard:call].startswith("if current_platform.is_cuda() and has_deep_gemm():"), source[guard:call]


@pytest.mark.parametrize(("version", "has_sm120"), [("0.24.0", False), ("0.27.1", False), ("0.28.0", True),
                                                    ("0.33.0", True)])
def test_dg010_bundled_deep_gemm_sm120_paged_mqa_logits(version, has_sm120):
    assert (f"vllm/third_party/{PAGED_MQA_SM120}" in names("vllm", version)) is has_sm120


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_vllm100_sm120_sparse_backend_needs_the_decode_api(version):
    backend = member("vllm", version, "vllm/v1/attention/backends/mla/flashinfer_mla_sparse.py")
    assert "requires FlashInfer's \"\n                \"sparse MLA decode API" in backend
    utils = member("vllm", version, "vllm/utils/flashinfer.py")
    probe = utils[utils.index("def has_flashinfer_sparse_mla_sm120()"):]
    assert probe.index("if not has_flashinfer():") < probe.index("trtllm_batch_decode_sparse_mla_dsv4")


@pytest.mark.parametrize(("version", "cubin"), [("0.24.0", True), ("0.28.0", False), ("0.33.0", False)])
def test_vllm102_which_wheels_require_flashinfer_cubin(version, cubin):
    assert ("Requires-Dist: flashinfer-cubin" in metadata("vllm", version)) is cubin


def test_vllm101_fp4_indexer_cache_is_family_100_only():
    old = member("vllm", "0.24.0", "vllm/v1/attention/backends/mla/indexer.py")
    assert re.search(r"is_device_capability_family\(100\)\s+or not self\.use_fp4_indexer_cache", old)
    for version in ("0.28.0", "0.33.0"):
        new = member("vllm", version, "vllm/v1/attention/backends/mla/indexer.py")
        assert re.search(r"use_fp4 and not current_platform\.is_device_capability_family\(100\)", new)
        assert "indexer_kv_dtype='mxfp4' requires Blackwell datacenter GPUs" in new


def test_dg011_sglang_dsa_metadata_calls_deep_gemm_on_cuda():
    backend = member("sglang", "0.5.12", "sglang/srt/layers/attention/nsa_backend.py")
    assert "deep_gemm.get_paged_mqa_logits_metadata(" in backend
    assert "is_sm120" not in backend and "sm120" not in backend
    assert "Requires-Dist: sgl-deep-gemm==0.1.0" in metadata("sglang", "0.5.12")
    assert "Requires-Dist: sgl-deep-gemm==0.1.5.post3" in metadata("sglang", "0.5.18")


@pytest.mark.parametrize(("version", "has_sm120"), [("0.1.0", False), ("0.1.4.post1", False), ("0.1.5.post3", True)])
def test_dg011_sgl_deep_gemm_sm120_paged_mqa_logits(version, has_sm120):
    assert (PAGED_MQA_SM120 in names("sgl-deep-gemm", version)) is has_sm120


@pytest.mark.parametrize(("version", "default"), [("0.5.14", "False"), ("0.5.15", "True")])
def test_sgl200_sparse_prefill_default(version, default):
    environ = member("sglang", version, "sglang/srt/environ.py")
    assert f"SGLANG_OPT_FLASHMLA_SPARSE_PREFILL = EnvBool({default})" in environ


def test_sgl200_sm120_kept_off_the_sparse_prefill_from_0_5_16():
    path = "sglang/srt/layers/attention/deepseek_v4_backend.py"
    assert "and not _is_sm120" not in member("sglang", "0.5.15", path)
    assert "and not _is_sm120" in member("sglang", "0.5.16", path)


def test_fi020_relu2_case_in_the_cutlass_moe_dispatch():
    path = ("flashinfer/data/csrc/nv_internal/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/"
            "moe_gemm_template_dispatch.h")
    assert "case ActivationType::Relu2:" in member("flashinfer-python", "0.6.16.post3", path)
