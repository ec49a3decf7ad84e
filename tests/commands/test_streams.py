"""The CLI as a pipe's writer: a reader that leaves early, a stream that cannot encode (issue 15, point 8)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import cli_env

KIMI = ["check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8"]


def _head_one(args: list[str], **env: str) -> tuple[int, str]:
    """Run the doctor with a reader that takes one line and closes the pipe."""
    proc = subprocess.Popen([sys.executable, "-m", "doctor", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=cli_env(**env))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=60), err


@pytest.mark.parametrize(("args", "code"), [(KIMI, 1), ([*KIMI, "--format", "json"], 1), (["rules"], 0),
                                            (["explain", "SGL101"], 0)])
def test_a_reader_that_leaves_early_ends_the_run_quietly_with_its_own_exit_code(args, code):
    exit_code, err = _head_one(args)
    assert (exit_code, err) == (code, "")


@pytest.mark.parametrize("args", [["explain", "SGL101"], KIMI, ["rules"]])
def test_an_ascii_stream_gets_escapes_not_an_error(args):
    done = subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True,
                          env=cli_env(PYTHONIOENCODING="ascii"), timeout=60)
    assert done.returncode in (0, 1) and b"internal error" not in done.stderr and done.stdout
    done.stdout.decode("ascii")  # only ASCII reached the stream
