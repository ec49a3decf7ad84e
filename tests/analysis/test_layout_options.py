"""The doctor's own --tp/--pp/--ep/--context-length reach each engine in that engine's spelling, and the findings
judge the layout asked for (issue 24): `check openai/gpt-oss-120b --tp 4 --engine vllm==0.33.0` launches
`--tensor-parallel-size 4`, with no VLLM013 (unknown flag) and no MEM003 (MXFP4 experts are padded per rank)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from doctor.pipeline.check import CheckRequest, run_check
from tests.conftest import cli_env

GPTOSS = "openai/gpt-oss-120b"
PRO8 = "rtx-pro-6000-x8"
TP_FLAG = {"vllm==0.33.0": "--tensor-parallel-size", "sglang==0.5.18": "--tp-size", "tensorrt-llm==1.2.1": "--tp_size"}
REJECTED_FLAG = {"VLLM013", "TRT005", "SGL112"}


def check(engine: str, **options: int):
    return run_check(CheckRequest(model=GPTOSS, hardware=PRO8, engines=[engine], options=options, offline=True))


def argv_of(report) -> list[str]:
    return list(report.launches[0]["argv"])


def value_after(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


@pytest.mark.parametrize("tp", [4, 8])
@pytest.mark.parametrize("engine", sorted(TP_FLAG))
def test_tp_is_spelled_per_engine_and_gpt_oss_is_a_valid_layout(engine, tp):
    report = check(engine, tp=tp)
    argv = argv_of(report)
    assert value_after(argv, TP_FLAG[engine]) == str(tp)
    assert not {"--tp-size", "--tensor-parallel-size", "--tp_size"} - {TP_FLAG[engine]} & set(argv)
    ids = {f.id for f in report.findings}
    assert not ids & (REJECTED_FLAG | {"MEM003", "TRT008"})
    assert not [f for f in report.findings if f.severity == "error"]
    plan = report.analyses[0].plan
    assert (plan["requested"]["tp"], plan["requested"]["valid"], plan["requested"]["fits"]) == (tp, True, True)


@pytest.mark.parametrize(("engine", "flags"), [
    ("vllm==0.33.0", ["--pipeline-parallel-size", "2", "--max-model-len", "32768"]),
    ("sglang==0.5.18", ["--pp-size", "2", "--context-length", "32768"]),
    ("tensorrt-llm==1.2.1", ["--pp_size", "2", "--max_seq_len", "32768"]),
])
def test_pp_and_context_length_are_spelled_per_engine(engine, flags):
    report = check(engine, tp=4, pp=2, context_length=32768)
    argv = argv_of(report)
    for flag, value in zip(flags[::2], flags[1::2], strict=True):
        assert value_after(argv, flag) == value, argv
    assert not {f.id for f in report.findings} & REJECTED_FLAG
    requested = report.analyses[0].plan["requested"]
    assert (requested["tp"], requested["pp"], requested["context_length"]) == (4, 2, 32768)


def test_vllm_expert_parallel_is_its_switch():
    report = check("vllm==0.33.0", tp=4, ep=4)
    argv = argv_of(report)
    assert "--enable-expert-parallel" in argv and "--ep-size" not in argv
    assert report.analyses[0].plan["requested"]["ep"] == 4


def test_user_flags_after_the_separator_still_win():
    report = run_check(CheckRequest(model=GPTOSS, hardware=PRO8, engines=["vllm==0.33.0"], options={"tp": 4},
                                    engine_args=["--tensor-parallel-size", "2"], offline=True))
    assert report.analyses[0].plan["requested"]["tp"] == 2


def test_topology_rules_judge_the_requested_tp_groups():
    """On 8x RTX PRO 6000 (two NUMA halves of 4, SYS between), TP4 stays in one half; TP8 crosses."""
    four = {f.id: f for f in check("vllm==0.33.0", tp=4).findings}
    eight = {f.id: f for f in check("vllm==0.33.0", tp=8).findings}
    assert "TOPO002" not in four and "TOPO002" in eight
    assert "SYS" not in four["TOPO001"].message and "SYS" in eight["TOPO001"].message


def test_acceptance_command_of_issue_24():
    result = subprocess.run([sys.executable, "-m", "doctor", "check", GPTOSS, "--hardware", PRO8, "--engine",
                             "vllm==0.33.0", "--tp", "4", "--offline"], capture_output=True, text=True,
                            env=cli_env(COLUMNS="200"), timeout=120)
    assert "--tensor-parallel-size 4" in result.stdout
    assert "VLLM013" not in result.stdout and "MEM003" not in result.stdout
    assert "does NOT fit" not in result.stdout
    assert result.returncode == 0, result.stdout[-2000:]


def test_a_layout_option_below_one_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "doctor", "check", GPTOSS, "--hardware", PRO8, "--pp", "0",
                             "--offline"], capture_output=True, text=True, env=cli_env(), timeout=120)
    assert result.returncode == 2 and "--pp must be at least 1" in result.stderr
    assert "Traceback" not in result.stderr
