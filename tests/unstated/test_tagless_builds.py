"""A serving engine built from a checkout with no release tag in reach reports setuptools-scm's fallback
version (`0.1.dev20051+g487ecf187`, a DGX Spark community image's vLLM): it names no release, so it is evaluated
as an engine whose release is not stated, not as a vLLM older than every SM120 build."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from doctor.engines.registry import split_engine_specs


@pytest.mark.parametrize(("spec", "versioned", "unstated"), [
    ("vllm==0.1.dev20051+g487ecf187", [], ["vllm"]),
    ("vllm==0.1.dev7", [], ["vllm"]),
    ("vllm==0.10.1.dev5+gabc1234", ["vllm==0.10.1.dev5+gabc1234"], []),  # a dev build of a real line
    ("vllm==0.1.0", ["vllm==0.1.0"], []),  # a release, however old
    ("torch==0.1.dev5", ["torch==0.1.dev5"], []),  # only a serving engine's version can be read as unstated
])
def test_tagless_source_builds_name_no_release(spec, versioned, unstated):
    assert split_engine_specs([spec]) == (versioned, unstated)


def _findings(capsys, *args: str) -> dict[str, str]:
    main(["check", "--offline", "--hardware", "dgx-spark", "--format", "json", *args])
    return {f["id"]: f["severity"] for f in json.loads(capsys.readouterr().out)["findings"]}


def test_a_tagless_vllm_is_not_read_as_a_release_without_sm120_kernels(capsys):
    assert "VLLM001" in _findings(capsys, "--engine", "vllm==0.1.0")  # read as a release, it is that old
    tagless = _findings(capsys, "--engine", "vllm==0.1.dev20051+g487ecf187")
    assert "VLLM001" not in tagless and tagless == _findings(capsys, "--engine", "vllm")


def test_diagnose_reads_a_logged_tagless_version_as_unstated(tmp_path, capsys):
    log = tmp_path / "boot.log"
    log.write_text("(APIServer pid=1) INFO 04-01 10:00:00 [api_server.py:1839] vLLM API server version "
                   "0.1.dev20051+g487ecf187\n"
                   "ERROR 04-01 10:00:05 [core.py:700] EngineCore failed to start.\n", encoding="utf-8")
    main(["diagnose", str(log), "--hardware", "dgx-spark", "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    text = json.dumps(document)
    assert "0.1.dev20051+g487ecf187, a source build that names no release" in text
    assert "VLLM001" not in {f["id"] for f in document.get("findings", [])}
