"""Link loops, dangling links and FIFOs named like libraries: never opened, never an internal error,
always noted (issue 15, point 7)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs, scan_environment, torch_arch_list
from doctor.cli import main
from tests.binaries.synthetic import KIND_PTX, entry, fatbin, ptx_text, shared_object_with_blob


@pytest.fixture
def odd_site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    lib = site / "torch" / "lib"
    lib.mkdir(parents=True)
    shared_object_with_blob(lib, fatbin(entry(KIND_PTX, 120, ptx_text(120, ["_Z1kv"]))), name="libgood.so")
    os.symlink("libloop.so", lib / "libloop.so")
    os.symlink("missing.so.12", lib / "libdangling.so")
    os.mkfifo(lib / "libfifo.so")
    os.symlink(".", lib / "libdir.so")  # a link to a directory: left alone like any directory link
    return site


def _no_hang(function, *args):
    """Run `function` in a thread; a FIFO opened for reading would block it forever."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(function(*args)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "blocked: a special file was opened for reading"
    return result[0]


def test_scan_notes_every_odd_path(odd_site: Path) -> None:
    report = _no_hang(scan_environment, [odd_site], None, (12, 0))
    assert [Path(f.path).name for f in report.files] == ["libgood.so"]
    why = {Path(path).name: reason for path, reason in report.skipped}
    assert why["libloop.so"] == "symlink loop (not followed)"
    assert why["libdangling.so"] == "dangling symlink to missing.so.12"
    assert why["libfifo.so"] == "not a regular file (a FIFO): not opened"
    assert "libdir.so" not in why
    assert report.to_dict()["skipped"]


def test_reader_never_opens_a_fifo(odd_site: Path) -> None:
    info = _no_hang(read_cuda_archs, odd_site / "torch" / "lib" / "libfifo.so")
    assert info.error == "not a regular file (a FIFO): not opened"
    loop = read_cuda_archs(odd_site / "torch" / "lib" / "libloop.so")
    assert loop.error is not None and loop.error.startswith("cannot read") and "\n" not in loop.error


def test_torch_arch_list_skips_odd_paths(odd_site: Path) -> None:
    assert _no_hang(torch_arch_list, [odd_site]) == ["compute_120"]


@pytest.mark.parametrize("name", ["libloop.so", "libdangling.so", "libfifo.so", None])
def test_binaries_command_reports_and_exits_cleanly(odd_site: Path, name: str | None,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    target = odd_site if name is None else odd_site / "torch" / "lib" / name
    code = _no_hang(main, ["binaries", str(target)])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert "Skipped, not opened:" in out
    if name is not None:
        assert name in out


def test_explicit_missing_path_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["binaries", str(tmp_path / "nope.so")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_json_lists_skipped(odd_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["binaries", str(odd_site), "--format", "json"]) == 0
    skipped = json.loads(capsys.readouterr().out)["skipped"]
    assert {"path": str(odd_site / "torch" / "lib" / "libloop.so"), "why": "symlink loop (not followed)"} in skipped
