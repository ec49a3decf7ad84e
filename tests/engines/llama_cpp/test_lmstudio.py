"""LM Studio: runtime names as its UI, folders and logs print them; `--engine lmstudio[==runtime]` evaluates llama.cpp
at its releases (no runtime's llama.cpp build is derived); diagnose reads LM Studio's lines; LMS001's bounds."""

from __future__ import annotations

import pytest

from doctor.engines import registry
from doctor.engines.llama_cpp.lmstudio import parse_runtime
from doctor.errors import UsageError
from doctor.pipeline.gather import with_engines
from tests.diagnose.corpus import diagnose_text, profile_base, rules_named


@pytest.mark.parametrize(("text", "expected"), [
    ("Broken runtime: CUDA 12 llama.cpp (Windows) v2.27.1", ("2.27.1", "Windows", "x86_64", "CUDA", 12)),
    ("CUDA llama.cpp (Linux ARM64) v2.8.0", ("2.8.0", "Linux", "arm64", "CUDA", None)),
    ('Runtime updated to "CUDA 12 llama.cpp (Linux) v1.48.0"', ("1.48.0", "Linux", None, "CUDA", 12)),
    ("Vulkan llama.cpp (Windows) v1.52.0", ("1.52.0", "Windows", "x86_64", "Vulkan", None)),
    (r"C:\Users\x\.lmstudio\extensions\backends\llama.cpp-win-x86_64-nvidia-cuda12-avx2-2.7.1\llm_engine_cuda12.node",
     ("2.7.1", "Windows", "x86_64", "CUDA", 12)),
    ("runtime llama.cpp-linux-arm64-nvidia-cuda13@2.8.0", ("2.8.0", "Linux", "arm64", "CUDA", 13)),
    ("llama.cpp-linux-arm64@2.31.2", ("2.31.2", "Linux", "arm64", "CPU", None)),
])
def test_runtime_names(text, expected):
    runtime = parse_runtime(text)
    assert runtime is not None
    assert (runtime.version, runtime.platform, runtime.cpu, runtime.framework, runtime.cuda_major) == expected


@pytest.mark.parametrize("text", ["llama.cpp b7376", "llama-server version: 7376 (abc1234)", "CUDA 12.8 toolkit"])
def test_other_text_names_no_runtime(text):
    assert parse_runtime(text) is None


@pytest.mark.parametrize("spec", ["lmstudio", "LM-Studio", "lm_studio", "lmstudio==2.27.1", "lmstudio==v2.27.1",
                                  "lmstudio==llama.cpp-win-x86_64-nvidia-cuda12-avx2-2.7.1"])
def test_named_lmstudio_evaluates_llama_cpp_unversioned(spec):
    versioned, unstated = registry.split_engine_specs([spec])
    assert unstated == ["llama.cpp"]
    assert versioned == ([] if "==" not in spec else [spec])


def test_runtime_release_is_a_fact_with_its_build_not_derived():
    facts = with_engines(profile_base("rtx-5090"), ["lmstudio==v2.27.1"], pinned=False)
    runtime = facts.libraries["lmstudio"]
    assert runtime.version == "2.27.1" and runtime.details["llama_cpp_build"] is None
    assert "llama.cpp" not in facts.libraries  # no build is implied
    assert any("not derived" in note for note in facts.source.notes)


def test_runtime_folder_name_as_the_release():
    runtime = registry.parse_engine_spec("lmstudio==llama.cpp-win-x86_64-nvidia-cuda12-avx2-2.7.1")
    assert runtime.version == "2.7.1"
    assert runtime.details["runtime_cuda_major"] == 12 and runtime.details["runtime_platform"] == "Windows"


def test_a_stated_build_wins_over_the_runtime():
    from doctor.pipeline.check import installed_instead

    versioned, unstated = registry.split_engine_specs(["lmstudio==2.8.0", "llama.cpp==b9100"])
    facts = with_engines(profile_base("dgx-spark"), versioned, pinned=False)
    facts, left = installed_instead(facts, {name: "named" for name in unstated})
    assert facts.libraries["llama.cpp"].version == "9100" and left == {}


def test_ollama_is_unchanged():
    versioned, unstated = registry.split_engine_specs(["ollama==0.30.0"])
    assert versioned == ["ollama==0.30.0"] and unstated == []


def test_lmstudio_needs_a_version_number():
    with pytest.raises(UsageError):
        registry.parse_engine_spec("lmstudio==latest")


SPARK_GEMMA4 = """LM Studio 0.4.9 Build 1, llmster 0.0.9-1
runtime llama.cpp-linux-arm64-nvidia-cuda13@2.8.0
\U0001f972 Failed to load the model
error loading model: error loading model architecture: unknown model architecture: 'gemma4'
"""


def test_log_names_the_runtime_and_llama_cpp_is_evaluated_at_its_releases():
    diagnosis = diagnose_text(SPARK_GEMMA4)
    facts = diagnosis.deployment.facts
    assert diagnosis.deployment.engine == "llama.cpp"
    runtime = facts.libraries["lmstudio"]
    assert runtime.version == "2.8.0"
    assert runtime.details["runtime_cuda_major"] == 13 and runtime.details["runtime_cpu"] == "arm64"
    assert runtime.details["app_version"] == "0.4.9 build 1"
    assert [e["engine"] for e in diagnosis.report.releases_evaluated] == ["llama.cpp"]
    assert rules_named(diagnosis)[0] == "ARCH040"


def test_a_logged_build_is_used_over_the_runtime():
    log = SPARK_GEMMA4 + "build: 9100 (0123abc) with cc (Ubuntu) for aarch64-linux-gnu\n"
    diagnosis = diagnose_text(log)
    assert diagnosis.deployment.facts.libraries["llama.cpp"].version == "9100"
    assert not diagnosis.report.releases_evaluated


EXIT = ("- GPU: {gpu}\n- Broken runtime: CUDA 12 llama.cpp (Windows) v2.27.1\n"
        "Failed to load the model\nError loading model.\n"
        "(Exit code: 18446744072635812000). Unknown error. Try a different model and/or config.\n")


@pytest.mark.parametrize("gpu", ["RTX 5090, driver 610.74", "NVIDIA RTX PRO 6000 Blackwell", "DGX Spark (GB10)"])
def test_lms001_claims_the_abort_on_sm12x(gpu):
    assert rules_named(diagnose_text(EXIT.format(gpu=gpu)))[:1] == ["LMS001"]


@pytest.mark.parametrize("gpu", ["RTX 4090", "GTX 980M", "RTX 6000 Ada", "H100"])
def test_lms001_leaves_other_gpus_alone(gpu):
    assert "LMS001" not in rules_named(diagnose_text(EXIT.format(gpu=gpu)))


@pytest.mark.parametrize(("profile", "claimed"), [("rtx-5090", True), ("dgx-spark", True), ("h100-sxm-x8", False),
                                                  ("b200-x8", False)])
def test_lms001_follows_the_stated_gpu(profile, claimed):
    diagnosis = diagnose_text(EXIT.format(gpu="RTX 5090"), profile_base(profile))
    assert ("LMS001" in rules_named(diagnosis)) is claimed


def test_another_exit_code_is_not_lms001():
    log = EXIT.format(gpu="RTX 5090").replace("18446744072635812000", "18446744073709515000")
    assert "LMS001" not in rules_named(diagnose_text(log))


LIVE_GPUS = """2026-01-07 17:36:53 [DEBUG]
 [LM Studio] Live GPU memory info (source 'LMS Core'):
  GPU 0: {gpu} (Used: 1.68 GB, Total: {total} GB, Free: 6.91 GB)
\U0001f972 Failed to load the model
Error loading model.
(Exit code: 18446744072635812000). Unknown error. Try a different model and/or config.
"""


def test_lm_studio_gpu_lines_state_the_gpu():
    diagnosis = diagnose_text(LIVE_GPUS.format(gpu="NVIDIA GeForce RTX 5090", total="34.19"))
    gpu = diagnosis.deployment.facts.gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 5090" and gpu.compute_capability == "12.0"
    assert gpu.memory_total_bytes == int(34.19e9 / (1 << 20)) * (1 << 20)
    assert rules_named(diagnosis)[:1] == ["LMS001"]


def test_lm_studio_gpu_line_of_another_gpu_is_not_lms001():
    diagnosis = diagnose_text(LIVE_GPUS.format(gpu="NVIDIA GeForce RTX 3060 Ti", total="8.59"))
    assert diagnosis.deployment.facts.gpus[0].compute_capability == "8.6"
    assert "LMS001" not in rules_named(diagnosis)


def test_hardware_survey_names_the_gpu():
    survey = ('The model has crashed without additional information. (Exit code: 18446744072635812000)\n'
              '          "gpuInfo": [\n            {\n              "name": "NVIDIA GeForce RTX 5090 Laptop GPU",\n'
              '              "deviceId": 0,\n')
    diagnosis = diagnose_text(survey)
    assert diagnosis.deployment.facts.gpus[0].compute_capability == "12.0"
    assert rules_named(diagnosis)[:1] == ["LMS001"]
    cpu = survey.replace("NVIDIA GeForce RTX 5090 Laptop GPU", "Intel(R) Core(TM) Ultra 9 275HX")
    assert not diagnose_text(cpu).deployment.facts.gpus


@pytest.mark.parametrize("line", [
    "Engine protocol runtime llama-server for mmVGcSTlX6QYmWmVvCHJxgvD exited before becoming healthy. exitCode=1",
    "[2026-02-07 20:58:44.392] [error] [LMSInternal][LMSAuthenticator][Client=LM Studio][Endpoint=countTokens] x",
    " [LM Studio] GPU Configuration:",
    "  at _0x150fdf.LLMEngineWrapper.load (/tmp/.mount_LM-StuZgeIxu/resources/app/.webpack/lib/llmworker.js:85:14107)",
])
def test_lm_studio_markers(line):
    assert "lmstudio" in diagnose_text(line + "\n").reading.facts.formats
