"""Environment scan, distribution grouping, torch arch list and the `binaries` subcommand."""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from doctor.binaries import scan_environment, torch_arch_list
from doctor.cli import main
from doctor.commands.binaries import register, run


def _dist(site: Path, name: str, version: str, files: list[str]) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    rows = [f"{f},sha256=x,1" for f in files] + [f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(rows) + "\n")


@pytest.fixture
def site(built: dict[str, Path], tmp_path: Path, nvcc: str) -> Path:
    """A small site-packages: an engine with native + Hopper-only libs, a PTX-only lib, an old lib."""
    root = tmp_path / "site-packages"
    layout = {
        "fake_engine/_C.abi3.so": "sm120f",
        "fake_engine/attn/_fa3_C.abi3.so": "sm90a",
        "fake_engine/attn/_fa2_C.abi3.so": "ptx80",
        "old_kernels/libold.so": "sm90",
        "torch/lib/libtorch_cuda.so": "sm120_ptx",
        "torch/lib/libc10_cuda.so": "multi_nocompress",
    }
    for rel, build in layout.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(built[build], root / rel)
    source = tmp_path / "plain.c"
    source.write_text("int f(void) { return 1; }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(root / "torch/lib/libtorch_cpu.so"), str(source)],
                   check=True, timeout=120)
    _dist(root, "fake-engine", "1.2.3", [k for k in layout if k.startswith("fake_engine/")])
    torch_files = [k for k in layout if k.startswith("torch/")] + ["torch/lib/libtorch_cpu.so"]
    _dist(root, "torch", "2.99.0", torch_files)
    return root


def test_scan_groups_by_distribution(site: Path) -> None:
    report = scan_environment([site], None, (12, 0))
    groups = {g.name: g for g in report.packages}
    assert sorted(groups) == ["fake-engine", "old-kernels", "torch"]
    assert groups["fake-engine"].version == "1.2.3"
    assert groups["old-kernels"].version is None  # no dist-info: named by its top-level dir
    assert groups["fake-engine"].verdict == "ptx-jit"  # fa3 (sm_90a only) is deliberate, fa2 JITs
    assert groups["old-kernels"].verdict == "none"
    assert groups["torch"].verdict == "native"
    assert [Path(f.path).name for f in report.failures] == ["libold.so"]
    assert report.skipped_non_cuda == 1  # libtorch_cpu.so
    assert report.candidates == 7


def test_scan_json_shape(site: Path) -> None:
    data = json.loads(json.dumps(scan_environment([site], None, (12, 1)).to_dict()))
    assert data["target"] == "sm_121"
    for entry in data["files"]:
        assert {"path", "sass", "ptx", "verdict", "error", "package", "reason"} <= set(entry)
    engine = next(p for p in data["packages"] if p["name"] == "fake-engine")
    assert engine["sass"] == ["sm_90a", "sm_120f"] and engine["ptx"] == ["compute_80", "compute_120f"]
    assert engine["deliberate_none"] == 1
    assert engine["largest"][0]["size"] >= engine["largest"][-1]["size"]


def test_scan_package_filter(site: Path) -> None:
    report = scan_environment([site], ["fake_engine"], (12, 0))
    assert {f.package for f in report.files} == {"fake-engine"} and len(report.files) == 3
    assert scan_environment([site], ["fake"], (12, 0)).files  # prefix of a dist name
    assert not scan_environment([site], ["vllm"], (12, 0)).files


def test_scan_subdirectory_still_finds_distribution(site: Path) -> None:
    report = scan_environment([site / "fake_engine" / "attn"], None, (12, 0))
    assert {(f.package, f.version) for f in report.files} == {("fake-engine", "1.2.3")}


def test_torch_arch_list(site: Path, tmp_path: Path) -> None:
    assert torch_arch_list([site]) == ["sm_120", "compute_120"]
    assert torch_arch_list([site], union=True) == ["sm_90", "sm_120", "compute_120"]
    assert torch_arch_list([tmp_path / "nowhere"]) is None
    (tmp_path / "cpu" / "torch" / "lib").mkdir(parents=True)
    shutil.copy(site / "torch/lib/libtorch_cpu.so", tmp_path / "cpu" / "torch" / "lib")
    assert torch_arch_list([tmp_path / "cpu"]) == []


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser)
    return parser.parse_args(list(argv))


def test_command_exit_codes(site: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    assert run(_args(str(site / "torch")), out) == 0
    assert run(_args(str(site / "fake_engine")), out) == 0         # deliberate + JIT: not a failure
    assert run(_args(str(site)), out) == 1                         # libold.so: sm_90 only
    assert run(_args(str(site / "fake_engine"), "--arch", "sm_90"), out) == 0  # sm_120f lib: deliberate
    assert run(_args(str(site / "old_kernels"), "--arch", "sm_90"), out) == 0
    assert run(_args(str(site / "old_kernels"), "--arch", "sm_100"), out) == 1
    assert run(_args("--arch", "blackwell", str(site)), out) == 2
    assert run(_args(str(tmp_path / "missing")), out) == 2
    (tmp_path / "empty").mkdir()
    assert run(_args(str(tmp_path / "empty")), out) == 0          # nothing to check


def test_command_json_and_text(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["binaries", str(site), "--format", "json", "--arch", "12.1", "--packages", "torch,old_kernels"]
    assert main(argv) == 1
    data = json.loads(capsys.readouterr().out)
    assert {p["name"] for p in data["packages"]} == {"torch", "old-kernels"}
    assert main(["binaries", str(site)]) == 1
    text = capsys.readouterr().out
    assert "Compiled-arch audit for sm_120" in text
    assert "No image for this GPU" in text and "libold.so" in text
    assert "PTX JIT at first launch" in text and "_fa2_C.abi3.so" in text
    assert "_fa3_C.abi3.so" in text.split("on purpose")[1]
