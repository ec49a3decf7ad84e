"""vLLM log lines of reports the doctor already knows, each named by its rule (session 14, diagV): the lines as the
reports quote them (MiaAI-Lab DSpark#17's `unrecognized arguments` without argparse's prefix, vllm#40677's
backend refusal, vllm#47130 / timothystewart6/vllm-gb10#34's DeepGEMM assertion with its path shortened,
eugr/spark-vllm-docker#143's trap), and beside each the closest line or deployment that must not be named."""

from __future__ import annotations

from pathlib import Path

from doctor.diagnose.flags import flag_advice
from tests.diagnose.corpus import claimed, diagnose_text
from tests.diagnose.corpus import profile_base as profile

LOGS = Path(__file__).parent / "logs"
DSPARK17 = (LOGS / "vllm-dspark17-unrecognized-prompt-tokens-details.log").read_text(encoding="utf-8")
GEMMA4 = (LOGS / "vllm-40677-gemma4-flashinfer-head512.log").read_text(encoding="utf-8")
RECIPE = (LOGS / "vllm-gb10-34-deepgemm-unknown-recipe-short-path.log").read_text(encoding="utf-8")
TRAP = (LOGS / "spark-vllm-docker-143-sm120-only-trap-gb10.log").read_text(encoding="utf-8")
BARE_FLAG = "unrecognized arguments: --enable-prompt-tokens-details\n"
SGLANG_FLAG = ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --swap-space 4\n"
               "launch_server.py: error: unrecognized arguments: --swap-space 4\n")
SWAP_SPACE = ("$ vllm serve Qwen/Qwen3-8B --gpu-memory-utilization 0.45 --swap-space 0\n"
              "usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...\n"
              "vllm: error: unrecognized arguments: --swap-space 0\n")


def _fix_text(log: str, base) -> str:  # type: ignore[no-untyped-def]
    top = diagnose_text(log, base).explanations[0]
    return " ".join(fix.summary for fix in top.fixes)


def test_the_quoted_flag_refusal_is_vllm013s_where_vllm_ran():
    assert claimed(DSPARK17, profile("dgx-spark"))[:1] == ["VLLM013"]
    assert claimed(BARE_FLAG, profile("dgx-spark", "vllm==0.25.0"))[:1] == ["VLLM013"]


def test_a_bare_flag_refusal_with_no_vllm_in_sight_is_not_vllm013s():
    assert "VLLM013" not in claimed(BARE_FLAG)
    assert "VLLM013" not in claimed(BARE_FLAG, profile("dgx-spark"))


def test_sglangs_launcher_refusing_a_flag_is_not_vllm013s():
    assert "VLLM013" not in claimed(SGLANG_FLAG)
    assert "VLLM013" not in claimed(SGLANG_FLAG, profile("rtx-5090", "sglang==0.5.9"))


def test_diagnose_says_which_releases_have_the_flag():
    dspark = _fix_text(DSPARK17, profile("dgx-spark"))
    assert "every release read (0.9.2-" in dspark and "reads as 0.25.0, which has it" in dspark
    assert "`--swap-space` in 0.9.2-0.17.0" in _fix_text(SWAP_SPACE.splitlines()[-1], profile("rtx-5090"))
    # with the launch in the log the check itself names the release (VLLM013 confirmed)
    confirmed = diagnose_text(SWAP_SPACE, profile("rtx-5090", "vllm==0.21.0")).explanations[0]
    assert confirmed.status == "confirmed" and "removed in 0.18.0; last in 0.17.0" in confirmed.message


def test_flag_advice_from_the_tables():
    assert "is older: upgrade to 0.12.0" in flag_advice("--all2all-backend", "0.10.0")
    assert "added in 0.12.0" in flag_advice("--all2all-backend", None)
    assert flag_advice("--definitely-not-a-real-flag-xyz123", None).startswith("no vLLM release registers")
    assert "`--compilation-config`" in flag_advice("--compilation-config.mode", None)  # JSON dot notation
    assert "`--tool-call-parser`" in flag_advice("--tool_call_parser", "0.20.0")  # vLLM reads `_` as `-`


def test_the_forced_flashinfer_head_size_refusal_is_vllm030s():
    assert claimed(GEMMA4, profile("rtx-5090"))[:1] == ["VLLM030"]


def test_the_head_size_refusal_from_0_22_is_not_vllm030s():
    assert "VLLM030" not in claimed(GEMMA4.replace("0.19.2rc1.dev174+g100c7b65e", "0.22.0"), profile("rtx-5090"))
    other = GEMMA4.replace("AttentionBackendEnum.FLASHINFER is not", "AttentionBackendEnum.FLASH_ATTN is not")
    assert "VLLM030" not in claimed(other, profile("rtx-5090"))


def test_deepgemms_unknown_recipe_with_a_shortened_path_is_moe004s():
    assert claimed(RECIPE, profile("dgx-spark"))[:1] == ["MOE004"]
    assert claimed(RECIPE, profile("rtx-pro-6000-x8"))[:1] == ["MOE004"]


def test_the_unknown_recipe_on_0_25_or_on_hopper_is_not_moe004s():
    assert "MOE004" not in claimed(RECIPE.replace("version 0.24.0", "version 0.25.0"), profile("dgx-spark"))
    assert "MOE004" not in claimed(RECIPE, profile("h100-sxm-x8"))


def test_the_sm120_only_trap_on_gb10_is_vllm081s():
    assert claimed(TRAP, profile("dgx-spark"))[:1] == ["VLLM601"]
    line_only = "This kernel only supports sm120.\ncudaErrorLaunchFailure: unspecified launch failure\n"
    assert claimed(line_only, profile("dgx-spark", "vllm==0.21.0"))[:1] == ["VLLM601"]


def test_the_trap_is_not_vllm081s_on_sm120_or_from_0_22():
    assert "VLLM601" not in claimed(TRAP, profile("rtx-5090"))
    line_only = "This kernel only supports sm120.\ncudaErrorLaunchFailure: unspecified launch failure\n"
    assert "VLLM601" not in claimed(line_only, profile("dgx-spark", "vllm==0.22.0"))
    assert "VLLM601" not in claimed(line_only)  # nothing says vLLM ran


PREFIXED = (
    "2026-08-01T10:00:01.123456789Z (APIServer pid=1) INFO 08-01 10:00:01 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █"
    "  version 0.21.0\n"
    "2026-08-01T10:00:01.223456789Z (APIServer pid=1) INFO 08-01 10:00:01 [utils.py:233] non-default args: "
    "{'model': 'Qwen/Qwen3-8B', 'attention_backend': 'FLASHINFER'}\n"
    "\x1b[36m(RayWorkerWrapper pid=2917, ip=172.17.0.2)\x1b[0m ERROR 08-01 10:01:00 [worker_base.py:620] ValueError: "
    "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: "
    "['head_size not supported']\n")


def test_real_log_prefixes_are_read_through():
    """Docker's timestamps, a Ray actor's `(RayWorkerWrapper pid=N, ip=X)`, colours as bytes or pasted as text."""
    diagnosis = diagnose_text(PREFIXED, profile("rtx-5090"))
    assert diagnosis.deployment.engine == "vllm"
    assert diagnosis.deployment.argv == ["--attention-backend", "FLASHINFER"]
    assert diagnosis.error is not None and diagnosis.error[1].startswith("ValueError: Selected backend")
    ray_only = "^[[1;36m(RayWorkerWrapper pid=2917, ip=172.17.0.2)^[[0;0m RuntimeError: CUDA error: unknown error\n"
    only = diagnose_text(ray_only, profile("rtx-5090"))
    assert only.deployment.engine == "vllm" and only.error == (1, "RuntimeError: CUDA error: unknown error")


def test_an_engine_named_without_its_release_meets_a_signatures_context():
    """`diagnose LOG --engine vllm`: the user says vLLM ran, release unknown (heldout12 F10d's run)."""
    import io

    from doctor.diagnose.diagnosis import diagnose

    line_only = b"This kernel only supports sm120.\ncudaErrorLaunchFailure: unspecified launch failure\n"
    named = diagnose(io.BufferedReader(io.BytesIO(line_only)), "t", profile("dgx-spark"), "test", {},
                     engines=["vllm"])
    assert [e.rule for e in named.explanations][:1] == ["VLLM601"]
    other = diagnose(io.BufferedReader(io.BytesIO(line_only)), "t", profile("dgx-spark"), "test", {},
                     engines=["sglang"])
    assert "VLLM601" not in [e.rule for e in other.explanations]


CHOICE = ("vllm serve: error: argument --kv-cache-dtype: invalid choice: 'nvfp4' (choose from 'auto', 'bfloat16', "
          "'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla')\n")


def test_a_value_outside_the_choices_says_which_releases_take_it():
    assert claimed(CHOICE, profile("rtx-5090", "vllm==0.19.0"))[:1] == ["VLLM013"]
    assert "upgrade to 0.20.0 or newer" in _fix_text(CHOICE, profile("rtx-5090", "vllm==0.19.0"))


def test_a_parser_name_or_sglangs_choice_is_not_vllm013s():
    parser = "vllm serve: error: argument --tool-call-parser: invalid choice: 'glm45' (choose from 'hermes')\n"
    assert "VLLM013" not in claimed(parser, profile("rtx-5090", "vllm==0.10.0"))
    sglang = CHOICE.replace("vllm serve: error:", "launch_server.py: error:")
    assert "VLLM013" not in claimed(sglang, profile("rtx-5090", "sglang==0.5.9"))
