"""`--engine NAME` without a release, an engine inferred from the launch after `--`, and `diagnose` on a log
that names its engine but not the release, through the CLI; and the versioned path left exactly as it was."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from doctor.cli import main
from doctor.engines import registry
from doctor.formats.json import render_json
from doctor.pipeline.check import check_facts
from doctor.pipeline.gather import gather_facts
from tests.conftest import REPO
from tests.schemas import validate

NVFP4 = str(REPO / "tests" / "knowngood" / "models" / "nvidia--Qwen3.6-35B-A3B-NVFP4")
SPARK = ("--hardware", "dgx-spark", "--offline")


def run(capsys: pytest.CaptureFixture[str], *argv: str, codes: tuple[int, ...] = (0, 1)) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code in codes, captured.err
    return code, captured.out, captured.err


def check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """`check ARGV --format json`, the launch flags after `--` kept last; the document validated."""
    cut = argv.index("--") if "--" in argv else len(argv)
    _, out, _ = run(capsys, "check", *argv[:cut], "--format", "json", *argv[cut:])
    document = json.loads(out)
    validate("report", document)
    return document


def severities(document: dict[str, Any]) -> dict[str, str]:
    return {f["id"]: f["severity"] for f in document["findings"]}


def test_an_engine_named_without_a_release_is_evaluated_at_every_known_release(capsys):
    document = check_json(capsys, NVFP4, *SPARK, "--engine", "vllm")
    [entry] = document["releases_evaluated"]
    newest = registry.get("vllm").releases[-1]  # type: ignore[union-attr]
    assert (entry["engine"], entry["how"], entry["shown"]) == ("vllm", "named", newest)
    assert entry["releases"][0] == "0.9.2" and len(entry["releases"]) >= 26
    assert document["analysis"]["engine_version"] == newest
    # VLLM004 (NVFP4 NaN before 0.19; an info, the fix is in the build) holds for the releases before 0.19.0 only
    # (0.18.1 is a patch release the wheel-derived tables hold): a finding naming them
    vllm004 = next(f for f in document["findings"] if f["id"] == "VLLM004")
    assert vllm004["severity"] == "info"
    assert f"this holds for vLLM 0.9.2-0.18.1 of 0.9.2-{newest}" in vllm004["message"]
    assert vllm004["evidence"]["releases_firing"][-1] == "0.18.1"
    assert "error" not in severities(document).values()  # DSP001 (0.10.0) and VLLM003 (0.15.0) are warnings


def test_the_versioned_path_is_byte_for_byte_the_pipeline_it_always_ran(capsys):
    """`--engine NAME==VERSION` goes through exactly check_facts on the gathered facts, as before this path
    existed: same JSON, no `releases_evaluated`."""
    for engines, flags in ((["vllm==0.20.0"], []), (["sglang==0.5.8"], ["--tp-size", "1"]),
                           (["vllm==0.17.0rc1"], ["--attention-backend", "FLASHINFER", "--kv-cache-dtype", "fp8"]),
                           (["vllm==0.20.0", "sglang==0.5.18"], [])):
        argv = [NVFP4, *SPARK, *(a for e in engines for a in ("--engine", e))]
        _, out, _ = run(capsys, "check", *argv, "--format", "json", "--", *flags)
        environ = dict(os.environ)
        facts = gather_facts(environ=environ, hardware="dgx-spark", engines=engines, model=NVFP4, offline=True)
        expected = render_json(check_facts(facts, flags, environ=environ))
        assert out.rstrip("\n") == expected.rstrip("\n")
        assert "releases_evaluated" not in json.loads(out)


def test_a_package_without_a_version_is_one_line_and_exit_2(capsys):
    _, _, err = run(capsys, "check", *SPARK, "--engine", "torch", codes=(2,))
    assert err.count("\n") == 1 and "a package needs its version" in err and "Traceback" not in err


def test_the_engine_is_inferred_from_flags_only_one_engine_takes(capsys):
    document = check_json(capsys, *SPARK, "--", "--gpu-memory-utilization", "0.3")
    assert [(e["engine"], e["how"]) for e in document["releases_evaluated"]] == [("vllm", "flags")]
    assert document["analysis"]["notes"][0].startswith("engine inferred from the flags: vLLM, release not stated")
    llama = check_json(capsys, "--hardware", "rtx-5090", "--offline", "--", "--ctx-size", "4096", "-ngl", "99")
    assert [(e["engine"], e["how"]) for e in llama["releases_evaluated"]] == [("llama.cpp", "flags")]


def test_flags_no_engine_or_several_engines_take_keep_the_old_note(capsys):
    for flags in (["--foo-bar", "1"], ["--port", "8000"]):  # none; every engine has --port
        document = check_json(capsys, *SPARK, "--", *flags)
        assert "releases_evaluated" not in document
        assert any("were not checked against any engine" in n for n in document["analysis"]["notes"])


@pytest.mark.parametrize(("command", "engine"), [
    (["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "4096"], "vllm"),
    (["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp-size", "1"], "sglang"),
    (["CUDA_VISIBLE_DEVICES=0", "trtllm-serve", "serve", "Qwen/Qwen3-8B", "--tp_size", "1"], "tensorrt-llm"),
    (["llama-server", "-m", "model.gguf", "-ngl", "99"], "llama.cpp"),
])
def test_a_pasted_launch_command_names_its_engine_and_keeps_the_given_model(capsys, command, engine):
    document = check_json(capsys, NVFP4, *SPARK, "--", *command)
    assert [(e["engine"], e["how"]) for e in document["releases_evaluated"]] == [(engine, "command")]
    assert document["facts"]["model"]["id"].endswith("nvidia--Qwen3.6-35B-A3B-NVFP4")
    argv = document["analysis"]["notes"]
    assert argv[0].startswith("engine inferred from the pasted launch command")


def test_sarif_says_which_releases_were_evaluated(capsys):
    _, out, _ = run(capsys, "check", NVFP4, *SPARK, "--engine", "sglang", "--format", "sarif")
    [entry] = json.loads(out)["runs"][0]["properties"]["releasesEvaluated"]
    assert entry["engine"] == "sglang" and entry["releases"][0] == "0.5.0"
    _, stated, _ = run(capsys, "check", NVFP4, *SPARK, "--engine", "sglang==0.5.9", "--format", "sarif")
    assert "releasesEvaluated" not in json.loads(stated)["runs"][0]["properties"]


def test_diagnose_evaluates_a_logs_engine_at_every_release_when_the_log_states_none(capsys, tmp_path):
    log = tmp_path / "serve.log"
    log.write_text("$ vllm serve /models/x --tensor-parallel-size 2 --gpu-memory-utilization 0.7\n")
    _, out, _ = run(capsys, "diagnose", str(log), "--hardware", "rtx-5090-x2", "--format", "json")
    report = json.loads(out)["report"]
    assert [(e["engine"], e["how"]) for e in report["releases_evaluated"]] == [("vllm", "log")]
    _, text, _ = run(capsys, "diagnose", str(log), "--hardware", "rtx-5090-x2")
    assert "vllm (version not stated; evaluated at" in text
    _, named, _ = run(capsys, "diagnose", str(log), "--hardware", "rtx-5090-x2", "--engine", "vllm==0.19.1",
                      "--format", "json")
    assert "releases_evaluated" not in json.loads(named)["report"]


def test_without_model_the_pasted_commands_model_is_read_and_a_missing_one_is_a_note(capsys):
    bundled = check_json(capsys, "--hardware", "rtx-5090", "--offline", "--", "vllm", "serve", "moonshotai/Kimi-K2.5")
    assert bundled["facts"]["model"]["id"] == "moonshotai/Kimi-K2.5"
    missing = check_json(capsys, "--hardware", "rtx-5090", "--offline", "--", "vllm", "serve", "nobody/none-such",
                         "--max-model-len", "4096")
    assert missing["facts"]["model"] is None
    assert any("the pasted command's model nobody/none-such was not read" in n
               for n in missing["facts"]["source"]["notes"])
    assert [e["engine"] for e in missing["releases_evaluated"]] == ["vllm"]


def test_diagnose_with_an_engine_named_without_a_release_evaluates_it_and_says_so(capsys, tmp_path):
    log = tmp_path / "trace.log"
    log.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    _, out, _ = run(capsys, "diagnose", str(log), "--hardware", "rtx-5090", "--engine", "vllm", "--format", "json")
    assert [(e["engine"], e["how"]) for e in json.loads(out)["report"]["releases_evaluated"]] == [("vllm", "named")]
    _, text, _ = run(capsys, "diagnose", str(log), "--hardware", "rtx-5090", "--engine", "vllm")
    assert re.search(r"vllm \(--engine, version not stated; evaluated at \d+ releases, 0\.9\.2-[\d.]+\)", text)


def test_the_markdown_bug_report_says_the_release_was_not_stated(capsys):
    _, out, _ = run(capsys, "check", NVFP4, *SPARK, "--engine", "sglang", "--format", "markdown")
    assert re.search(r"\| engine \| sglang, release not stated: evaluated at \d+ releases \(0\.5\.0-[\d.]+\)", out)
