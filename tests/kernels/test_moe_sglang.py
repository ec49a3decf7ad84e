"""SGLang fused-MoE config knowledge checked against the real wheels."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from doctor.engines.sglang import moe
from doctor.kernels import moe_tuned

pytestmark = pytest.mark.wheel

GLM = {"E": 161, "N": 192, "dtype": "fp8_w8a8", "per_channel": True}
MAXQ = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
SERVER = "NVIDIA RTX PRO 6000 Blackwell Server Edition"


def _function_source(path: Path, name: str) -> str:
    text = path.read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(text, node) or ""


def test_file_names():
    assert moe.config_file_name(161, 192, MAXQ, "fp8_w8a8", per_channel=True) == (
        "E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Max-Q_Workstation_Edition,"
        "dtype=fp8_w8a8,per_channel_quant=True.json")
    assert moe.config_file_name(257, 256, "NVIDIA H20", "fp8_w8a8", (128, 128), down=True) == (
        "E=257,N=256,device_name=NVIDIA_H20,dtype=fp8_w8a8,block_shape=[128, 128]_down.json")
    assert moe.config_file_name(8, 7168, "NVIDIA GeForce RTX 5090", "bf16") == (
        "E=8,N=7168,device_name=NVIDIA_GeForce_RTX_5090.json")
    assert moe.config_file_name(64, 512, "NVIDIA H100", "int4_w4a16", [0, 128]) == (
        "E=64,N=512,device_name=NVIDIA_H100,dtype=int4_w4a16.json")


@pytest.mark.parametrize("version", ["0.5.8", "0.5.23"])
def test_name_builder_matches_wheel_source(version):
    from tests.wheels import unpacked_wheel

    root = unpacked_wheel("sglang", version)
    config_py = moe.package_config_dir(root, version).joinpath("fused_moe_triton_config.py")
    src = _function_source(config_py, "get_config_file_name")
    for fragment in ('get_device_name().replace(" ", "_")', 'f",dtype={dtype}"',
                     'f",block_shape={block_shape}"', "not all(block_shape)",
                     '",per_channel_quant=True"', '"_down"',
                     'f"E={E},N={N},device_name={device_name}{dtype_selector}{block_shape_selector}'
                     '{per_channel_quant_selector}{down_moe_selector}.json"'):
        assert fragment in src, fragment


def test_fallback_rules_in_wheels(sglang_058):
    from tests.wheels import unpacked_wheel

    old = moe.package_config_dir(unpacked_wheel("sglang", "0.5.11"), "0.5.11") / "fused_moe_triton_config.py"
    new = moe.package_config_dir(unpacked_wheel("sglang", "0.5.12"), "0.5.12") / "fused_moe_triton_config.py"
    assert 'supported_triton_versions = ["3.4.0", "3.3.1", "3.2.0", "3.1.0"]' in old.read_text()
    assert 'd.startswith("triton_")' in new.read_text()
    assert "supported_triton_versions" not in new.read_text()
    low = moe.package_config_dir(unpacked_wheel("sglang", "0.5.14"), "0.5.14") / "fused_moe_triton_config.py"
    assert "_LOW_SMEM_FP8_DEFAULT_CUTOFF_BYTES = 128 * 1024" in low.read_text()
    assert "_use_low_smem_fp8_default" not in (new.read_text())


def test_shipped_maxq_file_found_server_edition_not(sglang_058):
    found = moe.find_config_file(sglang_058, "0.5.8", "3.5.1", device_name=MAXQ, env={}, **GLM)
    assert found is not None and found.parent.name == "triton_3_5_1" and found.is_file()
    assert moe.find_config_file(sglang_058, "0.5.8", "3.5.1", device_name=SERVER, env={}, **GLM) is None
    # <= 0.5.11 never falls back to triton_3_5_1: under Triton 3.6 the Max-Q file is invisible
    assert moe.find_config_file(sglang_058, "0.5.8", "3.6.0", device_name=MAXQ, env={}, **GLM) is None


def test_triton_dir_scan_from_0_5_12(tmp_path):
    site = tmp_path / "site"
    name = moe.config_file_name(161, 192, MAXQ, "fp8_w8a8", per_channel=True)
    for version in ("0.5.11", "0.5.12"):
        cfg = moe.package_config_dir(site, version) / "configs" / "triton_3_5_1"
        cfg.mkdir(parents=True, exist_ok=True)
        (cfg / name).write_text("{}")
    assert moe.find_config_file(site, "0.5.11", "3.6.0", device_name=MAXQ, env={}, **GLM) is None
    hit = moe.find_config_file(site, "0.5.12", "3.6.0", device_name=MAXQ, env={}, **GLM)
    assert hit is not None and hit.parent.name == "triton_3_5_1"
    assert moe.triton_search_order("0.5.12", "3.6.0", hit.parent.parent) == ["3.6.0", "3.5.1"]


def test_env_override_and_down_reuse(tmp_path, sglang_058):
    own = tmp_path / "mine" / "configs" / "triton_3_5_1"
    own.mkdir(parents=True)
    (own / moe.config_file_name(161, 192, SERVER, "fp8_w8a8", per_channel=True)).write_text('{"1": {}}')
    env = {"SGLANG_MOE_CONFIG_DIR": str(tmp_path / "mine")}
    up = moe.find_config_file(sglang_058, "0.5.8", "3.5.1", device_name=SERVER, env=env, **GLM)
    assert up is not None and up.parent == own
    down = moe.find_config_file(sglang_058, "0.5.8", "3.5.1", device_name=SERVER, env=env, down=True, **GLM)
    assert down == up  # no _down file: the down GEMM reuses the up config


def test_default_configs_per_version():
    big = moe.default_config("0.5.8", 4096, 161, 192, 5120, 8, "fp8_w8a8", low_smem=True)
    assert (big["BLOCK_SIZE_M"], big["BLOCK_SIZE_N"], big["num_stages"]) == (128, 256, 4)
    low = moe.default_config("0.5.14", 4096, 161, 192, 5120, 8, "fp8_w8a8", low_smem=True)
    assert low == {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 64,
                   "num_warps": 4, "num_stages": 2}
    small = moe.default_config("0.5.14", 16, 161, 192, 5120, 8, "fp8_w8a8", low_smem=True)
    assert (small["BLOCK_SIZE_M"], small["BLOCK_SIZE_K"], small["num_stages"]) == (32, 256, 4)
    assert moe.default_config("0.5.23", 4096, 161, 192, 5120, 8, "fp8_w8a8")["BLOCK_SIZE_N"] == 256
    assert moe.default_config("0.5.8", 8, 161, 192, 5120, 8, None)["BLOCK_SIZE_M"] == 16
    assert moe_tuned.launch_config(moe.default_config("0.5.8", 999, 8, 1, 1, 2, None))["num_stages"] == 3


def test_select_config_nearest():
    assert moe_tuned.select_config({1: {"a": 1}, 64: {"a": 2}, 4096: {"a": 3}}, 50) == {"a": 2}
