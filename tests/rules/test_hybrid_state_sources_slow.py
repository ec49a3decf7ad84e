"""The vLLM facts rules/hybrid_state.toml rests on, re-read from the wheels on PyPI (slow: downloads).

- VLLM170/171: the ValueError against the Mamba cache blocks is raised from 0.20.0 (0.18.0/0.19.1 only cap the
  capture sizes, 0.17.0 checks nothing); the Qwen3.5 SSM-state dtype comes from the config from 0.17.0;
- VLLM172: FLA's `is_tma_supported` is true on any capability >= 9 up to 0.19.x and needs FLA_USE_TMA=1 from
  0.20.0; the GDN prefill warm-up during profiling exists from 0.18.0.
Run with `pytest -m slow tests/rules/test_hybrid_state_sources_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import zipfile

import pytest

from tests.wheels import download_wheel

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

RAISE = "exceeds available Mamba cache"
CAP = "def adjust_cudagraph_sizes_for_mamba_cache"


def python_sources(version: str, *fragments: str) -> dict[str, str]:
    """Every .py member of the vLLM wheel whose path contains one of `fragments`."""
    with zipfile.ZipFile(download_wheel("vllm", version)) as wheel:
        return {name: wheel.read(name).decode("utf-8") for name in wheel.namelist()
                if name.endswith(".py") and any(f in name for f in fragments)}


def any_source_has(version: str, text: str, *fragments: str) -> bool:
    return any(text in source for source in python_sources(version, *fragments).values())


@pytest.mark.parametrize(("version", "raises", "caps"), [
    ("0.17.0", False, False), ("0.19.1", False, True), ("0.20.0", True, False), ("0.33.0", True, False)])
def test_mamba_blocks_check_per_release(version, raises, caps):
    assert any_source_has(version, RAISE, "vllm/config/compilation.py") is raises
    assert any_source_has(version, CAP, "vllm/config/compilation.py") is caps


@pytest.mark.parametrize(("version", "reads_config"), [("0.15.1", False), ("0.17.0", True), ("0.33.0", True)])
def test_qwen35_ssm_dtype_from_the_config(version, reads_config):
    assert any_source_has(version, "mamba_ssm_dtype", "vllm/model_executor/models/config.py") is reads_config


@pytest.mark.parametrize(("version", "unconditional"), [("0.13.0", True), ("0.19.1", True), ("0.20.0", False),
                                                        ("0.24.0", False)])
def test_fla_tma_gate(version, unconditional):
    sources = python_sources(version, "fla/ops/utils.py")
    (source,) = sources.values()
    assert ("get_device_capability(0)[0] >= 9) and (" in source) is unconditional
    assert ('os.getenv("FLA_USE_TMA", "0") == "1"' in source) is not unconditional


@pytest.mark.parametrize(("version", "warms_up"), [("0.17.0", False), ("0.19.1", True), ("0.24.0", True)])
def test_gdn_prefill_warm_up_during_profiling(version, warms_up):
    assert any_source_has(version, "def _warmup_prefill_kernels", "gdn", "qwen3_next") is warms_up
