"""For gpt-oss-120b, Kimi-K2.5 and GLM-4.7-FP8 on the built-in SM120 profiles, every vLLM release the
doctor knows composes a launch command whose every flag and value exists in that release (wheel data)."""

from __future__ import annotations

import pytest

from doctor.engines.vllm import knowledge
from doctor.engines.vllm.flags import table
from tests.engines.vllm.launch_check import MODELS, SM120_PROFILES, USER_FLAGS, invalid_tokens, launch_for

BOUNDARIES = ("0.9.2", "0.12.0", "0.13.0", "0.15.0", "0.15.1", "0.33.0")  # flag and env boundaries the rules use


def profiles_for(version: str) -> tuple[str, ...]:
    """Every SM120 profile at the boundary releases; the 8-GPU rig at every release (same flags elsewhere)."""
    return SM120_PROFILES if version in BOUNDARIES else SM120_PROFILES[:1]


@pytest.mark.parametrize("version", knowledge.releases())
@pytest.mark.parametrize("model", MODELS)
def test_every_release_composes_a_valid_command(model, version):
    for profile in profiles_for(version):
        launch = launch_for(model, profile, version, USER_FLAGS[model])
        assert launch["argv"][2] == model
        assert invalid_tokens(launch["argv"], table(version)) == [], (profile, launch["argv"], launch["notes"])


@pytest.mark.parametrize("version", ["0.12.0", "0.14.0", "0.15.1", "0.33.0"])
def test_forced_mla_backend_is_fixed_the_way_the_release_reads_it(version):
    launch = launch_for("moonshotai/Kimi-K2.5", "rtx-pro-6000-x8", version, (),
                        env={"VLLM_ATTENTION_BACKEND": "FLASHMLA"})
    if version in ("0.12.0", "0.14.0"):  # read (and in 0.13-0.14 stronger than the flag): the env is the fix
        assert launch["env"].get("VLLM_ATTENTION_BACKEND") == "TRITON_MLA"
        assert "VLLM005" in launch["applied"]
    else:  # ignored from 0.15.0: nothing to fix, the default already is TRITON_MLA
        assert "VLLM005" not in launch["applied"] and "VLLM_ATTENTION_BACKEND" not in launch["env"]


def test_flag_fix_on_a_release_with_the_flag():
    launch = launch_for("openai/gpt-oss-120b", "rtx-pro-6000-x8", "0.20.0", ("--attention-backend", "FLASHINFER"))
    assert launch["argv"][launch["argv"].index("--attention-backend") + 1] == "TRITON_ATTN"
    assert "VLLM006" in launch["applied"]


def test_removed_user_flag_is_dropped_for_the_release():
    launch = launch_for("openai/gpt-oss-120b", "rtx-pro-6000-x8", "0.20.0", ("--disable-log-requests",))
    assert "--disable-log-requests" not in launch["argv"]
    assert any("dropped --disable-log-requests" in n for n in launch["notes"])
