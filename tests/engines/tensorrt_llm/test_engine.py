"""TensorRT-LLM as a user meets it: `check ... --engine tensorrt-llm==1.2.1` gives its own plan, backends and a
`trtllm-serve` command with the options YAML; a TRTLLM MoE backend on SM12x is reported and fixed in the YAML."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from packaging.version import Version

from doctor.engines.tensorrt_llm import knowledge as kb
from doctor.engines.tensorrt_llm.memory import RUNTIME_RESERVE, TensorRTLLMMemory
from doctor.engines.tensorrt_llm.options import option_problems, parse
from tests.conftest import cli_env
from tests.engines.foreign import without_citations

GPTOSS = ["check", "openai/gpt-oss-120b", "--hardware", "rtx-pro-6000-x8", "--engine", "tensorrt-llm==1.2.1"]
FOREIGN = ("SGLang", "sglang", "vLLM", "vllm", "--mem-fraction-static", "--tp-size", "mem_fraction_static",
           "--disable-custom-all-reduce", "gpu-memory-utilization")
GiB = 1 << 30


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,
                          env=cli_env(**env), timeout=120)


def launch_of(report: dict) -> dict:
    return report["launches"][0] if report.get("launches") else report["launch"]


def test_gpt_oss_on_8_pro_6000_gets_a_trtllm_plan_backends_and_command():
    result = run(*GPTOSS, "--format", "json")
    report = json.loads(result.stdout)
    analysis = report["analysis"]
    assert (analysis["engine"], analysis["plan"]["engine"]) == ("tensorrt-llm", "TensorRT-LLM")
    assert analysis["backends"]["moe"] == "CUTLASS" and "AUTO resolves to CUTLASS" in analysis["backend_sources"]["moe"]
    assert analysis["backends"]["attention"] == "TRTLLM"
    launch = launch_of(report)
    assert launch["argv"][:2] == ["trtllm-serve", "openai/gpt-oss-120b"]
    assert launch["argv"][-2:] == ["--extra_llm_api_options", "trtllm-options.yaml"]
    # 2880 / 8 = 360 is not a multiple of MXFP4's 32, but TRT-LLM's MXFP4 MoE pads the per-rank intermediate:
    # TP8 is valid as it is, no EP needed
    assert "--ep_size" not in launch["argv"] and launch["argv"][2:4] == ["--tp_size", "8"]
    options = yaml.safe_load(launch["files"]["trtllm-options.yaml"])
    assert options == {"moe_config": {"backend": "CUTLASS"}, "kv_cache_config": {"free_gpu_memory_fraction": 0.9}}
    assert option_problems(options, Version("1.2.1")) == ([], [])
    assert not [word for word in FOREIGN if word in without_citations(report)]


def test_trtllm_moe_backend_is_reported_and_fixed_in_the_yaml(tmp_path: Path):
    user = tmp_path / "opts.yaml"
    user.write_text("moe_config:\n  backend: TRTLLM\nmax_batch_size: 64\n")
    result = run(*GPTOSS, "--format", "json", "--", "--extra_llm_api_options", str(user))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    trt001 = next(f for f in report["findings"] if f["id"] == "TRT001")
    assert "TRTLLM" in trt001["message"] and str(user) in trt001["message"]
    launch = launch_of(report)
    assert "TRT001" in launch["applied"]
    options = yaml.safe_load(launch["files"]["trtllm-options.yaml"])
    assert options["moe_config"]["backend"] == "CUTLASS" and options["max_batch_size"] == 64  # the user's kept
    assert str(user) not in launch["argv"]


def test_fix_writes_the_yaml_beside_the_launch_script(tmp_path: Path):
    user = tmp_path / "opts.yaml"
    user.write_text("moe_config:\n  backend: TRTLLM\n")
    fix_dir = tmp_path / "fix"
    result = run(*GPTOSS, "--fix", "--fix-dir", str(fix_dir), "--", "--extra_llm_api_options", str(user),
                 SM120_DOCTOR_STATE_DIR=str(tmp_path / "state"))
    assert result.returncode in (0, 1), result.stderr
    written = yaml.safe_load((fix_dir / "trtllm-options.yaml").read_text())
    assert written["moe_config"]["backend"] == "CUTLASS"
    script = (fix_dir / "launch-tensorrt-llm.sh").read_text()
    assert f"--extra_llm_api_options {fix_dir / 'trtllm-options.yaml'}" in script
    assert "env.sh" not in script


def test_bad_options_file_is_one_line_and_exit_2(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("moe_config: [unclosed\n")
    result = run(*GPTOSS, "--", "--extra_llm_api_options", str(bad))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "not valid YAML" in result.stderr
    missing = run(*GPTOSS, "--", "--extra_llm_api_options", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_auto_resolution_per_gpu_and_model():
    assert kb.resolve_moe_backend("AUTO", "GptOssForCausalLM", (12, 0)) == "CUTLASS"
    assert kb.resolve_moe_backend("AUTO", "GptOssForCausalLM", (12, 1)) == "CUTLASS"
    assert kb.resolve_moe_backend("AUTO", "GptOssForCausalLM", (10, 0)) == "TRTLLM"
    assert kb.resolve_moe_backend("AUTO", "GptOssForCausalLM", (9, 0)) == "TRITON"
    assert kb.resolve_moe_backend("AUTO", "DeepseekV3ForCausalLM", (10, 0)) == "CUTLASS"
    assert kb.resolve_moe_backend("trtllm", "DeepseekV3ForCausalLM", (12, 0)) == "TRTLLM"
    assert [kb.default_moe_backend(Version(v)) for v in ("1.0.0", "1.1.0", "1.2.1")] == ["CUTLASS", "CUTLASS", "AUTO"]


def test_options_checked_for_the_release(tmp_path: Path):
    errors, doubts = option_problems({"moe_config": {"backend": "TRITON"}, "attn_backend": "FLASHMLA",
                                      "kv_cache_config": {"free_gpu_memory_fraction": 0}}, Version("1.0.0"))
    assert any("attn_backend: 'FLASHMLA'" in e for e in errors)
    assert any("free_gpu_memory_fraction: 0 is outside" in e for e in errors)
    assert doubts == ["moe_config.backend TRITON may not exist in TensorRT-LLM 1.0.0 (first seen in 1.1.0)"]
    assert option_problems({"moe_config": {"backend": "TRITON"}}, Version("1.1.0")) == ([], [])
    _, unknown = option_problems({"moe_config": {"bakend": "CUTLASS"}}, Version("1.2.1"))
    assert unknown == ["moe_config.bakend: not a key the doctor knows for TensorRT-LLM 1.2.1"]
    options = tmp_path / "o.yaml"
    options.write_text("kv_cache_config:\n  free_gpu_memory_fraction: 0.75\n")
    parsed = parse(["--tp_size", "4", "--extra_llm_api_options", str(options)])
    assert parsed.flags["--tp_size"] == "4"
    assert parsed.number("--kv_cache_free_gpu_memory_fraction", "kv_cache_config.free_gpu_memory_fraction") == 0.75


def test_memory_model_is_a_fraction_of_what_is_free_after_load():
    """KV = fraction x (total - outside torch - weights - the profiling run's activations)."""
    from doctor.plan.memory import LayoutShape
    from doctor.probe.model import load_model

    model = load_model("meta-llama/Llama-3.1-8B-Instruct", {}, offline=True)
    memory = TensorRTLLMMemory("1.2.1", None, None)
    total, weights = 96 * GiB, 60 * GiB
    free = memory.preload_free(total, 8, False)
    assert free == total - RUNTIME_RESERVE
    settings = memory.settings(total, LayoutShape(8, 1, 1), model, False)
    activation = settings["activation_bytes"]
    assert 0 < activation < 2 * GiB
    assert memory.kv_budget(free, weights, settings) == int(0.9 * (total - RUNTIME_RESERVE - weights - activation))
    assert memory.kv_budget(free, 100 * GiB, settings) < 0
    half = TensorRTLLMMemory("1.2.1", 0.5, None)
    assert half.kv_budget(free, weights, half.settings(total, LayoutShape(8, 1, 1), model, False)) == int(
        0.5 * (total - RUNTIME_RESERVE - weights - activation))
    on_gb10 = TensorRTLLMMemory("1.2.1", None, None, host_use_bytes=40 * GiB)
    assert on_gb10.preload_free(total, 1, True) == total - RUNTIME_RESERVE - 40 * GiB
    assert on_gb10.preload_free(total, 1, False) == total - RUNTIME_RESERVE  # a discrete GPU's memory is its own
    assert "--kv_cache_free_gpu_memory_fraction" in memory.layout_flags(
        type("L", (), {"tp": 8, "pp": 1, "ep": 8})(), settings, "bf16", False, None, False)  # type: ignore[arg-type]
