"""Built-in hardware profiles: each loads, cites its sources, and carries the figures its sources give."""

import contextlib
import io
import json

import pytest

from doctor.cli import main
from doctor.hardware import PROFILES, load_profile, profile_names

MiB = 1 << 20
# profile: (GPU name, count, NVML MiB, SMs or None where no source gave them)
CONSUMER_AND_PRO = {
    "rtx-5060": ("NVIDIA GeForce RTX 5060", 1, 8151, None),
    "rtx-5060-ti-16gb": ("NVIDIA GeForce RTX 5060 Ti", 1, 16311, 36),
    "rtx-5060-ti-8gb": ("NVIDIA GeForce RTX 5060 Ti", 1, 8151, 36),
    "rtx-5070-ti": ("NVIDIA GeForce RTX 5070 Ti", 1, 16303, None),
    "rtx-5080": ("NVIDIA GeForce RTX 5080", 1, 16303, 84),
    "rtx-5090-laptop": ("NVIDIA GeForce RTX 5090 Laptop GPU", 1, 24463, None),
    "rtx-5080-laptop": ("NVIDIA GeForce RTX 5080 Laptop GPU", 1, 16303, None),
    "rtx-5070-laptop": ("NVIDIA GeForce RTX 5070 Laptop GPU", 1, 8151, None),
    "rtx-5060-laptop": ("NVIDIA GeForce RTX 5060 Laptop GPU", 1, 8151, None),
    "rtx-pro-2000": ("NVIDIA RTX PRO 2000 Blackwell", 1, 16311, None),
    "rtx-pro-4000": ("NVIDIA RTX PRO 4000 Blackwell", 1, 24467, 70),
    "rtx-pro-4500": ("NVIDIA RTX PRO 4500 Blackwell", 1, 32623, 82),
    "rtx-pro-6000-maxq": ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 1, 97887, 188),
    "rtx-pro-6000-server": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", 1, 97887, 188),
    "rtx-5090-x4": ("NVIDIA GeForce RTX 5090", 4, 32607, 170),
    "rtx-pro-6000-x2": ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 2, 97887, 188),
    "rtx-pro-6000-phb-x2": ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 2, 97887, 188),
}


@pytest.mark.parametrize("name", profile_names())
def test_every_profile_loads_and_cites_its_sources(name):
    raw = json.loads((PROFILES / f"{name}.json").read_text(encoding="utf-8"))
    assert raw["source"]["name"] == name and raw["source"]["references"]
    facts = load_profile(name)
    for gpu in facts.gpus:
        if gpu.compute_capability.startswith("12."):
            assert gpu.smem_per_block_optin == 101376


@pytest.mark.parametrize(("name", "expected"), sorted(CONSUMER_AND_PRO.items()))
def test_profile_figures(name, expected):
    gpu_name, count, mib, sms = expected
    gpus = load_profile(name).gpus
    assert len(gpus) == count
    for gpu in gpus:
        assert (gpu.name, gpu.compute_capability, gpu.memory_total_bytes, gpu.sm_count) == (
            gpu_name, "12.0", mib * MiB, sms)
        assert not gpu.unified_memory


def test_derived_figures_say_so():
    for name in ("rtx-5060-ti-8gb", "rtx-5070-laptop"):
        notes = " ".join(json.loads((PROFILES / f"{name}.json").read_text())["source"]["notes"])
        assert "DERIVED" in notes


def test_multi_gpu_layouts():
    x4 = load_profile("rtx-5090-x4")
    assert len(x4.topology) == 6 and {link.kind for link in x4.topology} == {"PHB"}
    assert not any(link.p2p_read or link.p2p_write or link.p2p_nvlink for link in x4.topology)
    x2 = load_profile("rtx-pro-6000-x2")
    assert [(link.a, link.b, link.kind) for link in x2.topology] == [(0, 1, "NODE")]
    phb = load_profile("rtx-pro-6000-phb-x2")
    assert [(link.a, link.b, link.kind) for link in phb.topology] == [(0, 1, "PHB")]


@pytest.mark.parametrize("name", sorted(CONSUMER_AND_PRO))
def test_check_runs_on_each_new_profile(name):
    gpus = CONSUMER_AND_PRO[name][1]
    args = ["check", "Qwen/Qwen3-8B", "--offline", "--hardware", name, "--format", "json", "--tp", str(gpus)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    assert code in (0, 1)
    report = json.loads(out.getvalue())
    assert report["facts"]["source"]["name"] == name
