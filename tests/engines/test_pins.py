"""What an engine release's wheel pins (doctor/data/engine_pins.json, tools/engine_pins.py), added to a what-if
deployment that does not name those packages, and the findings that rest on them held to warnings."""

from __future__ import annotations

import json

from doctor.engines.derived_tables import tabulated
from doctor.engines.pins import TABLE, implied_libraries, pinned
from doctor.engines.registry import parse_engine_spec
from doctor.hardware import load_profile
from doctor.pipeline.check import check_facts
from doctor.pipeline.facts import Library
from doctor.pipeline.gather import with_engines

RTX_5090 = (12, 0)
GB10 = (12, 1)


def what_if(*specs: str) -> dict:
    return {lib.name: lib for lib in map(parse_engine_spec, specs)}


def test_the_table_covers_every_release_with_a_derived_table():
    engines = json.loads(TABLE.read_text(encoding="utf-8"))["engines"]
    for engine in ("vllm", "sglang"):
        assert set(tabulated(engine)) <= set(engines[engine]), engine


def test_a_pin_behind_an_extra_pip_install_leaves_out_is_not_implied():
    # vLLM 0.11.0: `flashinfer-python==0.3.1; extra == "flashinfer"`
    assert pinned("vllm", "0.11.0")["torch"]["version"] == "2.8.0"
    assert "flashinfer-python" not in pinned("vllm", "0.11.0")
    assert pinned("vllm", "0.12.0")["flashinfer-python"]["version"] == "0.5.3"


def test_sglangs_srt_extra_is_what_its_install_instructions_take():
    # 0.5.1: `torch==2.8.0; extra == "srt"`; 0.5.3 pins it for every install
    assert pinned("sglang", "0.5.1")["torch"] == {"version": "2.8.0", "exact": True, "extra": "srt",
                                                  "requirement": 'torch==2.8.0; extra == "srt"'}
    assert pinned("sglang", "0.5.3")["torch"]["extra"] is None


def test_pypis_torch_for_an_x86_64_host_brings_its_cuda_and_triton():
    implied = implied_libraries(what_if("vllm==0.9.2"), RTX_5090)
    assert implied["torch"].version == "2.7.0" and implied["torch"].details["cuda_version"] == "12.6"
    assert implied["triton"].version == "3.3.0"
    assert implied["torch"].details["implied_by"] == "vllm==0.9.2"


def test_pypis_aarch64_torch_before_2_11_is_a_cpu_build_so_torch_stays_unknown():
    # no stack serves on PyPI's aarch64 CPU build: a Spark running vLLM 0.11/0.19 has torch from elsewhere (NGC)
    implied = implied_libraries(what_if("vllm==0.11.0"), GB10)
    assert "torch" not in implied and "triton" not in implied
    newer = implied_libraries(what_if("vllm==0.20.0"), GB10)
    assert newer["torch"].details["cuda_version"] == "13.0" and newer["triton"].version == "3.6.0"


def test_a_stated_package_is_never_replaced():
    implied = implied_libraries(what_if("vllm==0.9.2", "torch==2.7.0+cu128", "triton==3.3.1"), RTX_5090)
    assert "torch" not in implied and "triton" not in implied


def test_a_stated_torch_brings_the_triton_its_wheel_pins():
    # every CUDA build of torch 2.7.0 pins triton==3.3.0 on Linux x86_64, the +cu128 one too
    implied = implied_libraries(what_if("vllm==0.9.2", "torch==2.7.0+cu128"), RTX_5090)
    assert "torch" not in implied
    assert implied["triton"].version == "3.3.0" and implied["triton"].details["implied_by"] == "torch==2.7.0+cu128"
    alone = implied_libraries(what_if("torch==2.9.0"), RTX_5090)
    assert alone["triton"].version == "3.5.0"


def test_a_torch_the_table_lacks_or_a_probed_torch_implies_no_triton():
    assert implied_libraries(what_if("torch==2.12.0"), RTX_5090) == {}  # no engine release pins 2.12: not read
    assert implied_libraries(what_if("torch==2.9.0"), GB10) == {}  # PyPI's aarch64 2.9.0 is a CPU build
    probed = {"torch": Library(name="torch", version="2.9.0")}
    assert implied_libraries(probed, RTX_5090) == {}  # a live environment's Triton is probed, not implied


def test_a_release_the_table_lacks_implies_nothing():
    assert implied_libraries(what_if("vllm==0.0.1"), RTX_5090) == {}
    assert pinned("vllm", "0.0.1") == {}


def findings(*specs: str, profile: str = "rtx-5090") -> dict[str, str]:
    report = check_facts(with_engines(load_profile(profile).replace(libraries={}), list(specs)), [])
    return {f.id: f.severity for f in report.findings}


def test_an_error_that_rests_on_an_implied_torch_is_a_warning():
    assert findings("vllm==0.9.2")["TORCH001"] == "warning"
    assert findings("vllm==0.9.2", "torch==2.7.0+cu126")["TORCH001"] == "error"  # stated: the rule's own severity


def test_the_assumption_is_said_in_the_finding():
    report = check_facts(with_engines(load_profile("rtx-5090").replace(libraries={}), ["vllm==0.9.2"]), [])
    torch001 = next(f for f in report.findings if f.id == "TORCH001")
    assert "Assumed, not stated: torch 2.7.0, what vllm==0.9.2 pins" in torch001.message


def test_without_pins_nothing_is_added():
    facts = with_engines(load_profile("rtx-5090").replace(libraries={}), ["vllm==0.9.2"], pinned=False)
    assert set(facts.libraries) == {"vllm"}
