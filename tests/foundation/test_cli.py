"""The CLI as a user runs it: a subprocess, its stdout/stderr and exit code."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import cli_env
from tests.schemas import validate

KIMI = ["check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8"]


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,
                          env=cli_env(**env), timeout=120)


def test_acceptance_kimi_on_sglang_058_reports_extend_overflow():
    result = run(*KIMI, "--engine", "sglang==0.5.8")
    assert result.returncode == 1, result.stderr
    assert "SGL101" in result.stdout
    assert "106496" in result.stdout and "101376" in result.stdout
    assert "sglang>=0.5.9" in result.stdout


def test_sglang_0523_has_the_sm12x_tiles_and_is_clean():
    result = run(*KIMI, "--engine", "sglang==0.5.23", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert not [f for f in report["findings"] if f["id"] == "SGL101"]
    absorbed = next(k for k in report["analysis"]["kernels"] if k["path"] == "mla-absorbed")
    assert (absorbed["config"]["block_m"], absorbed["config"]["block_n"], absorbed["bytes"]) == (32, 32, 71680)


def test_json_report_validates_against_shipped_schema(tmp_path):
    out = tmp_path / "report.json"
    result = run(*KIMI, "--engine", "sglang==0.5.8", "--format", "json", "--output", str(out))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    validate("report", report)
    assert json.loads(out.read_text()) == report
    finding = next(f for f in report["findings"] if f["id"] == "SGL101")
    assert finding["evidence"]["item.bytes"] == 106496 and finding["evidence"]["item.limit"] == 101376
    assert {fix["kind"] for fix in finding["fixes"]} == {"upgrade", "patch"}
    assert report["summary"]["error"] >= 1


def test_schema_rejects_a_broken_report():
    broken = {"schema_version": "1", "tool": {"name": "sm120-doctor", "version": "0"}, "facts": {},
              "analysis": {"kernels": []}, "findings": [{"id": "bad id", "severity": "fatal"}], "summary": {}}
    with pytest.raises(jsonschema.ValidationError):
        validate("report", broken)


@pytest.mark.parametrize(("fail_on", "code"), [("error", 1), ("warning", 1), ("never", 0)])
def test_fail_on_threshold(fail_on, code):
    assert run(*KIMI, "--engine", "sglang==0.5.8", "--fail-on", fail_on).returncode == code


def test_fail_on_warning_counts_info_only_at_info():
    # a live probe here has no driver: HW001 is info, so only --fail-on info trips
    assert run("check", "moonshotai/Kimi-K2.5", "--fail-on", "warning").returncode == 0
    assert run("check", "moonshotai/Kimi-K2.5", "--fail-on", "info").returncode == 1


def test_snapshot_then_check_against_it(tmp_path):
    snap = tmp_path / "facts.json"
    assert run("snapshot", "-o", str(snap)).returncode == 0
    data = json.loads(snap.read_text())
    assert data["schema_version"] == "1" and data["source"]["kind"] == "live"
    result = run("check", "zai-org/GLM-4.7-FP8", "--facts", str(snap), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["facts"]["model"]["quantization"]["scheme"] == "fp8-channel"


def test_hardware_and_models_listings():
    names = {p["name"] for p in json.loads(run("hardware", "--format", "json").stdout)["profiles"]}
    assert {"rtx-pro-6000-x8", "rtx-pro-6000-ws-x4", "rtx-5090", "rtx-5090-x2", "dgx-spark", "h100-sxm-x8",
            "b200-x8"} <= names
    models = json.loads(run("models", "--format", "json").stdout)["models"]
    assert models["zai-org/GLM-4.7-FP8"]["provenance"] == "reconstructed"


def test_engine_args_after_double_dash_choose_the_backend():
    # GQA models default to flashinfer on SM12x; forcing triton brings in the extend kernel
    result = run("check", "meta-llama/Llama-3.1-8B-Instruct", "--hardware", "rtx-5090", "--engine",
                 "sglang==0.5.8", "--format", "json", "--", "--attention-backend", "triton", "--tp-size", "1")
    report = json.loads(result.stdout)
    assert report["analysis"]["attention_backend"] == "triton"
    assert report["analysis"]["attention_backend_source"] == "launch flags"
    assert [(k["kernel"], k["bytes"]) for k in report["analysis"]["kernels"]] == [
        ("extend_attention", 49152), ("decode_attention", 21504)]


BAD_INPUTS = [
    (["check", "nobody/does-not-exist"], "not found"),
    (["check", "moonshotai/Kimi-K2.5", "--hardware", "nonsense"], "unknown hardware profile"),
    (["check", "moonshotai/Kimi-K2.5", "--engine", "sglang=0.5.8"], "NAME==VERSION"),
    (["check", "moonshotai/Kimi-K2.5", "--engine", "notanengine==1.0"], "unknown package"),
    (["check", "moonshotai/Kimi-K2.5", "--tp", "0"], "--tp"),
    (["check", "moonshotai/Kimi-K2.5", "--", "--tp-size", "eight"], "not a valid value"),
    (["check", "--bogus-flag"], "unrecognized arguments"),
    (["nonsense-command"], "invalid choice"),
]


@pytest.mark.parametrize(("args", "expected"), BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(args, expected):
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sm120-doctor: error:"), result.stderr
    assert expected in lines[0]
    assert "Traceback" not in result.stderr


def bad_model_dirs(tmp_path: Path) -> list[tuple[Path, str]]:
    cases = []
    empty = tmp_path / "empty"
    empty.mkdir()
    cases.append((empty, "has no config.json"))
    for name, text, expected in [
        ("notjson", "{ this is not json", "not valid JSON"),
        ("wrongtype", json.dumps({"hidden_size": "7168", "num_hidden_layers": 61}), "must be an integer"),
        ("absurd", json.dumps({"hidden_size": 10**15, "num_hidden_layers": 61, "vocab_size": 10,
                               "num_attention_heads": 8}), "not a plausible value"),
        ("negative", json.dumps({"hidden_size": 4096, "num_hidden_layers": -3, "vocab_size": 10,
                                 "num_attention_heads": 8}), "not a plausible value"),
        ("array", "[1, 2, 3]", "must be a JSON object"),
        ("binary", None, "not UTF-8"),
    ]:
        folder = tmp_path / name
        folder.mkdir()
        if text is None:
            (folder / "config.json").write_bytes(b"\xff\xfe\x00garbage")
        else:
            (folder / "config.json").write_text(text)
        cases.append((folder, expected))
    return cases


def test_bad_model_directories(tmp_path):
    for folder, expected in bad_model_dirs(tmp_path):
        result = run("check", str(folder), "--hardware", "rtx-5090")
        assert result.returncode == 2, (folder, result.stdout)
        line = result.stderr.strip()
        assert "\n" not in line and expected in line, (folder, line)


def test_bad_facts_files(tmp_path):
    other = tmp_path / "v2.json"
    other.write_text(json.dumps({"schema_version": "2", "source": {"kind": "live"}}))
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"schema_version": "1", "source": {"kind": "live"}, "gpus": [{"index": "0"}]}))
    for path, expected in [(other, "schema_version '2' is not supported"), (wrong, "gpus[0]"),
                           (tmp_path / "missing.json", "cannot read facts file")]:
        result = run("check", "moonshotai/Kimi-K2.5", "--facts", str(path))
        assert result.returncode == 2 and expected in result.stderr, result.stderr


def test_output_under_a_file_is_one_line(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    result = run(*KIMI, "--output", str(blocker / "r.json"))
    assert result.returncode == 2
    assert "cannot write" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert blocker.read_text() == "x"


def test_unwritable_output_is_one_line(tmp_path):
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = run(*KIMI, "--output", str(locked / "r.json"))
        if result.returncode != 2:
            pytest.skip("running as a user who can write anywhere (root)")
        assert "cannot write" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    finally:
        locked.chmod(0o700)


def test_check_never_imports_torch_or_triton(tmp_path):
    # decoy packages that *would* import if anything on the check path asked for them
    for name in ("torch", "triton"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("__version__ = '0.0.decoy'\n")
    code = ("import sys; from doctor.cli import main; "
            "rc = main(['check', 'moonshotai/Kimi-K2.5', '--hardware', 'rtx-pro-6000-x8', "
            "'--engine', 'sglang==0.5.8', '--format', 'json']); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'triton')); "
            "print('IMPORTED', bad, file=sys.stderr); sys.exit(0 if rc == 1 and not bad else 3)")
    env = cli_env(PYTHONPATH=f"{tmp_path}:{cli_env()['PYTHONPATH']}")
    probe = subprocess.run([sys.executable, "-c", "import torch, triton; print(torch.__version__)"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert probe.stdout.strip() == "0.0.decoy"  # the decoys are importable, so the check below can fail
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-500:]
    assert "IMPORTED []" in result.stderr


def test_acceptance_glm47_fp8_on_058_reports_moe_default_overflow_and_missing_file():
    result = run("check", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8",
                 "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    finding = next(f for f in report["findings"] if f["id"] == "SGL102")
    name = ("E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,"
            "dtype=fp8_w8a8,per_channel_quant=True.json")
    assert "147456" in finding["message"] and "101376" in finding["message"] and name in finding["message"]
    assert report["facts"]["model"]["reconstructed"] is True
    clean = json.loads(run("check", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine",
                           "sglang==0.5.14", "--format", "json").stdout)
    assert "SGL102" not in {f["id"] for f in clean["findings"]}
