"""Whose `_cutlass_ir` extension is on disk when nvidia-cutlass-dsl's -libs-base and -libs-cu13 both unpack it.
The sizes are the two 4.5.0 wheels' (their RECORD files on PyPI): 144093544 (base) and 151888168 (cu13)."""

from __future__ import annotations

from pathlib import Path

from doctor.probe.cutlass_dsl import cutlass_dsl_details

IR = "nvidia_cutlass_dsl/python_packages/cutlass/_mlir/_mlir_libs/_cutlass_ir.cpython-311-x86_64-linux-gnu.so"
BASE_SIZE, CU13_SIZE = 144093544, 151888168


def _wheel(site: Path, name: str, size: int) -> None:
    meta = site / f"{name}-4.5.0.dist-info"
    meta.mkdir()
    (meta / "RECORD").write_text(f"nvidia_cutlass_dsl/__init__.py,sha256=x,10\n{IR},sha256=y,{size}\n"
                                 f"{meta.name}/RECORD,,\n")


def _on_disk(site: Path, size: int) -> None:
    target = site / IR
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as handle:
        handle.truncate(size)  # sparse: the probe reads the size, never the bytes


def _site(tmp_path: Path, wheels: dict[str, int], disk: int | None) -> list[str]:
    for name, size in wheels.items():
        _wheel(tmp_path, name, size)
    if disk is not None:
        _on_disk(tmp_path, disk)
    return [str(tmp_path)]


BOTH = {"nvidia_cutlass_dsl_libs_base": BASE_SIZE, "nvidia_cutlass_dsl_libs_cu13": CU13_SIZE}


def test_base_written_last_wins_over_cu13(tmp_path):
    details = cutlass_dsl_details(_site(tmp_path, BOTH, BASE_SIZE))
    assert details == {"libs_base_installed": True, "libs_cu13_installed": True, "libs_files": "base"}


def test_cu13_written_last(tmp_path):
    assert cutlass_dsl_details(_site(tmp_path, BOTH, CU13_SIZE))["libs_files"] == "cu13"


def test_a_file_neither_wheel_wrote(tmp_path):
    assert cutlass_dsl_details(_site(tmp_path, BOTH, 12345))["libs_files"] == "neither"


def test_base_alone(tmp_path):
    details = cutlass_dsl_details(_site(tmp_path, {"nvidia_cutlass_dsl_libs_base": BASE_SIZE}, BASE_SIZE))
    assert details == {"libs_base_installed": True, "libs_cu13_installed": False, "libs_files": "base"}


def test_no_file_on_disk_leaves_it_open(tmp_path):
    assert "libs_files" not in cutlass_dsl_details(_site(tmp_path, BOTH, None))


def test_tied_sizes_leave_it_open(tmp_path):
    same = {"nvidia_cutlass_dsl_libs_base": BASE_SIZE, "nvidia_cutlass_dsl_libs_cu13": BASE_SIZE}
    assert "libs_files" not in cutlass_dsl_details(_site(tmp_path, same, BASE_SIZE))


def test_nothing_installed(tmp_path):
    assert cutlass_dsl_details([str(tmp_path)]) == {"libs_base_installed": False, "libs_cu13_installed": False}
