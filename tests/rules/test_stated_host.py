"""`--driver` / `--wsl` state a profile's driver and WSL2 (doctor/hardware/stated.py). Every rule that reads the
driver or WSL2 must judge the stated values exactly as it judges a facts file holding the same values: for each
rule case that states a driver or WSL2, the facts are built both ways and the findings compared."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from doctor.hardware import load_profile
from doctor.hardware.stated import HostWhatIf, apply_host_what_if, cuda_for_driver
from doctor.pipeline.facts import Driver, Facts, to_jsonable
from doctor.validation.facts import load_facts
from tests.rules.builders import RULES, Case, build, findings

# What --driver and --wsl set: the release, its CUDA driver API version, the kernel module's flavour, WSL2, and the
# context values read from them
STATED = re.compile(r"(driver\.(driver_version|cuda_driver_version|major|cuda_major_below_torch)|host\.wsl"
                    r"|host\.nvidia_module|image\.cuda_newer_minor|llama_cpp\.driver_cuda_major)")


def _facts_read(node: object) -> list[str]:
    if isinstance(node, dict):
        return [*([node["fact"]] if "fact" in node else []), *(f for v in node.values() for f in _facts_read(v))]
    if isinstance(node, list | tuple):
        return [f for v in node for f in _facts_read(v)]
    return []


def _live_only(conditions: list) -> bool:
    """A rule about the machine the doctor runs on (DRV005: the probe found no GPU): no profile can state it."""
    return {"fact": "source.kind", "eq": "live"} in conditions


GATED = sorted(r.id for r in RULES if any(STATED.fullmatch(f) for f in _facts_read(list(r.when)))
               and not _live_only(list(r.when)))


def _all_cases() -> list[Case]:
    from tests.rules import test_rule_cases
    from tests.rules.area_cases import AREA_CASES

    return [*test_rule_cases.CASES, *(c for c in AREA_CASES if c not in test_rule_cases.CASES)]


def _stated(facts: Facts) -> HostWhatIf:
    return HostWhatIf(driver=facts.driver.driver_version, wsl=bool(facts.host.wsl), module=facts.host.nvidia_module)


LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def stated_case(rule: str, fires: bool, driver: str | None, wsl: bool, engines: tuple[str, ...],
                profile: str = "rtx-5090", model: str | None = LLAMA, module: str | None = None) -> Case:
    """A deployment whose facts state a real driver release (with the CUDA version NVIDIA's table gives it) and
    WSL2 as a facts file would: the equivalence test states them with the flags instead."""
    def facts() -> Facts:
        built = build(profile, model, engines)
        if driver:
            cuda = cuda_for_driver(driver, windows=wsl)
            built = built.replace(driver=Driver(present=True, driver_version=driver, cuda_driver_version=cuda))
        return built.replace(host=dataclasses.replace(built.host, wsl=wsl or built.host.wsl,
                                                      nvidia_module=module or built.host.nvidia_module))
    flavour = f" ({module} module)" if module else ""
    why = f"{driver or 'no driver'}{flavour}{' on WSL2' if wsl else ''} {' '.join(engines)}"
    return Case(rule, fires, facts, why=why)


# Real releases, each rule inside and just outside its scope
STATED_CASES = [
    stated_case("DRV001", True, "565.57.01", False, ()),
    stated_case("DRV001", False, "570.26", False, ()),
    stated_case("VLLM011", True, "575.64.05", False, ("vllm==0.20.0",)),
    stated_case("VLLM011", False, "580.105.08", False, ("vllm==0.20.0",)),
    stated_case("VLLM011", False, "575.64.05", False, ("vllm==0.19.0",)),
    stated_case("DRV003", True, "575.64.05", False, ("vllm==0.20.0",)),
    stated_case("DRV003", False, "580.105.08", False, ("vllm==0.20.0",)),
    stated_case("OLL042", True, "580.105.08", False, ("ollama==0.20.0",), model=None),
    stated_case("OLL042", False, "575.64.05", False, ("ollama==0.20.0",), model=None),
    stated_case("WSL001", True, None, True, ("vllm==0.17.1",)),
    stated_case("WSL001", False, None, False, ("vllm==0.17.1",)),
    stated_case("WSL020", True, "581.57", True, ("vllm==0.24.0",)),
    stated_case("WSL020", False, "581.57", True, ("vllm==0.21.0",)),
    stated_case("DRV004", True, "595.71.05", False, (), profile="rtx-pro-6000", model=None, module="proprietary"),
    stated_case("DRV004", True, None, False, (), model=None, module="proprietary"),
    stated_case("DRV004", False, "595.71.05", False, (), profile="rtx-pro-6000", model=None, module="open"),
    stated_case("DRV004", False, "595.71.05", False, (), profile="h100-sxm-x8", model=None, module="proprietary"),
]
CASES = [c for c in [*_all_cases(), *STATED_CASES] if c.rule in GATED and _stated(c.facts())]


def by_flag(facts: Facts) -> Facts:
    """The case's facts with the driver and WSL2 of its profile, then stated as `--driver` / `--wsl` state them."""
    profile = load_profile(facts.source.name or "")
    plain = facts.replace(driver=profile.driver, host=dataclasses.replace(facts.host, wsl=profile.host.wsl,
                                                                          nvidia_module=profile.host.nvidia_module))
    return apply_host_what_if(plain, _stated(facts))


def by_file(facts: Facts, folder: Path) -> Facts:
    """The same facts as a user's --facts file states them: the release, its CUDA version from NVIDIA's table."""
    stated = _stated(facts)
    data = to_jsonable(facts)
    if stated.driver:
        data["driver"] = {**data["driver"], "present": True, "driver_version": stated.driver,
                          "cuda_driver_version": cuda_for_driver(stated.driver, windows=stated.wsl)}
    path = folder / "facts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_facts(path)


def _judged(facts: Facts, case: Case) -> dict[str, list[tuple[str, str]]]:
    found = findings(facts, *case.args, kernels=case.kernels,
                     launch_file=case.launch_file() if case.launch_file else None)
    return {rule: [(f.severity, f.message) for f in items] for rule, items in found.items()}


def test_every_rule_that_reads_the_driver_or_wsl_has_a_case_that_states_it():
    assert len(GATED) >= 10, GATED  # the scan finds the family (a broken pattern would find none)
    assert sorted({c.rule for c in CASES}) == GATED


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_stated_on_the_command_line_reads_as_a_facts_file(case: Case, tmp_path: Path):
    facts = case.facts()
    assert _judged(by_flag(facts), case) == _judged(by_file(facts, tmp_path), case)


@pytest.mark.parametrize("case", STATED_CASES, ids=lambda c: c.name)
def test_a_stated_driver_or_wsl_reaches_the_rule(case: Case):
    assert (case.rule in _judged(by_flag(case.facts()), case)) is case.fires


@pytest.mark.parametrize(("driver", "windows", "cuda"), [
    ("580.105.08", False, "13.0"), ("580.65.06", False, "13.0"), ("575.64.05", False, "12.9"),
    ("570.26", False, "12.8"), ("590.48.01", False, "13.1"), ("610.43.03", False, "13.3"),
    ("535.274.02", False, "12.2"),
    ("580.50.01", False, None),  # below the branch's first toolkit driver
    ("565.57.01", False, None),  # R565: no toolkit release names the branch
    ("616.10", False, None),  # a branch newer than the table
    ("576.80", True, "12.9"), ("572.83", True, "12.8"),
    ("581.57", True, None),  # Windows R580: the table's Windows column is N/A from CUDA 13.0
    ("576.80", False, None),  # a Windows number read as a Linux release names no Linux branch
])
def test_the_cuda_version_of_a_driver_release(driver, windows, cuda):
    assert cuda_for_driver(driver, windows=windows) == cuda


def test_every_table_row_cites_its_toolkit_release_notes():
    from doctor.hardware.stated import DRIVER, TABLE

    rows = json.loads(TABLE.read_text(encoding="utf-8"))["rows"]
    assert len(rows) >= 30
    for row in rows:
        version = row["source"].split("/archive/")[1].split("/")[0]
        assert row["source"].startswith("https://docs.nvidia.com/cuda/archive/"), row
        assert row["toolkit"].startswith(f"CUDA {row['cuda']} ") and version.startswith(row["cuda"] + "."), row
        assert all(DRIVER.fullmatch(v) for v in (row["linux"], row["windows"]) if v), row
