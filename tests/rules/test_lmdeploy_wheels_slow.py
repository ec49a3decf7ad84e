"""LMD001-LMD003 rest on what PyPI's lmdeploy wheels carry, re-read from the wheels (slow: downloads):
TurboMind (lmdeploy/lib/_turbomind*.so) has SASS for sm_70 to sm_90a and no PTX up to 0.12.3, and adds sm_100a and
sm_120a from 0.13.0 (never sm_121). Run with `pytest -m slow tests/rules/test_lmdeploy_wheels_slow.py` and
SM120_DOCTOR_TEST_CACHE set."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from doctor.binaries import read_cuda_archs
from tests.wheels import download_wheel

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

TURBOMIND = re.compile(r"^lmdeploy/(?:lib|turbomind)/_turbomind[^/]*\.so$")


def turbomind_archs(version: str, tmp_path: Path) -> tuple[set[str], set[str]]:
    """The SASS and PTX targets of the TurboMind extension in lmdeploy==version's wheel for this platform."""
    with zipfile.ZipFile(download_wheel("lmdeploy", version)) as wheel:
        member = next(n for n in wheel.namelist() if TURBOMIND.match(n))
        library = Path(wheel.extract(member, tmp_path))
    info = read_cuda_archs(str(library))
    return set(info.sass), set(info.ptx)


def test_0123_turbomind_has_no_sm12x_code(tmp_path):
    sass, ptx = turbomind_archs("0.12.3", tmp_path)
    assert {"sm_80", "sm_86", "sm_89", "sm_90a"} <= sass
    assert not any(a.startswith("sm_12") for a in sass)
    assert ptx == set()


@pytest.mark.parametrize("version", ["0.13.0", "0.16.0"])
def test_from_0130_turbomind_has_sm120a_and_no_sm121(version, tmp_path):
    sass, ptx = turbomind_archs(version, tmp_path)
    assert "sm_120a" in sass
    assert not any(a.startswith("sm_121") for a in sass)
    assert ptx == set()
