"""Fixtures: real SGLang wheels and private Triton installs (never the global site-packages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kernels.corpus import TRITON_BASE, TRITON_NEWEST
from tests.wheels import cache_root, triton_site, unpacked_wheel

_triton = triton_site


@pytest.fixture(scope="session")
def triton351() -> Path:
    return _triton(TRITON_BASE)


@pytest.fixture(scope="session")
def triton_newest() -> Path:
    return _triton(TRITON_NEWEST)


@pytest.fixture(scope="session")
def sglang_058() -> Path:
    return unpacked_wheel("sglang", "0.5.8")


@pytest.fixture(scope="session")
def sglang_0523() -> Path:
    return unpacked_wheel("sglang", "0.5.23")


@pytest.fixture(scope="session")
def smem_cache() -> Path:
    return cache_root() / "smem-results"
