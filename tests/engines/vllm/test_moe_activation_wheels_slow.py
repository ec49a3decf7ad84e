"""Against the real wheels at the boundary releases: the committed doctor/data/vllm/moe-activations.json entry is
what tools/vllm_moe_activations.py reads from the wheel, and the facts the rules turn on are in its source."""

from __future__ import annotations

import zipfile

import pytest

from doctor.engines.vllm.moe_activation import table
from tests.wheels import download_wheel
from tools.vllm_moe_activations import read_release

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
BOUNDARY = ("0.17.0", "0.24.0", "0.25.0", "0.33.0")


@pytest.mark.parametrize("version", BOUNDARY)
def test_committed_entry_is_what_the_wheel_says(version):
    assert read_release(download_wheel("vllm", version)) == table()[version]


def _source(version: str, path: str) -> str:
    with zipfile.ZipFile(download_wheel("vllm", version)) as archive:
        return archive.read(path).decode("utf-8")


def test_b12x_takes_silu_only_in_0_24_and_relu2_from_0_25():
    path = "vllm/model_executor/layers/fused_moe/experts/flashinfer_b12x_moe.py"
    assert "RELU2_NO_MUL" not in _source("0.24.0", path)
    assert "RELU2_NO_MUL" in _source("0.25.0", path)


def test_unquantized_oracle_reads_marlin_as_auto_from_0_33():
    path = "vllm/model_executor/layers/fused_moe/oracle/unquantized.py"
    assert 'runner_backend != "auto"' in _source("0.24.0", path)
    assert '"marlin"]' in _source("0.33.0", path)
