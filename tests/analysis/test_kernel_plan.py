"""The kernel plan: which SGLang Triton kernels, which configs, how many bytes — per model, GPU, version."""

import dataclasses
import json
import shutil

import pytest

from doctor.hardware import load_profile
from doctor.launch import parse_launch
from doctor.pipeline.analysis import analyze
from doctor.pipeline.facts import Library
from doctor.pipeline.gather import with_engines
from doctor.probe.model import load_model
from tests.wheels import unpacked_wheel


def kernels(profile, model, engines=(), launch=(), libraries=None, gpu_name=None, env=None):
    facts = with_engines(load_profile(profile), engines).replace(model=load_model(model, {}))
    if libraries:
        facts = facts.replace(libraries={**facts.libraries, **libraries})
    if gpu_name:
        facts = facts.replace(gpus=tuple(dataclasses.replace(g, name=gpu_name) for g in facts.gpus))
    if env:
        facts = facts.replace(env=env)
    return analyze(facts, parse_launch(list(launch))).kernels


def by_path(checks):
    return {(k.kernel, k.path): k for k in checks}


def test_glm47_fp8_tp8_on_058_default_config_overflows():
    checks = by_path(kernels("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", ["sglang==0.5.8"]))
    large = checks[("fused_moe", "default config, M > E")]
    assert (large.shape["E"], large.shape["N"], large.shape["K"]) == (161, 192, 5120)  # shared expert fused
    assert large.shape["dtype"] == "fp8_w8a8" and large.shape["per_channel"]
    assert large.bytes == 147456 and not large.fits
    assert large.details["config_file"] == ("E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,"
                                            "dtype=fp8_w8a8,per_channel_quant=True.json")
    assert any("Max-Q" in f for f in large.details["other_devices"])
    assert checks[("fused_moe", "default config, M <= E")].bytes == 73728


def test_glm47_fp8_on_0514_low_smem_default_fits():
    checks = [k for k in kernels("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", ["sglang==0.5.14"])
              if k.kernel == "fused_moe"]
    assert all(k.fits for k in checks) and max(k.bytes for k in checks) == 73728


def test_ep_and_tp_change_e_and_n():
    checks = kernels("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", ["sglang==0.5.8"],
                     launch=["--tp-size", "8", "--ep-size", "2"])
    moe = next(k for k in checks if k.kernel == "fused_moe")
    assert (moe.shape["E"], moe.shape["N"]) == (80, 384)  # no fusion with EP; moe_tp = 4


def test_marlin_moe_is_not_a_triton_kernel_and_decode_vision_fit():
    checks = by_path(kernels("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ["sglang==0.5.8"]))
    assert not [k for k in checks if k[0] == "fused_moe"]
    assert checks[("decode_attention", "decode-grouped")].bytes == 89088
    assert checks[("prefill_attention", "vision-tower")].bytes == 65536  # MoonViT head_dim 72 → 128


def test_deepseek_fp8_block_fuses_shared_expert_into_257():
    moe = next(k for k in kernels("rtx-pro-6000-x8", "deepseek-ai/DeepSeek-V3", ["sglang==0.5.8"])
               if k.kernel == "fused_moe")
    assert (moe.shape["E"], moe.shape["N"], moe.shape["block_shape"]) == (257, 256, [128, 128])
    assert moe.bytes == 49152 and moe.fits


@pytest.mark.wheel
def test_installed_wheel_finds_the_max_q_file_and_checks_every_entry(tmp_path):
    site = unpacked_wheel("sglang", "0.5.8")
    library = Library(name="sglang", version="0.5.8", location=str(site))
    triton = Library(name="triton", version="3.5.1")
    name = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
    moe = next(k for k in kernels("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8",
                                  libraries={"sglang": library, "triton": triton}, gpu_name=name)
               if k.kernel == "fused_moe")
    assert moe.details["source"] == "file" and moe.details["config_path"].endswith(moe.details["config_file"])
    assert "triton_3_5_1" in moe.details["config_path"]
    assert moe.fits and moe.details["overflowing_batch_sizes"] == []
    # the same file under Triton 3.6: 0.5.8's fixed fallback list has no triton_3_5_1, so defaults again
    moe36 = next(k for k in kernels("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", libraries={
        "sglang": library, "triton": Library(name="triton", version="3.6.0")}, gpu_name=name) if k.kernel == "fused_moe"
        and k.path.endswith("M > E"))
    assert moe36.details["source"] == "default" and moe36.bytes == 147456


@pytest.mark.wheel
def test_user_moe_config_dir_with_an_h100_file_overflows(tmp_path):
    """People copy H100-tuned files: every entry is checked against the SM12x limit."""
    name = ("E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,"
            "dtype=fp8_w8a8,per_channel_quant=True.json")
    folder = tmp_path / "configs" / "triton_3_5_1"
    folder.mkdir(parents=True)
    entries = {"1": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1,
                     "num_warps": 4, "num_stages": 3},
               "4096": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 32,
                        "num_warps": 8, "num_stages": 5}}
    (folder / name).write_text(json.dumps(entries))
    moe = next(k for k in kernels("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", ["sglang==0.5.8", "triton==3.5.1"],
                                  env={"SGLANG_MOE_CONFIG_DIR": str(tmp_path)}) if k.kernel == "fused_moe")
    assert moe.details["source"] == "file" and moe.details["overflowing_batch_sizes"] == [4096]
    assert moe.bytes == 4 * (128 * 128 + 128 * 256) and not moe.fits


@pytest.mark.wheel
def test_vision_block_from_installed_source_follows_the_prefill_patch(tmp_path):
    from packaging.version import Version

    from doctor.engines.sglang.patches import PATCHES
    from doctor.fix.patches import patched_source

    site = tmp_path / "site"
    shutil.copytree(unpacked_wheel("sglang", "0.5.8"), site)
    library = {"sglang": Library(name="sglang", version="0.5.8", location=str(site))}
    facts_model = "moonshotai/Kimi-K2.5"
    vision = next(k for k in kernels("rtx-5090", facts_model, libraries=library) if k.kernel == "prefill_attention")
    assert vision.config["block_m"] == 128 and vision.details["tiles_from"].startswith("installed source")
    patch = PATCHES["sglang-prefill-attention-sm12x"]
    path = site / patch.relative_path(Version("0.5.8"))
    path.write_text(patched_source(patch, path.read_text()))
    vision = next(k for k in kernels("rtx-5090", facts_model, libraries=library) if k.kernel == "prefill_attention")
    assert vision.config["block_m"] == 64 and vision.bytes == 40960
