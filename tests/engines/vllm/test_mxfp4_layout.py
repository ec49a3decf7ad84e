"""Which MXFP4 expert layout the vLLM memory model lays gpt-oss out in, per GPU, release and environment."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.vllm.memory import VLLMMemory, hopper_triton_mxfp4_extra
from doctor.probe.model import load_model

GiB = 1 << 30


@pytest.mark.parametrize(("release", "capability", "env", "triton"), [
    ("0.14.1", (9, 0), {}, True),
    ("0.18.0", (9, 0), {}, True),
    ("0.11.0", (9, 0), {}, False),  # torch 2.8.0: the Hopper swizzle is off
    ("0.20.0", (9, 0), {}, False),  # the MoE oracle rewrite: not read
    ("0.14.1", (9, 0), {"VLLM_MXFP4_USE_MARLIN": "1"}, False),
    ("0.14.1", (9, 0), {"VLLM_USE_FLASHINFER_MOE_MXFP4_BF16": "1"}, False),
    ("0.14.1", (12, 0), {}, False),  # SM12x runs Marlin
    ("0.14.1", (10, 0), {}, False),  # FlashInfer's SM100 paths
])
def test_hopper_triton_layout_only_where_vllm_builds_it(release, capability, env, triton):
    assert VLLMMemory(Version(release), capability, env=env).hopper_triton_mxfp4() is triton


def test_swizzled_scales_and_f32_biases_of_gpt_oss_120b():
    model = load_model("openai/gpt-oss-120b", {}, offline=True)
    # 36 layers x 128 experts x (5888 x 90 + 3072 x 90 scale bytes + (5760 + 2880) x 2 bias bytes)
    assert hopper_triton_mxfp4_extra(model, 1, 128) == 36 * 128 * (5888 * 90 + 3072 * 90 + 8640 * 2)
    # TP 2: 1440 rounds up to 1472 (64), 2 x 1472 rows to 3072, 1472 / 32 to 46 columns
    assert hopper_triton_mxfp4_extra(model, 2, 128) == 36 * 128 * (3072 * 90 + 3072 * 46 + (2944 + 2880) * 2)
