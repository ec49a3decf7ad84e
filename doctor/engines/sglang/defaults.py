"""SGLang choices the rules need that the user did not spell out: per-version defaults read from the wheels
(shared/research/sglang.md §1c, §4, §5), and the flag view from `flags.py`."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from doctor.engines.sglang.flags import user_flag_view
from doctor.engines.versions import release
from doctor.facts import Facts
from doctor.launch import Launch


def default_mm_attention_backend(version: Version, major: int) -> str:
    """`_determine_attention_backend` for the vision tower: fa3 on Hopper, fa4 on SM100 from 0.5.23."""
    if major == 9:
        return "fa3"
    if major == 10 and release(version) >= Version("0.5.23"):
        return "fa4"
    return "triton_attn"


def default_mxfp4_moe_runner(version: Version, major: int) -> str | None:
    """GPT-OSS MXFP4 MoE runner on SM12x when `--moe-runner-backend` is not given (sglang.md §4)."""
    if major != 12:
        return None
    v = release(version)
    if v < Version("0.5.10"):
        return "flashinfer_mxfp4"  # is_blackwell_supported() includes 12: the SM100 path
    if v < Version("0.5.14"):
        return "triton_kernel"  # PR #19718
    if v < Version("0.5.18"):
        return "marlin"  # PR #28231
    return "flashinfer_mxfp4"  # FlashInfer CUTLASS MXFP4 (arg_groups/model_overrides/gpt_oss.py)


def sglang_view(facts: Facts, launch: Launch, version: Version) -> dict[str, Any]:
    """What SGLang rules read under `sglang.*`: choices SGLang makes by default, and the user's flags."""
    major = facts.gpus[0].capability[0] if facts.gpus else 0
    given_mm = launch.get("mm_attention_backend")
    given_moe = launch.get("moe_runner_backend")
    return {
        "version": str(version),
        "mm_attention_backend": given_mm or default_mm_attention_backend(version, major),
        "mm_attention_backend_source": "launch flags" if given_mm else "default",
        "mxfp4_moe_runner": given_moe or default_mxfp4_moe_runner(version, major),
        "mxfp4_moe_runner_source": "launch flags" if given_moe else "default",
        **user_flag_view(list(launch.args), version),
    }
