"""The SGLang and FlashInfer facts SGL240-SGL243 rest on, re-read from the real wheels (slow: downloads).

docs/rules/audit.toml cites them; when a release changes one, the rule's scope must move with it:
- SGL240: `Fp8MoEMethod.create_moe_runner` builds no runner for flashinfer_cutlass through 0.5.19 and falls back
  to Triton from 0.5.20, while `apply()` dereferences `self.runner`;
- SGL241: FA4 CuTe asserts SM100 for FP8 inputs while admitting capability 12 for 16-bit ones;
- SGL242: `Mxfp4MoEMethod.create_moe_runner` ends in `pass` (0.5.11-0.5.19) or raises (0.5.20 on) for backends it
  has no branch for, flashinfer_cutlass among them;
- SGL243: SGLang's trtllm_mha prefill casts the query to FP8 and calls FMHAv2 on SM12x, and every FlashInfer
  release SGLang 0.5.19-0.5.23 pin refuses an e4m3 query on SM12x.
Run with `pytest -m slow tests/rules/test_scope_sources_know_sgl2_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import re

import pytest

from tests.wheels import wheel_text as member

pytestmark = [pytest.mark.slow, pytest.mark.wheel]


def method(source: str, cls: str, name: str) -> str:
    body = source[source.index(f"class {cls}"):]
    end = body.find("\nclass ", 10)
    body = body[:end] if end > 0 else body
    start = body.index(f"def {name}(")
    stop = body.find("\n    def ", start + 10)
    return body[start:stop if stop > 0 else None]


@pytest.mark.parametrize(("version", "falls_back"), [
    ("0.5.9", False), ("0.5.13", False), ("0.5.19", False), ("0.5.20", True), ("0.5.23", True),
])
def test_sgl240_fp8_moe_runner_for_flashinfer_cutlass(version, falls_back):
    fp8 = member("sglang", version, "sglang/srt/layers/quantization/fp8.py")
    create = method(fp8, "Fp8MoEMethod", "create_moe_runner")
    assert ("is_flashinfer_cutlass()" in create) is falls_back
    assert "self.runner = MoeRunner(" in create
    assert "self.runner.runner_backend.is_deep_gemm()" in method(fp8, "Fp8MoEMethod", "apply")


@pytest.mark.parametrize(("version", "path"), [
    ("0.5.16", "sglang/jit_kernel/flash_attn/cute/interface.py"),
    ("0.5.20", "sglang/kernels/ops/attention/flash_attn/cute/interface.py"),
    ("0.5.23", "sglang/kernels/ops/attention/flash_attn/cute/interface.py"),
])
def test_sgl241_fa4_fp8_asserts_sm100(version, path):
    source = member("sglang", version, path)
    assert "is_fp8 = v.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)" in source
    assert re.search(r"arch // 10 == 10\s*\),\s*\"FP8 is only supported on SM100 \(compute capability 10\.x\) "
                     r"for FA4 CuTe\.\"", source)


@pytest.mark.parametrize(("version", "raises"), [("0.5.11", False), ("0.5.17", False), ("0.5.19", False),
                                                 ("0.5.20", True), ("0.5.23", True)])
def test_sgl242_mxfp4_moe_has_no_flashinfer_cutlass_runner(version, raises):
    mxfp4 = member("sglang", version, "sglang/srt/layers/quantization/mxfp4.py")
    create = method(mxfp4, "Mxfp4MoEMethod", "create_moe_runner")
    assert "is_flashinfer_cutlass()" not in create
    assert ("Mxfp4MoEMethod has no MoeRunner for backend=" in create) is raises
    assert "return self.runner.run(dispatch_output, quant_info)" in method(mxfp4, "Mxfp4MoEMethod", "apply")


@pytest.mark.parametrize("version", ["0.5.19", "0.5.23"])
def test_sgl243_trtllm_mha_prefill_casts_fp8_query_into_fmha_v2(version):
    source = member("sglang", version, "sglang/srt/layers/attention/trtllm_mha_backend.py")
    assert "self.use_fmha_v2 = get_platform().is_sm90 or get_platform().is_sm120" in source
    assert "q = q.to(torch.float8_e4m3fn)" in source
    assert "trtllm_fmha_v2_prefill" in source


@pytest.mark.parametrize("version", ["0.6.18", "0.7.1", "0.7.2"])
def test_sgl243_flashinfer_fmha_v2_refuses_e4m3_on_sm12x(version):
    prefill = member("flashinfer-python", version, "flashinfer/prefill.py")
    guard = prefill[prefill.index("def trtllm_fmha_v2_prefill("):]
    assert re.search(r"if is_e4m3:\s*if is_sm12x_supported\(query\.device\):\s*raise ValueError\(\s*"
                     r"\"FP8 \(e4m3\) is not yet supported for FMHAv2 on SM120 \(Blackwell\)\. \"", guard)


@pytest.mark.parametrize(("version", "allowed"), [
    ("0.5.5", {"triton"}),
    ("0.5.9", {"triton", "trtllm_mha"}),
    ("0.5.12", {"triton", "trtllm_mha", "fa4", "flashinfer"}),
    ("0.5.16", {"triton", "trtllm_mha", "flashinfer"}),
    ("0.5.23", {"triton", "trtllm_mha", "flashinfer"}),
])
def test_sgl244_hybrid_gdn_backend_list_on_sm12x(version, allowed):
    registry = member("sglang", version, "sglang/srt/layers/attention/attention_registry.py")
    gate = registry[:registry.index("for hybrid GDN models")]
    gate = gate[gate.rindex("if is_blackwell()"):]
    sm120 = re.search(r"is_sm120[^\n]*\n\s*allowed = \{([^}]*)\}", gate)
    found = ({name.strip().strip('"') for name in sm120.group(1).split(",")} if sm120
             else set(re.findall(r'attention_backend == "(\w+)"', gate)))
    assert found == allowed


@pytest.mark.parametrize(("version", "majors"), [("0.5.4.post1", "== 10"), ("0.5.4.post2", "in [10, 12]")])
def test_sgl244_is_blackwell_counts_sm12x_from_0_5_4_post2(version, majors):
    common = member("sglang", version, "sglang/srt/utils/common.py")
    body = common[common.index("def is_blackwell("):][:250]
    assert f"get_device_capability()[0] {majors}" in body
