"""A refused `--kv-cache-dtype` value that is another spelling of a choice the release accepts gets that choice as
its "did you mean" (doctor.plan.kv.SPELLINGS), before the nearest look-alike (SGLang's SGL119 text, vLLM's VLLM013
text); any other value keeps the nearest spelling."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.sglang.flags import bad_values
from doctor.engines.vllm.flags import check_flags
from doctor.plan.kv import same_dtype, suggest


@pytest.mark.parametrize(("release", "value", "hint"), [
    ("0.5.21", "fp4_e2m1", "did you mean nvfp4?"),  # 0.5.21 dropped fp4_e2m1 and kept nvfp4; difflib says fp8_e5m2
    ("0.5.10", "nvfp4", "did you mean fp4_e2m1?"),  # before 0.5.16 only fp4_e2m1
    ("0.5.10", "fp8", "did you mean fp8_e4m3?"),
    ("0.5.10", "FP8_E4M3", "did you mean fp8_e4m3?"),
    ("0.5.10", "fp8_e5m3", "did you mean fp8_e5m2?"),  # a typo, no other spelling: the nearest
])
def test_sglang_kv_cache_dtype(release, value, hint):
    assert bad_values(["--kv-cache-dtype", value], Version(release)) == [f"--kv-cache-dtype {value} ({hint})"]


def test_sglang_accepts_its_own_spelling():
    assert bad_values(["--kv-cache-dtype", "fp4_e2m1"], Version("0.5.16")) == []


def test_vllm_kv_cache_dtype_names_its_spelling():
    [problem] = check_flags(["--kv-cache-dtype", "fp4_e2m1"], Version("0.20.0"))
    assert problem.endswith("; did you mean nvfp4?")


def test_the_same_spelling_is_only_for_kv_dtype_flags():
    assert suggest("--kv-cache-dtype", "fp4_e2m1", ["fp8_e5m2", "nvfp4"]) == "nvfp4"
    assert suggest("--dtype", "fp4_e2m1", ["fp8_e5m2", "nvfp4"]) == "fp8_e5m2"  # no synonym table for --dtype


def test_same_dtype_offers_no_self_and_nothing_unknown():
    assert same_dtype("fp8_e4m3", ["fp8_e4m3"]) is None
    assert same_dtype("mxfp8", ["fp8_e4m3", "nvfp4"]) is None
