"""The SGLang and DeepGEMM facts SGL170 and DG001-DG003 rest on, re-read from the real wheels (slow: downloads).

docs/rules/audit.toml cites them; when a release changes one, the rule's scope must move with it:
- SGL170: 0.5.6.post1/post2 default MHA models to trtllm_mha on `is_blackwell()` (majors 10 and 12) and refuse it
  off SM100; 0.5.6 has no such branch and 0.5.7 tests `is_sm100_supported()`;
- DG001: DeepSeek-V4 appears in 0.5.12 with its DeepGEMM switches on and no SM120 branch; 0.5.13 turns them off
  on `is_sm120_supported()`; the sgl-deep-gemm 0.1.0 it pins has no sm120 kernels, 0.1.5.post3 has;
- DG002: 0.5.3-0.5.9 put DeepGEMM before FlashInfer/Triton for block-FP8 linears when it imports, 0.5.10 forces
  Triton on SM120; the x86_64 sgl-kernel 0.3.21 bundles a `deep_gemm` with sm90/sm100 kernels only;
- DG003: no pinned sgl-deep-gemm has an sm120 mega-MoE kernel; 0.5.21 refuses megamoe off SM90/SM100.
Run with `pytest -m slow tests/rules/test_scope_sources_sgl_dg_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import re

import pytest

from tests.wheels import wheel_metadata as metadata
from tests.wheels import wheel_names as names
from tests.wheels import wheel_text as member

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

SERVER_ARGS = "sglang/srt/server_args.py"
FP8_UTILS = "sglang/srt/layers/quantization/fp8_utils.py"


@pytest.mark.parametrize(("version", "picks_trtllm_mha_on_blackwell"),
                         [("0.5.6", False), ("0.5.6.post1", True), ("0.5.6.post2", True), ("0.5.7", False)])
def test_sgl170_default_mha_backend(version, picks_trtllm_mha_on_blackwell):
    source = member("sglang", version, SERVER_ARGS)
    branch = re.search(r"elif is_blackwell\(\) and is_no_spec_infer_or_topk_one\(self\):\s*\n\s*"
                       r"self\.attention_backend = \"trtllm_mha\"", source)
    assert bool(branch) is picks_trtllm_mha_on_blackwell
    assert "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)" in source
    if picks_trtllm_mha_on_blackwell:
        common = member("sglang", version, "sglang/srt/utils/common.py")
        assert re.search(r"def is_blackwell\(\):.*?get_device_capability\(\)\[0\] in \[10, 12\]", common, re.S)


def test_dg001_deepseek_v4_first_release_and_its_sm120_branch():
    assert "sglang/srt/models/deepseek_v4.py" not in names("sglang", "0.5.11")
    v12 = member("sglang", "0.5.12", "sglang/srt/models/deepseek_v4.py")
    assert "deep_gemm.tf32_hc_prenorm_gemm(" in v12 and "SGLANG_OPT_DEEPGEMM_HC_PRENORM" in v12
    args12 = member("sglang", "0.5.12", SERVER_ARGS)
    assert "get_device_sm() < 100" in args12 and "SGLANG_OPT_FP8_WO_A_GEMM" in args12
    assert "sgl-deep-gemm==0.1.0" in metadata("sglang", "0.5.12")
    args13 = member("sglang", "0.5.13", SERVER_ARGS)
    hook = args13.index("validate_deepseek_v4_cp(self)")  # the DeepseekV4ForCausalLM branch of the model adjustments
    branch = args13[hook:hook + 1500]
    assert "if is_sm120_supported():" in branch and "SGLANG_OPT_DEEPGEMM_HC_PRENORM.set(False)" in branch


@pytest.mark.parametrize(("version", "has_sm120"), [("0.1.0", False), ("0.1.4.post1", False), ("0.1.5.post3", True)])
def test_dg001_sgl_deep_gemm_sm120_kernels(version, has_sm120):
    impls = [n for n in names("sgl-deep-gemm", version) if "/impls/sm120_" in n]
    assert bool(impls) is has_sm120
    if has_sm120:
        assert any(n.endswith("sm120_tf32_hc_prenorm_gemm.cuh") for n in impls)


@pytest.mark.parametrize("version", ["0.5.3", "0.5.5", "0.5.8", "0.5.9"])
def test_dg002_deep_gemm_comes_before_flashinfer_and_triton(version):
    source = member("sglang", version, FP8_UTILS)
    deep = source.index("return deepgemm_w8a8_block_fp8_linear_with_fallback")
    triton = source.index("return triton_w8a8_block_fp8_linear", deep)
    assert deep < triton


def test_dg002_sglang_0510_forces_triton_on_sm120():
    source = member("sglang", "0.5.10", FP8_UTILS)
    assert re.search(r'if backend == "auto" and is_sm120_supported\(\):\s*\n(?:\s*#.*\n)*\s*backend = "triton"', source)


def test_dg002_sgl_kernel_bundles_deep_gemm_without_sm120():
    listed = names("sgl-kernel", "0.3.21")
    assert "deep_gemm/__init__.py" in listed
    impls = [n for n in listed if n.startswith("deep_gemm/include/deep_gemm/impls/")]
    assert impls and not [n for n in impls if "/sm120_" in n]


@pytest.mark.parametrize("version", ["0.1.0", "0.1.5.post3", "0.2.0", "0.2.3.post2"])
def test_dg003_no_sm120_mega_moe_kernel(version):
    mega = [n for n in names("sgl-deep-gemm", version) if "/impls/" in n and "mega_moe" in n]
    assert mega and not [n for n in mega if "/sm120_" in n]


def test_dg003_sglang_0521_refuses_megamoe_off_sm90_sm100():
    hook = member("sglang", "0.5.21", "sglang/srt/arg_groups/mega_moe_hook.py")
    assert "--moe-a2a-backend megamoe needs a CUDA SM90 GPU" in hook
    assert "platform.is_sm90 or platform.is_sm100" in hook
