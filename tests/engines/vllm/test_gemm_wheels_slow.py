"""Against the real wheels at the boundary releases: the committed `gemm` section is what the extractor reads,
and each kernel candidate's file and line is, in the wheel's own source, the definition of that class."""

from __future__ import annotations

import zipfile

import pytest

from doctor.engines.vllm import knowledge
from tests.wheels import download_wheel
from tools.vllm_facts.envs import env_facts
from tools.vllm_facts.gemm import gemm_facts
from tools.vllm_facts.source import WheelSource

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
BOUNDARY = ("0.9.2", "0.20.0", "0.33.0")


@pytest.mark.parametrize("version", BOUNDARY)
def test_committed_gemm_is_what_the_wheel_says(version):
    source = WheelSource(download_wheel("vllm", version))
    try:
        assert gemm_facts(source, env_facts(source)["table"]) == knowledge.facts(version)["gemm"]
    finally:
        source.close()


@pytest.mark.parametrize("version", BOUNDARY)
def test_kernel_candidates_point_at_their_class(version):
    with zipfile.ZipFile(download_wheel("vllm", version)) as archive:
        for scheme, entry in knowledge.facts(version)["gemm"]["schemes"].items():
            if entry["how"] != "kernel list":
                continue
            for candidate in entry["candidates"]:
                lines = archive.read(candidate["file"]).decode("utf-8").splitlines()
                assert lines[candidate["line"] - 1].startswith(f"class {candidate['backend']}("), \
                    (scheme, candidate["backend"])
