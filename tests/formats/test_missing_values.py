"""Tables and environment blocks say "not known" where a value is missing, never a bare "?"."""

from __future__ import annotations

import re

from doctor.formats.markdown import deployment_table, environment_details
from doctor.hardware import load_profile
from doctor.pipeline.facts import Driver

BARE_QUESTION_MARK = re.compile(r"(?<![\w?])\?(?![\w?])")


def test_driver_without_cuda_version_reads_not_known() -> None:
    facts = load_profile("rtx-5090").replace(driver=Driver(present=True, driver_version="580.105.08"))
    text = "\n".join(deployment_table(facts, "vllm 0.14.0", {}) + environment_details(facts))
    assert "580.105.08 (CUDA not known)" in text
    assert not BARE_QUESTION_MARK.search(text)


def test_driver_present_without_versions_reads_not_known() -> None:
    facts = load_profile("dgx-spark").replace(driver=Driver(present=True))
    text = "\n".join(environment_details(facts))
    assert "driver: not known (CUDA not known)" in text
    assert not BARE_QUESTION_MARK.search(text)
