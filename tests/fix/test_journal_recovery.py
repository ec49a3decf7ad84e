"""Issue 15 point 1: a torn or undecodable last journal line is set aside and reported, every intact entry
is reverted (the files on disk settle what the lost line would have said); a damaged earlier line, a
changed file or an unreadable one makes `revert` refuse with exit 2 before it changes anything. Symlinked
files keep their link through --fix and revert."""

import json
import os
from pathlib import Path

import pytest

from doctor.cli import main
from doctor.fix.journal import Journal
from doctor.fix.writer import write_with_journal

ORIGINAL = {"launch.sh": b"#!/bin/sh\necho original\n", "extend_attention.py": b"BLOCK_M = 128\n"}
PATCHED = {"launch.sh": b"#!/bin/sh\necho fixed\n", "extend_attention.py": b"BLOCK_M = 64\n"}


@pytest.fixture
def fixed(tmp_path, monkeypatch):
    """Two files written through the journal, the way --fix writes a launch script and then a patch."""
    state = tmp_path / "state"
    monkeypatch.setenv("SM120_DOCTOR_STATE_DIR", str(state))
    files = {}
    for name, data in ORIGINAL.items():
        files[name] = tmp_path / name
        files[name].write_bytes(data)
    journal = Journal(state)
    with journal.locked():
        for name in ORIGINAL:
            write_with_journal(journal, files[name], PATCHED[name], "SGL101", "write", lambda _p: None)
    return files, state / "journal.jsonl"


def _revert(capsys, *args):
    code = main(["revert", *args])
    err = capsys.readouterr().err
    return code, err


def _contents(files):
    return {name: path.read_bytes() for name, path in files.items()}


def _cut_last_line(journal: Path, keep: int) -> None:
    data = journal.read_bytes()
    start = data[:-1].rfind(b"\n") + 1
    journal.write_bytes(data[:start + keep])


def test_torn_last_line_reverts_every_file_and_names_the_entry(fixed, capsys):
    files, journal = fixed
    last_id = json.loads(journal.read_bytes().splitlines()[-1])["id"]
    _cut_last_line(journal, keep=70)  # the engine file's "applied" line, cut mid-way
    code, err = _revert(capsys)
    assert code == 0
    assert _contents(files) == ORIGINAL
    assert "line 4 is torn" in err and last_id in err
    assert (journal.parent / "journal.jsonl.torn").is_file()
    assert {e.status for e in Journal(journal.parent).entries()} == {"reverted"}


@pytest.mark.parametrize("last_line", [b"\xff\xfe not utf-8\n", b'{"path": null}\n', b"[1, 2]\n"])
def test_undecodable_last_line_is_set_aside(fixed, capsys, last_line):
    files, journal = fixed
    journal.write_bytes(journal.read_bytes() + last_line)
    code, err = _revert(capsys)
    assert code == 0 and _contents(files) == ORIGINAL
    assert "line 5 is torn" in err and len(err.strip().splitlines()) == 3


def test_null_path_in_an_earlier_line_refuses_and_changes_nothing(fixed, capsys):
    files, journal = fixed
    lines = journal.read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[0])
    entry["path"] = None
    lines[0] = json.dumps(entry).encode() + b"\n"
    journal.write_bytes(b"".join(lines))
    code, err = _revert(capsys)
    assert code == 2 and _contents(files) == PATCHED
    assert "line 1 is damaged" in err and len(err.strip().splitlines()) == 1


def test_lost_revert_line_is_settled_from_disk(fixed, capsys):
    files, journal = fixed
    newest = Journal(journal.parent).entries()[-1]
    assert _revert(capsys, newest.id)[0] == 0
    _cut_last_line(journal, keep=30)  # its "reverted" line never made it
    code, err = _revert(capsys)
    assert code == 0 and _contents(files) == ORIGINAL
    assert "already holds its original" in err


def test_a_changed_file_refuses_before_touching_any(fixed, capsys):
    files, _ = fixed
    files["launch.sh"].write_bytes(b"hand edited\n")  # the older entry; the newer one would go first
    code, err = _revert(capsys)
    assert code == 2 and "not reverting anything" in err
    assert files["extend_attention.py"].read_bytes() == PATCHED["extend_attention.py"]


def test_a_fifo_in_place_of_a_fixed_file_refuses(fixed, capsys):
    files, _ = fixed
    files["launch.sh"].unlink()
    os.mkfifo(files["launch.sh"])
    code, err = _revert(capsys)
    assert code == 2 and "not a regular file" in err
    assert files["extend_attention.py"].read_bytes() == PATCHED["extend_attention.py"]


def test_newline_in_an_entry_id_is_escaped(fixed, capsys):
    code, err = _revert(capsys, "bad\nid")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bad\\nid" in err


def test_symlinked_engine_file_keeps_its_link(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SM120_DOCTOR_STATE_DIR", str(tmp_path / "state"))
    real = tmp_path / "site" / "extend_attention.py"
    real.parent.mkdir()
    real.write_bytes(ORIGINAL["extend_attention.py"])
    link = tmp_path / "link.py"
    link.symlink_to(real)
    journal = Journal(tmp_path / "state")
    with journal.locked():
        write_with_journal(journal, link, PATCHED["extend_attention.py"], "SGL101", "patch", lambda _p: None)
    assert link.is_symlink() and real.read_bytes() == PATCHED["extend_attention.py"]
    assert main(["revert"]) == 0
    assert link.is_symlink() and real.read_bytes() == ORIGINAL["extend_attention.py"]
