"""A C locale without coercion (LC_ALL=C PYTHONCOERCECLOCALE=0 PYTHONUTF8=0): argv and file names reach the
doctor with surrogate escapes for their non-ASCII bytes. A non-ASCII model path must give the report, not an
internal UnicodeEncodeError: the path prints as its own bytes, fingerprints equal a UTF-8 locale's, and a
launch script that --fix writes names the same file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.engines.llama_cpp.gguf_files import fixture

C_LOCALE = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0", "LANG": "C"}
UTF8_LOCALE = {"LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"}
CONFIG = Path(__file__).resolve().parents[1] / "cases" / "models" / "qwen3-next-80b-a3b"


def doctor(*args: str, locale: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, timeout=120, cwd=cwd,
                          env=cli_env(**locale))


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    """A Hugging Face checkpoint (config.json) in a folder with non-ASCII letters."""
    folder = tmp_path / "mödels" / "qwen3-nëxt"
    shutil.copytree(CONFIG, folder)
    return folder


def test_the_c_locale_really_decodes_with_surrogate_escapes():
    probe = subprocess.run([sys.executable, "-c", "import sys; print(sys.getfilesystemencoding(), sys.argv[1])", "ö"],
                           capture_output=True, env=cli_env(**C_LOCALE), timeout=60)
    assert probe.stdout.split()[0] == b"ascii"  # the condition under test, not a coerced UTF-8 one


@pytest.mark.parametrize("form", ["console", "json", "sarif", "github"])
def test_a_non_ascii_model_path_gives_the_report(checkpoint: Path, form: str):
    done = doctor("check", str(checkpoint), "--hardware", "rtx-5090", "--engine", "vllm==0.15.1", "--format", form,
                  locale=C_LOCALE)
    assert b"internal error" not in done.stderr and b"Traceback" not in done.stderr
    assert done.returncode in (0, 1), done.stderr
    if form == "console":
        assert str(checkpoint).encode() in done.stdout  # the path's own bytes, not \udcc3 escapes
    if form in ("json", "sarif"):
        json.loads(done.stdout)


def test_fingerprints_are_the_ones_a_utf8_locale_gives(checkpoint: Path):
    def fingerprints(locale: dict[str, str]) -> list[str]:
        done = doctor("check", str(checkpoint), "--hardware", "rtx-5090", "--engine", "vllm==0.15.1", "--format",
                      "sarif", locale=locale)
        results = json.loads(done.stdout)["runs"][0]["results"]
        return sorted(r["partialFingerprints"]["sm120DoctorFinding/v1"] for r in results)

    c_prints = fingerprints(C_LOCALE)
    assert c_prints and c_prints == fingerprints(UTF8_LOCALE)


def test_fix_writes_a_launch_script_that_names_the_same_file(tmp_path: Path):
    model = tmp_path / "mödels" / "tïny.gguf"
    model.parent.mkdir()
    shutil.copy(fixture("tiny"), model)
    done = doctor("check", str(model), "--hardware", "rtx-5090", "--fix", "--fix-dir", str(tmp_path / "fix"),
                  "--", "-ctv", "q8_0", "-fa", "off", locale=C_LOCALE, cwd=tmp_path)
    assert b"internal error" not in done.stderr and done.returncode in (0, 1), done.stderr
    script = (tmp_path / "fix" / "launch-llama.cpp.sh").read_bytes()
    assert str(model).encode() in script and b"\\udc" not in script
