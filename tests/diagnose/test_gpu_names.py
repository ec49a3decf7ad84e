"""Capabilities read from the GPU names logs print: the datacenter Blackwell parts differ (B300 is SM103)."""

from __future__ import annotations

import pytest

from doctor.diagnose.gpus import capability_of


@pytest.mark.parametrize(("name", "capability"), [
    ("NVIDIA B300 SXM6 AC", "10.3"), ("NVIDIA GB300", "10.3"), ("NVIDIA B200", "10.0"), ("NVIDIA GB200", "10.0"),
    ("NVIDIA H200", "9.0"), ("NVIDIA GH200 480GB", "9.0"), ("NVIDIA GB10", "12.1"),
    ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),
])
def test_capability_of(name, capability):
    assert capability_of(name) == capability
