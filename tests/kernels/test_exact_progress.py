"""`kernels --exact` compiles one process per core behind a progress bar on a terminal's stderr."""

from __future__ import annotations

import io
import sys

from doctor.commands import kernels
from doctor.kernels import exact


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_follows_the_compiles_and_results_pass_through(monkeypatch):
    seen = {}

    def fake_compile_many(jobs, sglang_dir, site, workers=None, cache_dir=None, progress=None, **_):
        seen["workers"] = workers
        progress(0, len(jobs))
        for done in range(1, len(jobs) + 1):
            progress(done, len(jobs))
        return [{"shared": 1024 * i} for i in range(len(jobs))]

    terminal = _Terminal()
    monkeypatch.setattr(exact, "compile_many", fake_compile_many)
    monkeypatch.setattr(sys, "stderr", terminal)
    results = kernels._compile_with_progress(["a", "b", "c"], None, None)
    assert results == [{"shared": 0}, {"shared": 1024}, {"shared": 2048}]
    assert seen["workers"] is None  # compile_many's default: one worker per core
    assert "compiling with Triton" in terminal.getvalue()


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(exact, "compile_many", lambda jobs, *a, progress=None, **k: [progress(1, 1)] and [{}])
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    kernels._compile_with_progress(["a"], None, None)
    assert pipe.getvalue() == ""
