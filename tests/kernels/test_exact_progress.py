"""`kernels --exact` compiles behind a progress bar on a terminal's stderr."""

from __future__ import annotations

import io
import sys

from doctor.commands import kernels


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _work(progress):
    progress(0, 3)
    for done in range(1, 4):
        progress(done, 3)
    return ["compiled"]


def test_progress_bar_follows_the_compiles_and_results_pass_through(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert kernels._with_progress(_work) == ["compiled"]
    assert "compiling with Triton" in terminal.getvalue()


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch):
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    kernels._with_progress(_work)
    assert pipe.getvalue() == ""
