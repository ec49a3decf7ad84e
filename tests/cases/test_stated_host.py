"""Every public-failure case that states a driver release or WSL2 (as recorded facts, `driver` / `host`) still gets
the rules it expects when the same release and WSL2 are stated as `check --hardware P --driver X --wsl` states them
(`driver_release`, `wsl`: doctor/hardware/stated.py), the CUDA driver version then coming from NVIDIA's table."""

from __future__ import annotations

import dataclasses

import pytest

from tests.cases.deployment import Case, load_cases, run_case

# The report states a CUDA version the table cannot give its release: a Windows R575 driver after the table's last
# Windows row (576.57), so the flag leaves the CUDA version unknown and IMG003 (which reads it) stays silent
NOT_EXPRESSIBLE = {"ods-49-server-cuda13-on-cuda-12-9-driver": "IMG003"}


def as_flags(case: Case) -> Case:
    driver = {k: v for k, v in case.driver.items() if k not in ("present", "driver_version", "cuda_driver_version")}
    host = {k: v for k, v in case.host.items() if k != "wsl"}
    return dataclasses.replace(case, driver=driver, host=host, driver_release=case.driver.get("driver_version"),
                               wsl=bool(case.host.get("wsl")))


STATING = [c for c in load_cases() if c.driver.get("driver_version") or c.host.get("wsl")]


def test_the_cases_that_state_a_driver_or_wsl_are_found():
    assert len(STATING) >= 30 and set(NOT_EXPRESSIBLE) <= {c.id for c in STATING}


@pytest.mark.parametrize("case", STATING, ids=lambda c: c.id)
def test_a_case_stated_with_the_flags_gets_its_rules(case: Case):
    found = {f.id for f in run_case(as_flags(case)).findings}
    expected = set(case.expect) - {NOT_EXPRESSIBLE.get(case.id)}
    assert expected <= found, sorted(found)
    if case.id in NOT_EXPRESSIBLE:
        assert NOT_EXPRESSIBLE[case.id] not in found  # when the table learns the release, this entry must go
