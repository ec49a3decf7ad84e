"""`check model.gguf` as a user runs it: a llama.cpp plan from the tensor table and a llama-server command,
with nothing of SGLang's or vLLM's in the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from doctor.probe.gguf import read_gguf
from tests.conftest import cli_env
from tests.engines.foreign import without_checkout_path, without_citations
from tests.engines.llama_cpp.gguf_files import Spec, fixture, write_gguf
from tests.schemas import validate

FOREIGN = ("SGLang", "sglang", "vLLM", "vllm", "--mem-fraction-static", "--tp-size", "--tensor-parallel-size",
           "mem_fraction_static", "gpu-memory-utilization")


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,
                          env=cli_env(**env), timeout=120)


def test_gguf_on_a_5090_gives_a_llama_cpp_plan_exact_to_the_byte():
    path = fixture("moe")
    result = run("check", str(path), "--hardware", "rtx-5090", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    validate("report", report)
    plan = report["analysis"]["plan"]
    assert (plan["engine"], report["analysis"]["engine"]) == ("llama.cpp", "llama.cpp")
    gguf = read_gguf(path)
    embd = next(t.n_bytes for t in gguf.tensors if t.name == "token_embd.weight")
    devices = {d["device"]: d for d in plan["requested"]["devices"]}
    assert devices["CUDA0"]["weights_bytes"] + devices["CPU"]["weights_bytes"] == gguf.tensor_bytes
    assert devices["CPU"]["weights_bytes"] == embd
    assert plan["requested"]["fits"] and plan["requested"]["context_length"] == 131072
    launch = report["launches"][0] if "launches" in report else report["launch"]
    assert launch["argv"][:3] == ["llama-server", "-m", str(path)]
    assert "--n-gpu-layers" in launch["argv"]
    text = without_citations(report)
    assert not [word for word in FOREIGN if word in text]


def test_console_report_names_llama_cpp_and_the_devices():
    result = run("check", str(fixture("tiny")), "--hardware", "rtx-5090", "--", "-c", "8192", "-fa", "on")
    assert result.returncode == 0, result.stderr
    assert "memory plan (llama.cpp 11312)" in result.stdout
    assert "CUDA0: weights" in result.stdout and "(estimate)" in result.stdout
    assert "llama-server -m" in result.stdout and "--ctx-size 8192" in result.stdout
    assert not [word for word in FOREIGN if word in without_checkout_path(result.stdout)]


def test_does_not_fit_names_the_offload_and_puts_it_in_the_command(tmp_path: Path):
    facts = json.loads(Path("doctor/hardware/profiles/rtx-5090.json").read_text())
    facts["gpus"][0]["memory_total_bytes"] = int(1.5 * (1 << 30))
    facts["source"] = {"kind": "snapshot", "name": "small"}
    small = tmp_path / "small.json"
    small.write_text(json.dumps(facts))
    result = run("check", str(fixture("moe")), "--facts", str(small), "--format", "json")
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stderr  # a warning: --fit would offload by itself
    assert "LCPP010" in {f["id"] for f in report["findings"]}
    best = report["analysis"]["plan"]["best"]
    launch = report["launches"][0] if "launches" in report else report["launch"]
    assert "--n-cpu-moe" in launch["argv"]
    assert launch["argv"][launch["argv"].index("--n-cpu-moe") + 1] == str(best["n_cpu_moe"])


def test_directory_and_split_sets_resolve_to_the_first_file(tmp_path: Path):
    parts = write_gguf(tmp_path / "m.gguf", Spec(hidden=512), split_max_tensors=12)
    result = run("check", str(tmp_path), "--hardware", "rtx-5090", "--format", "json")
    assert result.returncode == 0, result.stderr
    launch = json.loads(result.stdout)
    launch = launch["launches"][0] if "launches" in launch else launch["launch"]
    assert launch["argv"][:3] == ["llama-server", "-m", str(parts[0])]


def test_a_broken_gguf_is_one_line_and_exit_2(tmp_path: Path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 32)
    result = run("check", str(bad), "--hardware", "rtx-5090")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "not a readable GGUF file" in result.stderr
    missing = run("check", str(tmp_path / "nope.gguf"), "--hardware", "rtx-5090")
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_flags_are_checked_against_the_found_builds_help(tmp_path: Path):
    from tests.engines.llama_cpp.test_flags import HELP

    server = tmp_path / "bin" / "llama-server"
    server.parent.mkdir()
    (tmp_path / "help.txt").write_text(HELP)
    server.write_text(f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'version: 7551 (a52dc60)'; exit 0; fi\n"
                      f"cat {tmp_path / 'help.txt'}\n")
    server.chmod(0o755)
    path = f"{server.parent}:/usr/bin:/bin"
    # --no-mmap is in this (older) build's --help but not in build 11312's table
    ok = run("check", str(fixture("tiny")), "--hardware", "rtx-5090", "--format", "json", "--", "--no-mmap", PATH=path)
    report = json.loads(ok.stdout)
    assert report["analysis"]["engine_version"] == "7551"
    assert "LCPP007" not in {f["id"] for f in report["findings"]}
    bad = run("check", str(fixture("tiny")), "--hardware", "rtx-5090", "--format", "json", "--", "--load-mode", "mmap",
              PATH=path)
    finding = next(f for f in json.loads(bad.stdout)["findings"] if f["id"] == "LCPP007")
    assert "--load-mode is not a llama-server flag" in finding["message"] and "--help" in finding["message"]
    assert not [n for n in launch_of_report(ok.stdout)["notes"] if n.startswith("still wrong")]


def launch_of_report(text: str) -> dict:
    report = json.loads(text)
    return report["launches"][0] if report.get("launches") else report["launch"]


def test_an_older_build_named_by_its_tag_is_checked_against_its_own_release():
    """The issue's case: bare --flash-attn and --no-mmap were llama-server flags at b5000, gone or changed later."""
    args = ("check", str(fixture("tiny")), "--hardware", "rtx-5090", "--format", "json")
    old = json.loads(run(*args, "--engine", "llama.cpp==b5000", "--", "--no-mmap", "--flash-attn").stdout)
    assert old["analysis"]["engine_version"] == "5000"
    assert not {"LCPP007", "LCPP011"} & {f["id"] for f in old["findings"]}
    new = json.loads(run(*args, "--engine", "llama.cpp==b10878", "--", "--no-mmap").stdout)
    finding = next(f for f in new["findings"] if f["id"] == "LCPP007")
    assert "--no-mmap is not a llama-server flag" in finding["message"] and "b10878" in finding["message"]
