"""The safe MoE-config fix for GLM-4.7-FP8 at TP8 on 8x RTX PRO 6000 (SGLang 0.5.8, Triton 3.5.1)."""

import json
import subprocess
import sys

import pytest

from doctor.kernels import smem_limit
from doctor.kernels.exact import Job, compile_many
from tests.wheels import cache_root, triton_site

pytestmark = pytest.mark.wheel
GLM = ["check", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--format", "json"]
FILE = "E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,dtype=fp8_w8a8,per_channel_quant=True.json"

# SGLang 0.5.8's own loader, run from the wheel with stand-ins for what it imports (torch, triton,
# sglang.srt.*): the module's get_moe_configs decides whether our file is found and how it is read.
LOADER = r"""
import importlib.util, json, sys, types
site, device, triton_version = sys.argv[1], sys.argv[2], sys.argv[3]
triton = types.ModuleType("triton"); triton.__version__ = triton_version
server_args = types.ModuleType("sglang.srt.server_args")
server_args.get_global_server_args = lambda: types.SimpleNamespace(enable_deterministic_inference=False)
utils = types.ModuleType("sglang.srt.utils")
utils.get_device_name = lambda device_id=0: device
utils.is_hip = lambda: False
for name, module in {"torch": types.ModuleType("torch"), "triton": triton, "sglang": types.ModuleType("sglang"),
                     "sglang.srt": types.ModuleType("sglang.srt"), "sglang.srt.server_args": server_args,
                     "sglang.srt.utils": utils}.items():
    sys.modules[name] = module
path = site + "/sglang/srt/layers/moe/fused_moe_triton/fused_moe_triton_config.py"
spec = importlib.util.spec_from_file_location("fused_moe_triton_config", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
configs = module.get_moe_configs(161, 192, "fp8_w8a8", 0, 0, True)
print(json.dumps({str(k): v for k, v in configs.items()} if configs else None))
"""


def test_safe_moe_config_is_found_by_sglang_and_fits(sglang_058, tmp_path):
    info = sglang_058.site / "triton-3.5.1.dist-info"  # the Triton SGLang 0.5.8 runs with, as metadata
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: triton\nVersion: 3.5.1\n")
    fix_dir = tmp_path / "fixes"
    before = sglang_058.run(*GLM)
    assert "SGL102" in {f["id"] for f in json.loads(before.stdout)["findings"]}

    fixed = sglang_058.run(*GLM, "--fix", "--fix-dir", str(fix_dir))
    assert "cleared SGL102" in fixed.stderr, fixed.stderr
    written = fix_dir / "configs" / "triton_3_5_1" / FILE
    assert written.is_file() and (fix_dir / "env.sh").read_text().strip().endswith(f"SGLANG_MOE_CONFIG_DIR={fix_dir}")
    table = json.loads(written.read_text())

    loaded = subprocess.run([sys.executable, "-c", LOADER, str(sglang_058.site),
                             "NVIDIA RTX PRO 6000 Blackwell Server Edition", "3.5.1"],
                            capture_output=True, text=True, env={"SGLANG_MOE_CONFIG_DIR": str(fix_dir)}, timeout=60)
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout) == table
    without = subprocess.run([sys.executable, "-c", LOADER, str(sglang_058.site),
                              "NVIDIA RTX PRO 6000 Blackwell Server Edition", "3.5.1"],
                             capture_output=True, text=True, env={}, timeout=60)
    assert json.loads(without.stdout) is None  # the wheel ships no file for this card

    script = fix_dir / "launch-sglang.sh"
    assert script.stat().st_mode & 0o111, "launch script is executable"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text()
    assert 'source "$(dirname "$0")/env.sh"' in text
    assert "exec python -m sglang.launch_server --model-path zai-org/GLM-4.7-FP8 --tp-size 8" in text

    assert sglang_058.run("revert").returncode == 0
    assert not written.exists() and not (fix_dir / "env.sh").exists() and not script.exists()


@pytest.mark.slow
def test_every_generated_entry_fits_by_exact_compile(sglang_058, tmp_path):
    sglang_058.run(*GLM, "--engine", "triton==3.5.1", "--fix", "--fix-dir", str(tmp_path / "fixes"))
    table = json.loads((tmp_path / "fixes" / "configs" / "triton_3_5_1" / FILE).read_text())
    distinct = {json.dumps(c, sort_keys=True): c for c in table.values()}.values()
    jobs = []
    for config in distinct:
        common = {"dtype": "fp8_w8a8", "per_channel": True, "e": 161, "config": config}
        jobs += [Job("fused_moe", 120, {**common, "n": 384, "k": 5120}),
                 Job("fused_moe", 120, {**common, "n": 5120, "k": 192, "down": True})]
    results = compile_many(jobs, sglang_058.site, triton_site("3.5.1"), workers=2, cache_dir=cache_root() / "smem")
    assert all(r["shared"] <= smem_limit((12, 0)) for r in results), results
