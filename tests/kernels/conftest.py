"""Fixtures: real SGLang wheels and private Triton installs (never the global site-packages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.kernels.exact import ExactError, ensure_triton
from tests.kernels.corpus import TRITON_BASE, TRITON_NEWEST
from tests.wheels import cache_root, unpacked_wheel


def _triton(version: str) -> Path:
    try:
        return ensure_triton(version, cache_root() / "triton")
    except ExactError as exc:
        pytest.skip(str(exc))


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
