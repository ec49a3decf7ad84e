"""The engine facts the error-rule scopes rest on, re-read from the real wheels on PyPI (slow: downloads).

docs/rules/AUDIT.md cites these lines; when a release changes one of them the scope must move with it:
- ATTN001: the flashinfer-python each vLLM release pins (doctor/data/vllm/flashinfer-pins.json);
- VLLM002: which FP8 MoE methods may take vLLM's CUTLASS grouped GEMM on SM12x, per release;
- ATTN004: how each release serves an NVFP4 KV cache on SM12x;
- SGL107: where SGLang's trtllm_mha has SM12x paths; CKPT001: where SGLang stops fusing BF16 shared experts.
Run with `pytest -m slow tests/rules/test_scope_sources_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import json
import re
import zipfile

import pytest

from tests.wheels import REPO, download_wheel

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

PINS = json.loads((REPO / "doctor" / "data" / "vllm" / "flashinfer-pins.json").read_text())


def wheel_text(package: str, version: str, member: str) -> str:
    """One file of the wheel, as text (`*/METADATA` for the dist-info's METADATA)."""
    with zipfile.ZipFile(download_wheel(package, version)) as wheel:
        names = wheel.namelist()
        name = next(n for n in names if n.endswith(".dist-info/METADATA")) if member == "*/METADATA" else member
        return wheel.read(name).decode("utf-8")


@pytest.mark.parametrize("version", ["0.19.1", "0.20.0", "0.20.2", "0.21.0", "0.27.1", "0.33.0"])
def test_flashinfer_pin_is_the_wheels_requirement(version):
    metadata = wheel_text("vllm", version, "*/METADATA")
    pinned = re.findall(r"^Requires-Dist:\s*flashinfer-python\s*==\s*([^\s;,]+)", metadata, re.M)
    assert pinned == [PINS[version]["flashinfer-python"]["version"]]


CT = "vllm/model_executor/layers/quantization/compressed_tensors/"


def test_vllm_0130_takes_cutlass_fp8_moe_only_on_exact_capability_90_100():
    config = wheel_text("vllm", "0.13.0", CT + "compressed_tensors.py")
    for capability in (90, 100):
        assert re.search(rf"_check_scheme_supported\(\s*{capability}, error=False, match_exact=True\s*\)", config)
    moe = wheel_text("vllm", "0.13.0", CT + "compressed_tensors_moe.py")
    assert "self.use_cutlass = not self.block_quant and (" in moe
    assert "allow_vllm_cutlass" not in moe


def test_vllm_0140_oracle_takes_vllm_cutlass_for_any_non_block_scheme():
    oracle = wheel_text("vllm", "0.14.0", "vllm/model_executor/layers/fused_moe/oracle/fp8.py")
    assert "if allow_vllm_cutlass and not block_quant and cutlass_group_gemm_supported():" in oracle
    assert "allow_vllm_cutlass=True" in wheel_text("vllm", "0.14.0", CT + "compressed_tensors_moe.py")
    assert "allow_vllm_cutlass" not in wheel_text("vllm", "0.14.0", "vllm/model_executor/layers/quantization/fp8.py")


def test_vllm_0150_cutlass_experts_take_channel_token_and_tensor_static_only():
    cutlass = wheel_text("vllm", "0.15.0", "vllm/model_executor/layers/fused_moe/cutlass_moe.py")
    block = cutlass[cutlass.index("SUPPORTED_W_A = ["):][:300]
    assert "(kFp8StaticChannelSym, kFp8DynamicTokenSym)" in block
    assert "(kFp8StaticTensorSym, kFp8StaticTensorSym)" in block
    moe = wheel_text("vllm", "0.15.0", CT + "compressed_tensors_moe.py")
    assert "kFp8StaticTensorSym if self.static_input_scales else kFp8Dynamic128Sym" in moe
    assert "allow_vllm_cutlass=False" in wheel_text("vllm", "0.15.0", "vllm/model_executor/layers/quantization/fp8.py")


ATTENTION = "vllm/v1/attention/backends/flashinfer.py"


@pytest.mark.parametrize(("version", "marker"), [
    ("0.24.0", '"--kv-cache-dtype nvfp4 requires sm100f, "'),
    ("0.25.0", '"--kv-cache-dtype nvfp4 requires the SM100 trtllm-gen "'),
    ("0.31.0", '"SM100 trtllm-gen "'),  # f"--kv-cache-dtype {self.cache_dtype} requires the " from 0.28
])
def test_vllm_refuses_nvfp4_kv_on_sm12x(version, marker):
    source = wheel_text("vllm", version, ATTENTION)
    assert marker in source and "_nvfp4_kv_on_fa2" not in source


def test_vllm_0320_reads_nvfp4_kv_through_fa2_on_family_120():
    source = wheel_text("vllm", "0.32.0", ATTENTION)
    assert "is_device_capability_family(f) for f in (80, 90, 120)" in source
    assert 'return kv_cache_dtype == "nvfp4"' in source  # nvfp4_4over6 is refused there


SGL = "sglang/srt/"


@pytest.mark.parametrize(("version", "prefill_refused", "decode_xqa"), [
    ("0.5.9", True, False), ("0.5.10", True, True), ("0.5.18", True, True), ("0.5.19", False, True),
])
def test_sglang_trtllm_mha_paths_on_sm120(version, prefill_refused, decode_xqa):
    args = wheel_text("sglang", version, SGL + "server_args.py")
    backend = wheel_text("sglang", version, SGL + "layers/attention/trtllm_mha_backend.py")
    refused = ("TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100)" in args
               or "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)" in args)
    assert refused is prefill_refused
    assert bool(re.search(r"is_xqa_impl = .*is_sm120", backend)) is decode_xqa
    if not prefill_refused:
        assert re.search(r"use_fmha_v2 = .*is_sm120", backend)


def test_sglang_0521_modelopt_refuses_fusing_bf16_shared_experts_and_glm4_never_asks():
    quant = SGL + "layers/quantization/modelopt_quant.py"
    assert "def can_fuse_shared_expert" not in wheel_text("sglang", "0.5.20", quant)
    assert "def can_fuse_shared_expert" in wheel_text("sglang", "0.5.21", quant)
    glm4 = wheel_text("sglang", "0.5.23", SGL + "models/glm4_moe.py")
    reason = glm4[glm4.index("def shared_experts_fusion_disable_reason"):][:1500]
    assert "exclude" not in reason and "can_fuse_shared_expert" not in reason
