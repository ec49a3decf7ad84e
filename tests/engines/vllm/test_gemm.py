"""The dense GEMM kernel vLLM runs per quantization scheme on SM12x: the committed wheel data at the boundary
releases, the walk that answers a gate's runtime questions, and the engine's note and rule view."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from doctor.engines.vllm import knowledge
from doctor.engines.vllm.evaluate import Capability
from doctor.engines.vllm.gemm import CAPABILITIES, choose, describe, resolve, scheme_of
from doctor.pipeline.analysis import analyze_all
from tests.rules.builders import build, findings
from tools.vllm_facts.explore import Explorer
from tools.vllm_facts.source import WheelSource

PRO, SPARK = "rtx-pro-6000-x8", "dgx-spark"
GLM, QWEN_BLOCK, KIMI, NVFP4, GPT_OSS = ("zai-org/GLM-4.7-FP8", "Qwen/Qwen3-235B-A22B-FP8", "moonshotai/Kimi-K2.5",
                                         "nvidia/Kimi-K2.5-NVFP4", "openai/gpt-oss-120b")


def chosen(release: str, scheme: str, label: str = "12.0") -> dict:
    return knowledge.facts(release)["gemm"]["schemes"][scheme]["chosen"][label]


def chain(release: str, scheme: str, label: str = "12.0") -> list[tuple[str, str]]:
    return [(link["backend"], link["when"]) for link in chosen(release, scheme, label)["chain"]]


# --- the data, at the boundary releases -------------------------------------------------------------------

def test_092_fp8_asks_the_compiled_cutlass_gate_then_falls_back_to_torch_scaled_mm():
    assert chain("0.9.2", "fp8") == [
        ("cutlass_scaled_mm", "ops.cutlass_scaled_mm_supports_fp8(capability) [compiled]"),
        ("torch._scaled_mm", "always")]
    entry = knowledge.facts("0.9.2")["gemm"]["schemes"]["fp8"]
    assert entry["file"].endswith("utils/w8a8_utils.py") and entry["how"] == "Fp8LinearOp" and entry["line"] > 0


def test_092_block_fp8_never_takes_deepgemm_on_sm12x():
    assert chain("0.9.2", "fp8-block") == [
        ("cutlass_blockwise", "ops.cutlass_scaled_mm_supports_block_fp8(capability) [compiled]"),
        ("triton_w8a8_block_fp8_matmul", "always")]
    deep_gemm = knowledge.facts("0.9.2")["gemm"]["schemes"]["fp8-block"]["candidates"][0]
    assert deep_gemm["backend"] == "deep_gemm" and deep_gemm["12.0"] == {"value": False}


def test_092_w4a16_tries_machete_first_and_010_refuses_it():
    assert chain("0.9.2", "wna16")[0] == ("MacheteLinearKernel", "the layer fits (can_implement)")
    assert chosen("0.10.0", "wna16")["backend"] == "MarlinLinearKernel"
    assert any(s.startswith("MacheteLinearKernel: Machete requires compute capability of 90")
               for s in chosen("0.10.0", "wna16")["skipped"])


def test_0151_fp8_uses_the_kernel_list_flashinfer_when_installed_else_cutlass():
    # FlashInfer's can_implement wants per-tensor scales: the layer decides, per-channel FP8 goes to CUTLASS
    assert chain("0.15.1", "fp8") == [
        ("FlashInferFP8ScaledMMLinearKernel", "has_flashinfer() [installed] and the layer fits (can_implement)"),
        ("CutlassFP8ScaledMMLinearKernel", "always")]
    assert knowledge.facts("0.15.1")["gemm"]["requires"] == ["flashinfer-python==0.6.1"]


def test_0151_nvfp4_if_chain_follows_the_release_default_of_the_backend_variable():
    assert [b for b, _ in chain("0.15.1", "nvfp4")] == ["flashinfer-cutlass", "cutlass", "marlin"]


def test_0330_block_fp8_reaches_deepgemm_and_b12x_on_sm12x():
    links = dict(chain("0.33.0", "fp8-block"))
    assert links["DeepGemmFp8BlockScaledMMKernel"] == "has_deep_gemm() [installed] and the layer fits (can_implement)"
    assert links["CutlassFp8BlockScaledMMKernel"].startswith(
        "ops.cutlass_scaled_mm_supports_block_fp8(capability) [compiled]")
    assert "B12xFp8BlockScaledMMKernel" in links
    assert chain("0.33.0", "fp8-block")[-1] == ("MarlinFP8ScaledMMLinearKernel", "always")


def test_0330_nvfp4_ends_on_marlin_and_gpt_oss_dense_layers_stay_unquantized():
    assert chain("0.33.0", "nvfp4")[-1] == ("MarlinNvFp4LinearKernel", "always")
    assert chosen("0.33.0", "mxfp4-gpt-oss")["backend"] == "unquantized (UnquantizedLinearMethod)"
    assert "mxfp4" not in knowledge.facts("0.21.0")["gemm"]["schemes"]
    assert "mxfp4" in knowledge.facts("0.22.0")["gemm"]["schemes"]


@pytest.mark.parametrize("release", knowledge.releases())
def test_every_release_answers_every_scheme_it_has_with_provenance(release):
    schemes = knowledge.facts(release)["gemm"]["schemes"]
    assert {"fp8", "fp8-block", "int8-w8a8", "wna16", "awq", "nvfp4"} <= set(schemes)
    for scheme, entry in schemes.items():
        assert entry["file"].startswith("vllm/") and entry["line"] > 0, scheme
        for label in CAPABILITIES:
            assert entry["chosen"][label]["backend"] != "none", (scheme, label)


# --- the walk ------------------------------------------------------------------------------------------------

GATES = '''
from vllm import envs
from vllm._custom_ops import cutlass_scaled_mm_supports_fp8


def hopper_only():
    return current_platform.is_device_capability(90) and has_deep_gemm()


def cutlass_ok():
    capability = current_platform.get_device_capability().to_int()
    return cutlass_scaled_mm_supports_fp8(capability)


def pick(weight):
    if hopper_only():
        return "deep_gemm"
    if envs.VLLM_USE_X and cutlass_ok():
        return "cutlass"
    if weight.shape[0] % 128 == 0:
        return "triton"
    return "torch"
'''
CUSTOM_OPS = '''
import torch


def cutlass_scaled_mm_supports_fp8(cuda_device_capability):
    return torch.ops._C.cutlass_scaled_mm_supports_fp8(cuda_device_capability)
'''


@pytest.fixture
def source(tmp_path: Path):
    wheel = tmp_path / "fake-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("vllm/gates.py", GATES)
        archive.writestr("vllm/_custom_ops.py", CUSTOM_OPS)
    opened = WheelSource(wheel)
    yield opened
    opened.close()


def test_walk_answers_what_the_gpu_decides_and_keeps_the_rest_as_cases(source):
    walker = Explorer(source, Capability(12, 0), env_defaults={"VLLM_USE_X": "1"})
    answer = walker.function("vllm/gates.py", source.function("vllm/gates.py", "pick"), {})
    assert "deep_gemm" not in {case["value"] for case in answer["cases"]}  # hopper_only() is False on 12.0
    assert answer["asks"] == {"envs.VLLM_USE_X": "env",
                              "torch.ops._C.cutlass_scaled_mm_supports_fp8(cuda_device_capability)": "compiled",
                              "weight.shape[0] % 128 == 0": "runtime"}
    on_hopper = Explorer(source, Capability(9, 0)).function("vllm/gates.py",
                                                            source.function("vllm/gates.py", "pick"), {})
    assert "deep_gemm" in {case["value"] for case in on_hopper["cases"]}


def test_resolve_sets_env_switches_and_leaves_the_rest_as_conditions(source):
    answer = Explorer(source, Capability(12, 0)).expression(
        "vllm/gates.py", __import__("ast").parse("envs.VLLM_USE_X and cutlass_ok()", mode="eval").body)
    assert resolve(answer, {"VLLM_USE_X": "0"}) is False
    condition = resolve(answer, {"VLLM_USE_X": "1"})
    assert condition.when == ("torch.ops._C.cutlass_scaled_mm_supports_fp8(cuda_device_capability) [compiled]",)


def test_choose_skips_disabled_kernels_and_refused_gpus():
    candidates = [{"backend": "A", "12.0": {"value": False, "why": "needs 9.0"}},
                  {"backend": "B", "12.0": {"value": True}},
                  {"backend": "C", "12.0": {"value": True}}]
    assert choose(candidates, "12.0", {})["backend"] == "B"
    pick = choose(candidates, "12.0", {"VLLM_DISABLED_KERNELS": "B"})
    assert pick["backend"] == "C" and pick["skipped"] == ["A: needs 9.0", "B: disabled by VLLM_DISABLED_KERNELS"]
    assert describe(pick) == "C"


def test_scheme_of_maps_the_checkpoint_formats():
    assert scheme_of("fp8-channel", "compressed-tensors") == "fp8"
    assert scheme_of("mxfp4", "mxfp4") == "mxfp4-gpt-oss"
    assert scheme_of("mxfp4", "compressed-tensors") == "mxfp4"
    assert scheme_of("bf16", None) is None


# --- the engine ----------------------------------------------------------------------------------------------

def analysis(model: str, version: str, profile: str = PRO, **kw):
    [result] = analyze_all(build(profile, model, (f"vllm=={version}",), **kw), [])
    return result


def linear_notes(result) -> list[str]:
    return [n for n in result.notes if n.startswith("dense linear layers")]


def test_fp8_model_names_its_gemm_backend_and_where_vllm_decides_it():
    result = analysis(GLM, "0.9.2")
    assert result.backends["linear"] == "cutlass_scaled_mm"
    assert "w8a8_utils.py:" in result.backend_sources["linear"]
    [note] = linear_notes(result)
    assert "else torch._scaled_mm" in note and "[compiled]" in note


def test_block_fp8_on_the_spark_reads_121_and_deep_gemm_follows_its_switch():
    assert analysis(QWEN_BLOCK, "0.33.0", profile=SPARK).backends["linear"] == \
        "FlashInferFp8DeepGEMMDynamicBlockScaledKernel"
    off = analysis(QWEN_BLOCK, "0.33.0", env={"VLLM_USE_DEEP_GEMM": "0"})
    assert off.backends["linear"] == "CutlassFp8BlockScaledMMKernel"


def test_expert_only_checkpoints_get_no_dense_gemm_note_and_nvfp4_does():
    assert "linear" not in analysis(KIMI, "0.20.0").backends
    assert analysis(NVFP4, "0.20.0").backends["linear"] == "FlashInferCutlassNvFp4LinearKernel"
    assert analysis(GPT_OSS, "0.20.0").backends["linear"] == "unquantized (UnquantizedLinearMethod)"


def test_rules_see_the_pick_with_its_condition():
    facts = build(PRO, KIMI, ("vllm==0.9.2",), quant={"quantized": ("routed_experts", "attention")})
    [finding] = findings(facts)["VLLM017"]
    assert finding.evidence["vllm.linear.backend"] == "MacheteLinearKernel"
    assert finding.evidence["vllm.linear.when"] == "the layer fits (can_implement)"


def test_compressed_tensors_nvfp4_keeps_its_own_chain_until_it_shares_modelopts():
    assert [b for b, _ in chain("0.15.1", "nvfp4-ct")] == ["flashinfer-cutlass", "cutlass"]  # no Marlin fallback
    assert chain("0.9.2", "nvfp4-ct")[-1] == ("marlin (CompressedTensorsW4A16Fp4)", "always")
    assert "nvfp4-ct" not in knowledge.facts("0.16.0")["gemm"]["schemes"]
    ct = {"method": "compressed-tensors"}
    assert analysis(NVFP4, "0.15.1", quant=ct).backends["linear"] == "flashinfer-cutlass"
    assert analysis(NVFP4, "0.16.0", quant=ct).backends["linear"] == "FLASHINFER_CUTLASS"
