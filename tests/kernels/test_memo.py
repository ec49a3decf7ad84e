"""Estimates are memoised on disk: a repeated call in a fresh process is a lookup, and the estimator modules
are not imported for it; errors are not memoised."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from doctor import cache
from doctor.kernels import memo

PROBE = """
import json, sys
import doctor.kernels as k
value = k.extend_attention_smem((12, 0), 576, 512, 32, 64, 8, 1, kv_dtype="bf16")
print(json.dumps([value, "doctor.kernels.attention_smem" in sys.modules]))
"""


def _run(tmp_path) -> list:
    env = dict(os.environ, SM120_DOCTOR_CACHE=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_second_process_answers_from_the_memo_without_the_estimators(tmp_path):
    first = _run(tmp_path)
    second = _run(tmp_path)
    assert first[1] is True  # computed: the estimator module was imported
    assert second == [first[0], False]
    from doctor.kernels.attention_smem import extend_attention_smem

    assert first[0] == extend_attention_smem((12, 0), 576, 512, 32, 64, 8, 1, kv_dtype="bf16")


def test_errors_are_raised_every_time_not_memoised(tmp_path, monkeypatch):
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    monkeypatch.setattr(memo, "_MEMO", cache.DiskMemo("smem-estimates", memo._stamp, int, 8192))
    estimator = memo.memoised("attention_smem", "extend_attention_smem")
    for _ in range(2):
        with pytest.raises(ValueError):
            estimator((12, 0), 128, 128, 64, 64, 4, 2)
