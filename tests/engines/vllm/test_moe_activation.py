"""The forced --moe-backend view (doctor/engines/vllm/moe_activation.py) on its own pieces: the three-valued
device test, the model's expert activation per release, the expert storages of mixed exports."""

from __future__ import annotations

import dataclasses

from packaging.version import Version

from doctor.engines.vllm.moe_activation import (
    activations,
    backend_verdict,
    device_gate,
    expert_schemes,
    render_gate,
    table,
)
from doctor.probe.model import load_model

FAMILY_100_AND_PROBE = {"op": "and", "args": [{"const": True}, {"test": "family", "value": 100},
                                              {"opaque": "has_flashinfer_cutedsl_moe_nvfp4()"}]}
SM90_OR_FAMILIES = {"op": "or", "args": [{"test": "eq", "value": 90}, {"test": "family", "value": 120}]}
NEMOTRON = "tests/knowngood/models/nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
GEMMA4 = "tests/knowngood/models/nvidia--Gemma-4-26B-A4B-NVFP4"
QWEN36 = "tests/knowngood/models/nvidia--Qwen3.6-35B-A3B-NVFP4"


def test_device_gate_is_three_valued():
    assert device_gate(FAMILY_100_AND_PROBE, 120) is False  # false whatever the import probe says
    assert device_gate(FAMILY_100_AND_PROBE, 100) is None  # true test, unknown probe
    assert device_gate(SM90_OR_FAMILIES, 121) is True
    assert device_gate(SM90_OR_FAMILIES, 100) is False
    assert device_gate({"test": "ge", "value": 75}, 120) is True
    assert device_gate(None, 120) is None


def test_render_gate_drops_the_cuda_check():
    assert render_gate(FAMILY_100_AND_PROBE) == \
        "(is_device_capability_family(100) and has_flashinfer_cutedsl_moe_nvfp4())"


def test_activation_follows_the_release_model_file():
    gemma = load_model(GEMMA4, {}, offline=True)
    assert activations(gemma, table()["0.20.0"]["models"]["gemma4"]) == ["gelu"]
    assert activations(gemma, table()["0.24.0"]["models"]["gemma4"]) == ["gelu_tanh"]
    nemotron = load_model(NEMOTRON, {}, offline=True)
    assert activations(nemotron, table()["0.24.0"]["models"]["nemotron_h"]) == ["relu2_no_mul"]


def test_step_swiglustep_only_with_a_limit():
    nemotron = load_model(NEMOTRON, {}, offline=True)
    spec = {"candidates": ["silu", "swiglustep"]}
    assert activations(nemotron, spec) == ["silu"]
    limited = dataclasses.replace(nemotron, moe=dataclasses.replace(nemotron.moe, swiglu_limited=True))
    assert activations(limited, spec) == ["silu", "swiglustep"]


def test_non_gated_activation_needs_no_act_and_mul():
    backend = {"kernels": [{"activations": ["relu2_no_mul", "silu"], "no_act_and_mul": False}]}
    assert backend_verdict(backend, ["relu2_no_mul"]) == (False, ["relu2_no_mul"])
    backend["kernels"][0]["no_act_and_mul"] = True
    assert backend_verdict(backend, ["relu2_no_mul"]) == (True, [])
    assert backend_verdict({"kernels": [{"activations": None, "no_act_and_mul": True}]}, ["silu"]) == (None, [])


def test_mixed_export_layers_decide_not_the_kind_default():
    qwen = load_model(QWEN36, {}, offline=True)  # MIXED_PRECISION: routed_experts "none" default, layers nvfp4
    assert expert_schemes(qwen) == ["nvfp4"]


def test_every_release_from_0_17_has_the_oracles():
    for version, entry in table().items():
        mxfp4 = {"mxfp4"} if Version(version) >= Version("0.19.0") else set()
        assert set(entry["oracles"]) == {"nvfp4", "fp8", "unquantized"} | mxfp4, version
        assert "marlin" in entry["oracles"]["nvfp4"]["backends"], version
        if mxfp4:  # only its value list is read: no activation or device verdict
            assert all(not b["kernels"] for b in entry["oracles"]["mxfp4"]["backends"].values()), version
