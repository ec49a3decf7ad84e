"""Against the real wheels at the boundary releases: each committed doctor/data/marlin-shapes.json row is what
tools/marlin_shapes.py reads from the wheel (0.23.0 repacks NVFP4 experts unpadded; 0.24.0 pads them and dense
shards; 0.25.0 also pads FP8/INT4 experts), and the repack's own message is in the 0.23.0 binary."""

from __future__ import annotations

import zipfile

import pytest

from doctor.engines.vllm.marlin_shapes import table
from tests.wheels import download_wheel
from tools.marlin_shapes import Source, release_facts

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
BOUNDARY = ("0.23.0", "0.24.0", "0.25.0")


@pytest.mark.parametrize("version", BOUNDARY)
def test_committed_row_is_what_the_wheel_says(version):
    wheel = download_wheel("vllm", version)
    row = {k: v for k, v in table()[version].items() if k != "read_from"}
    assert release_facts(Source(wheel), "vllm") == row


def test_the_repack_check_text_is_in_the_unpadded_release():
    with zipfile.ZipFile(download_wheel("vllm", "0.23.0")) as archive:
        binary = archive.read("vllm/_C.abi3.so")
    assert b" is not divisible by tile_n_size = " in binary
