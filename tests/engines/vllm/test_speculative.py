"""vLLM's reading of `--speculative-config` and of a ModelOpt exclude list (doctor/engines/vllm/speculative.py)."""

from __future__ import annotations

import pytest

from doctor.engines.vllm.speculative import MTP_FC, excludes


@pytest.mark.parametrize(("pattern", "excluded"), [
    ("mtp*", True),            # becomes `mtp` and `mtp.*` (apply_vllm_mapper)
    ("mtp.*", True),
    ("mtp.fc", True),
    ("*mtp*", True),
    ("mtp", True),             # substring of the prefix
    ("mtp.layers.0*", False),  # nvidia/Qwen3.5-397B-A17B-NVFP4's only MTP entry
    ("mtp.layers.0.mlp*", False),
    ("lm_head", False),
    ("model.visual*", False),
])
def test_modelopt_exclusion_of_mtp_fc(pattern, excluded):
    assert excludes(pattern, MTP_FC) is excluded
