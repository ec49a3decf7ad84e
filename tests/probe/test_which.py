"""The PATH search the probes use instead of shutil.which: the same answer on the cases a probe meets."""

import os
import shutil

import pytest

from doctor.probe.toolkit import which


@pytest.fixture
def bins(tmp_path):
    first, second, plain = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder in (first, second, plain):
        folder.mkdir()
    (first / "nvcc").mkdir()  # a directory of that name is not a program
    (plain / "nvcc").write_text("not executable")
    tool = second / "nvcc"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    return first, second, plain


def test_first_executable_file_wins(bins):
    first, second, plain = bins
    path = os.pathsep.join(map(str, (first, plain, second, first)))
    assert which("nvcc", path) == str(second / "nvcc") == shutil.which("nvcc", path=path)


def test_nothing_found(bins):
    first, _, plain = bins
    path = os.pathsep.join(map(str, (first, plain, "/nonexistent")))
    assert which("nvcc", path) is None and shutil.which("nvcc", path=path) is None
    assert which("nvcc", "") is None
