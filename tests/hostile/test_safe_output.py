"""Issue 15 point 2: reports and configs are written through symlinks, into FIFOs and devices as streams,
never replacing a special file, keeping the mode of the file they replace; `moe-config -o DIR` backs up a
hand-edited config (with --force) or refuses."""

import os
import stat
import threading
from pathlib import Path

import pytest

from doctor import output
from doctor.cli import main
from doctor.errors import InputError

CHECK = ["check", "meta-llama/Llama-3.1-8B-Instruct", "--hardware", "rtx-5090", "--offline", "--format", "json"]
MOE = ["moe-config", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8", "--offline"]


def test_output_through_a_symlink_keeps_the_link(tmp_path, capsys):
    real = tmp_path / "reports" / "report.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    main([*CHECK, "--output", str(link)])
    assert link.is_symlink() and real.read_text().startswith("{")


def test_output_into_a_fifo_streams_and_keeps_the_fifo(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert main([*CHECK, "--output", str(fifo)]) in (0, 1)
    reader.join(10)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and got and got[0].startswith(b"{")


def test_fifo_without_a_reader_is_one_error_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr(output, "FIFO_READER_WAIT_S", 0.2)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="no process reads the FIFO"):
        output.write_text_atomic(fifo, "x")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_node_is_written_not_replaced(tmp_path, capsys):
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    assert main([*CHECK, "--output", str(null)]) in (0, 1)
    assert stat.S_ISCHR(null.lstat().st_mode)


def test_the_mode_of_a_replaced_file_is_kept(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_text("old")
    report.chmod(0o640)
    main([*CHECK, "--output", str(report)])
    assert stat.S_IMODE(report.stat().st_mode) == 0o640


def test_a_new_file_gets_the_umask_mode(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        main([*CHECK, "--output", str(tmp_path / "new.json")])
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644


def test_a_directory_is_refused_on_one_line(tmp_path, capsys):
    assert main([*CHECK, "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and len(err.strip().splitlines()) == 1


def _config_file(root: Path) -> Path:
    return next(root.glob("configs/*/*.json"))


def test_moe_config_refuses_to_overwrite_a_hand_edited_file(tmp_path, capsys):
    out = tmp_path / "moe"
    assert main([*MOE, "-o", str(out)]) == 0
    config = _config_file(out)
    config.write_text('{"1": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64}}\n')
    config.chmod(0o600)
    capsys.readouterr()
    assert main([*MOE, "-o", str(out)]) == 2
    assert "hand-edited" in capsys.readouterr().err and config.read_text().startswith('{"1"')
    assert main([*MOE, "-o", str(out), "--force"]) == 0
    backup = config.with_name(config.name + ".bak")
    assert backup.read_text().startswith('{"1"') and config.read_text() != backup.read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


def test_moe_config_rerun_with_the_same_content_is_quiet(tmp_path, capsys):
    out = tmp_path / "moe"
    assert main([*MOE, "-o", str(out)]) == 0
    assert main([*MOE, "-o", str(out)]) == 0
    assert not list(out.glob("configs/*/*.bak*"))
