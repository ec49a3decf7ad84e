"""A torch version stated without its build label (`--engine torch==2.10.0`) names several builds: PyPI's (a CPU
build on aarch64 up to 2.10), download.pytorch.org's, an NGC image's. The doctor reads PyPI's wheel for it, and a
finding that rests on that build is at most a warning; one that rests on the version alone keeps its severity."""

from __future__ import annotations

from doctor.hardware import load_profile
from doctor.pipeline.check import check_facts
from doctor.pipeline.gather import with_engines


def severities(profile: str, *specs: str) -> dict[str, str]:
    report = check_facts(with_engines(load_profile(profile).replace(libraries={}), list(specs)), [])
    return {f.id: f.severity for f in report.findings}


def test_pypis_aarch64_build_of_a_bare_version_is_an_assumption():
    # held-out #2 F8: PyTorch 2.10.0 inside NGC 26.01 on a DGX Spark served
    found = severities("dgx-spark", "torch==2.10.0")
    assert found["PYT001"] == "warning" and found["TORCH001"] == "warning"


def test_a_stated_build_keeps_the_rules_severity():
    assert severities("dgx-spark", "torch==2.10.0+cpu")["PYT001"] == "error"
    assert severities("rtx-5090", "torch==2.7.0+cu126")["TORCH001"] == "error"


def test_a_finding_on_the_version_alone_keeps_its_severity():
    assert severities("rtx-5090", "torch==2.6.0")["TORCH002"] == "error"
