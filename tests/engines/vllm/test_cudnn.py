"""The cuDNN a vLLM run loads (doctor/engines/vllm/cudnn.py): a stated or installed nvidia-cudnn, else the cuDNN
pin of the stated or release-pinned torch's PyPI wheel (doctor/data/vllm/torch-nccl.json, tools/vllm_facts/nccl.py)."""

from __future__ import annotations

import dataclasses

import pytest
from packaging.version import Version

from doctor.engines.run import EngineRun
from doctor.engines.vllm import cudnn, knowledge
from doctor.engines.vllm.launch import parse_launch
from doctor.pipeline.facts import Library
from tests.rules.builders import build
from tools.vllm_facts.nccl import CUDNN_PIN, NCCL_PIN, nccl_pin

# torch -> the cuDNN its Linux x86_64 PyPI wheel pins, as PyPI's metadata answered on 2026-11-29
CUDNN_BY_RELEASE = {"0.9.2": "9.5.1.17", "0.11.0": "9.10.2.21", "0.19.0": "9.10.2.21", "0.20.0": "9.19.0.56",
                    "0.26.0": "9.19.0.56", "0.27.0": "9.20.0.48", "0.33.0": "9.24.0.43"}


def run_for(version: str, *engines: str, libs: tuple[Library, ...] = ()) -> EngineRun:
    facts = build("rtx-pro-6000", "meta-llama/Llama-3.1-8B-Instruct", (f"vllm=={version}", *engines), libs=libs)
    library = facts.library("vllm")
    assert library is not None
    return EngineRun(facts, library, Version(version), parse_launch([]))


@pytest.mark.parametrize(("release", "version"), CUDNN_BY_RELEASE.items())
def test_release_pin(release, version):
    view = cudnn.view(run_for(release))
    assert view is not None and view["version"] == version
    assert view["source"].startswith(f"vllm=={release} pins torch==")


def test_every_torch_in_the_table_has_a_cudnn_pin():
    for torch, entry in knowledge.torch_pins().items():
        assert entry["cudnn"]["package"].startswith("nvidia-cudnn-cu"), torch


def test_a_stated_torch_replaces_the_release_pin():
    view = cudnn.view(run_for("0.19.0", "torch==2.11.0"))
    assert view is not None and view["version"] == "9.19.0.56" and view["source"].startswith("stated torch==2.11.0")


def test_a_local_build_tag_for_the_same_cuda_major_is_answered():
    view = cudnn.view(run_for("0.25.1", "torch==2.11.0+cu130"))
    assert view is not None and view["version"] == "9.19.0.56"


def test_a_torch_built_for_another_cuda_major_is_not_answered():
    assert cudnn.view(run_for("0.25.1", "torch==2.11.0+cu128")) is None


def test_a_torch_the_table_lacks_is_not_answered():
    assert cudnn.view(run_for("0.25.1", "torch==2.12.0")) is None


def test_a_stated_cudnn_wins():
    view = cudnn.view(run_for("0.25.1", "nvidia-cudnn-cu13==9.23.1"))
    assert view == {"version": "9.23.1", "source": "nvidia-cudnn 9.23.1 (stated)", "torch": None}


def test_an_installed_cudnn_counts_only_beside_an_installed_vllm():
    installed = Library(name="cudnn", version="9.21.0")
    what_if = run_for("0.25.1", libs=(installed,))
    assert cudnn.view(what_if)["version"] == "9.19.0.56"
    real = dataclasses.replace(what_if, library=dataclasses.replace(what_if.library, what_if=False))
    assert cudnn.view(real)["source"] == "nvidia-cudnn 9.21.0 (installed)"


def test_pin_parsing_keeps_nccl_and_cudnn_apart():
    requires = ['nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"',
                'nvidia-nccl-cu13==2.28.9; platform_system == "Linux"']
    assert nccl_pin(requires, NCCL_PIN)["version"] == "2.28.9"
    assert nccl_pin(requires, CUDNN_PIN) == {"package": "nvidia-cudnn-cu13", "version": "9.19.0.56",
                                             "requirement": requires[0]}
    assert nccl_pin(["numpy"], CUDNN_PIN) is None


def test_without_a_torch_fact_the_release_pin_answers():
    run = run_for("0.25.1")
    libraries = {name: lib for name, lib in run.facts.libraries.items() if name != "torch"}
    bare = dataclasses.replace(run, facts=run.facts.replace(libraries=libraries))
    view = cudnn.view(bare)
    assert view is not None and view["version"] == "9.19.0.56"
    assert view["source"] == "vLLM 0.25.0 pins torch==2.11.0, which pins nvidia-cudnn-cu13==9.19.0.56"
