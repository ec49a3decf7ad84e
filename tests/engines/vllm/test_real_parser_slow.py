"""The flag table the generator reads from a release's wheel, against that release's own argparse.

Building vLLM's real parser means importing vLLM, and vLLM imports torch at the top of its config modules
(`vllm/config/*.py`, `vllm/engine/arg_utils.py`), so the release has to be installed with its pinned torch:
from PyPI that is the CUDA build of torch plus its nvidia-* wheels, several GB per release, too much for a
test to download. So this test uses releases someone installed: `SM120_DOCTOR_VLLM_VENVS` names a folder of
venvs `vllm-X.Y.Z/` (each `pip install vllm==X.Y.Z`); without it the test is skipped. The outputs of two such
runs are committed (real_parsers/, checked on every fast run by test_flag_shapes.py); this test also says
when those files are stale."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.wheels import download_wheel
from tools.vllm_facts.cli_flags import FlagReader
from tools.vllm_facts.parser_check import mismatches
from tools.vllm_facts.source import WheelSource

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
ROOT = Path(__file__).resolve().parents[3]
DUMPER = ROOT / "tools" / "vllm_facts" / "real_parser.py"
COMMITTED = Path(__file__).parent / "real_parsers"


def installed() -> list[tuple[str, Path]]:
    folder = os.environ.get("SM120_DOCTOR_VLLM_VENVS")
    if not folder:
        return []
    return sorted((p.name.removeprefix("vllm-"), p / "bin" / "python") for p in Path(folder).glob("vllm-*")
                  if (p / "bin" / "python").is_file())


def real_parser(python: Path, out: Path) -> dict:
    # -P: the dumper's folder holds a types.py that must not shadow the standard library's
    subprocess.run([str(python), "-P", str(DUMPER), str(out)], check=True, timeout=900, capture_output=True)
    return json.loads(out.read_text(encoding="utf-8"))


def wheel_table(version: str) -> dict:
    source = WheelSource(download_wheel("vllm", version))
    try:
        reader = FlagReader(source)
        return {"version": version, "flags": reader.read()}
    finally:
        source.close()


@pytest.mark.skipif(not installed(), reason="set SM120_DOCTOR_VLLM_VENVS to a folder of vllm-X.Y.Z venvs "
                                            "(vLLM needs its torch to build its parser; see the module doc)")
@pytest.mark.parametrize(("version", "python"), installed())
def test_wheel_table_matches_the_installed_release_parser(version, python, tmp_path):
    real = real_parser(python, tmp_path / "real.json")
    assert real["vllm"] == version
    assert mismatches(wheel_table(version), real) == []
    committed = COMMITTED / f"vllm-{version}.json"
    if committed.is_file():
        assert json.loads(committed.read_text(encoding="utf-8"))["options"] == real["options"], \
            f"{committed} is stale: rewrite it with tools/vllm_facts/real_parser.py"
