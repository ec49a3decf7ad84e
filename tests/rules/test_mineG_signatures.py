"""VLLM740's signature: vLLM 0.11.x's wording of the CUTLASS MoE data check, not 0.12.0's."""

from __future__ import annotations

import pytest

from doctor.diagnose.signatures import compile_signatures, rule_signatures

PREFIX = "NotImplementedError: No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for "


def _matches(line: str) -> bool:
    signatures = compile_signatures({"VLLM740": rule_signatures()["VLLM740"]})
    return any(signature.regex.search(line) for signature in signatures)


@pytest.mark.parametrize(("line", "matches"), [
    (PREFIX + "CUDA device capability: 121. Required capability: 90 or 100", True),  # vllm#26844, GB10
    (PREFIX + "CUDA device capability: 120. Required capability: 90 or 100", True),
    # 0.12.0's wording: the SM120 branch exists and its FP4 archs were not built, another cause
    (PREFIX + "CUDA device capability: 121. Required capability: 90, 100, or 120", False),
    (PREFIX + "CUDA device capability: 89. Required capability: 90 or 100", False),  # not SM12x
    ("NotImplementedError: No compiled cutlass_scaled_mm for CUDA device capability: 120. "
     "Required capability: 90 or 100", False),  # VLLM002's dense/FP8 MoE line
])
def test_vllm740_signature(line: str, matches: bool) -> None:
    assert _matches(line) is matches
