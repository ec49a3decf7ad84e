"""Facts recorded by `sm120-doctor snapshot` on real machines (the device machine, 2026-11-22),
checked against what nvidia-smi and torch said on the same machine (fixtures/device/)."""

import json
from pathlib import Path

from doctor.hardware import smem_per_block_optin
from doctor.validation.facts import load_facts

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def smi_rows(name: str) -> list[dict[str, str]]:
    lines = (FIXTURES / "device" / name).read_text().strip().splitlines()
    header = [h.strip() for h in lines[0].split(",")]
    return [dict(zip(header, (v.strip() for v in line.split(",")), strict=True)) for line in lines[1:]]


def test_h200_x2_live_snapshot_matches_nvidia_smi():
    facts = load_facts(FIXTURES / "facts" / "h200-x2-live.json")
    rows = smi_rows("h200-x2-nvidia-smi.csv")
    assert facts.source.kind == "live" and facts.driver.present
    assert len(facts.gpus) == len(rows) == 2
    for gpu, row in zip(facts.gpus, rows, strict=True):
        assert gpu.name == row["name"] == "NVIDIA H200"
        assert gpu.compute_capability == row["compute_cap"] == "9.0"
        assert gpu.memory_total_bytes == int(row["memory.total [MiB]"].split()[0]) << 20
        assert gpu.pci_bus_id == row["pci.bus_id"]
        assert facts.driver.driver_version == row["driver_version"]
    topo = (FIXTURES / "device" / "h200-x2-nvidia-smi-topo.txt").read_text()
    assert "NV18" in topo and facts.topology[0].kind == "NV18"
    assert facts.topology[0].p2p_read and facts.topology[0].p2p_nvlink


def test_h200_deep_smem_from_torch_equals_the_table():
    facts = load_facts(FIXTURES / "facts" / "h200-x2-live-deep.json")
    props = (FIXTURES / "device" / "h200-x2-torch-props.txt").read_text()
    for gpu in facts.gpus:
        assert gpu.smem_source == "torch"
        assert gpu.smem_per_block_optin == smem_per_block_optin(gpu.capability) == 232448
        assert f"{gpu.smem_per_block_optin}" in props
        assert gpu.sm_count == 132 and "multi_processor_count=132" in props
    torch = facts.libraries["torch"]
    assert torch.details["arch_list"] == json.loads(props.splitlines()[2].replace("'", '"'))


def test_nvml_unsupported_queries_are_recorded_not_fatal():
    facts = load_facts(FIXTURES / "facts" / "h200-x2-live.json")
    assert all("numa_node_id: not supported" in g.unsupported for g in facts.gpus)


def test_h100_single_gpu_live_snapshot():
    facts = load_facts(FIXTURES / "facts" / "h100-live.json")
    deep = load_facts(FIXTURES / "facts" / "h100-live-deep.json")
    row = smi_rows("h100-nvidia-smi.csv")[0]
    props = (FIXTURES / "device" / "h100-torch-props.txt").read_text()
    gpu, deep_gpu = facts.gpus[0], deep.gpus[0]
    assert len(facts.gpus) == 1 and facts.topology == ()
    assert gpu.name == row["name"] == "NVIDIA H100 80GB HBM3" and gpu.compute_capability == "9.0"
    assert gpu.memory_total_bytes == int(row["memory.total [MiB]"].split()[0]) << 20
    assert deep_gpu.smem_source == "torch" and deep_gpu.smem_per_block_optin == 232448
    assert props.strip().endswith(str(smem_per_block_optin(gpu.capability)))
    assert deep_gpu.sm_count == 132
