"""A deployment that states a container image runs the image's own build of vLLM: the wheel-derived kernel-image
findings (DSP060-DSP063) are held and DSP064 says "not checked: the container's build is not PyPI's"; without an
image the PyPI wheel is judged as before (cases in tests/rules/trust12_cases.py)."""

from __future__ import annotations

from doctor.engines.images import image_facts
from doctor.pipeline.check import check_facts
from tests.rules.famarch_cases import vl


def _findings(image: str | None):
    launch_file = {"image": image_facts(image), "recipe": None} if image else None
    return {f.id: f for f in check_facts(vl("0.22.0", profile="dgx-spark")(), [], launch_file=launch_file).findings}


def test_a_container_holds_the_wheel_findings_and_says_so():
    found = _findings("nvcr.io/nvidia/vllm:26.05.post1-py3")
    assert not {"DSP060", "DSP062", "DSP063"} & set(found)
    message = found["DSP064"].message
    assert "not checked: the container's build is not PyPI's" in message
    assert "nvcr.io/nvidia/vllm:26.05.post1-py3" in message and found["DSP064"].severity == "info"


def test_without_a_container_the_wheel_is_judged():
    found = _findings(None)
    assert "DSP062" in found and "DSP064" not in found
