import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(autouse=True)
def _never_touch_the_hub(monkeypatch, tmp_path_factory):
    """Tests never reach the Hugging Face hub, and never see or fill the developer's caches (the doctor's own is
    shared by the whole session, so it still spares re-parsing the rules)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path_factory.getbasetemp() / "hf-home"))
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path_factory.getbasetemp() / "doctor-cache"))


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "VLLM_", "CUDA_"))}
    env.update({"HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO), "COLUMNS": "200"})
    env.update(extra)
    return env


SLOW_FIXTURES = {"nvcc", "built"}  # tests that build CUDA binaries with nvcc


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Anything that downloads a wheel or runs nvcc belongs to the slow set, however it is marked."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or item.get_closest_marker("wheel"):
            item.add_marker(pytest.mark.slow)
