import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from doctor.engines.sglang.source import extend_attention_file
from tests.conftest import cli_env
from tests.wheels import unpacked_wheel


class Site:
    """A throw-away site-packages holding a real SGLang wheel, and a CLI bound to it."""

    def __init__(self, root: Path, version: str) -> None:
        self.root = root
        self.version = version
        self.site = root / "site"
        shutil.copytree(unpacked_wheel("sglang", version), self.site)
        self.state = root / "state"

    @property
    def extend_file(self) -> Path:
        return extend_attention_file(self.site, Version(self.version))

    def env(self, **extra: str) -> dict[str, str]:
        return cli_env(PYTHONPATH=f"{self.site}:{cli_env()['PYTHONPATH']}", SM120_DOCTOR_STATE_DIR=str(self.state),
                       **extra)

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,
                              env=self.env(**extra), timeout=120, cwd=self.root)


@pytest.fixture
def sglang_058(tmp_path) -> Site:
    return Site(tmp_path, "0.5.8")


@pytest.fixture
def sglang_059(tmp_path) -> Site:
    return Site(tmp_path, "0.5.9")
