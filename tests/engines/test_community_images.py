"""Community DGX Spark images (doctor/data/images/community.toml): the tag names the image's own release, the row
says which engine build is inside; an unknown tag of such an image pins nothing (never the engine's release)."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from doctor.engines.images import image_facts, tag_release
from doctor.pipeline.context import unreleased_build
from doctor.pipeline.facts import Driver, Facts, Source

ANEMLL = "ghcr.io/anemll/dspark-vllm-gx10:0.1.1"
AEON = "ghcr.io/aeon-7/aeon-vllm-ultimate:2026-08-16-v0.27.1"


def test_anemll_tag_is_the_image_release_not_vllm_0_1_1():
    release = tag_release(ANEMLL)
    assert (release.engine, release.version) == ("vllm", "0.25.2.dev0+g752a3a504.d20260714")
    assert unreleased_build("vllm", release.version)
    facts = image_facts(ANEMLL)
    assert facts.known and facts.community and facts.kv_cache_dtypes == ("nvfp4_ds_mla",)


def test_an_unknown_tag_of_a_community_image_pins_nothing():
    assert tag_release("ghcr.io/anemll/dspark-vllm-gx10:0.1.2") is None
    facts = image_facts("ghcr.io/anemll/dspark-vllm-gx10:0.1.2")
    assert facts is not None and not facts.known and facts.version is None


def test_aeon_row_pins_its_libraries_and_is_a_fork():
    facts = image_facts(AEON)
    assert facts.version == "0.27.1+aeon.sm121a.dspark" and unreleased_build("vllm", facts.version)
    assert "flashinfer-python==0.6.16.post3" in facts.what_ifs()
    assert facts.view(None)["kv_cache_dtypes"] == ["nvfp4"]
    assert image_facts("ghcr.io/aeon-7/aeon-vllm-ultimate:latest").floating


def test_diagnose_reads_a_community_image_from_a_log():
    base = Facts(source=Source(kind="live", name="t"), driver=Driver(present=False, error="no NVML"))
    log = f"docker run --gpus all {ANEMLL} vllm serve deepseek-ai/DeepSeek-V4-Flash-0731\n"
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log.encode())), "t", base, "t", {}, judge_on_log_only=True)
    assert diagnosis.report.facts.library("vllm").version == "0.25.2.dev0+g752a3a504.d20260714"
