import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(autouse=True)
def _never_touch_the_hub(monkeypatch, tmp_path_factory):
    """Tests never reach the Hugging Face hub, and never see the developer's cache."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path_factory.getbasetemp() / "hf-home"))


def pytest_configure(config: pytest.Config) -> None:
    """The doctor's own cache is the session's, not the developer's, and stays set through the interpreter's
    exit, when the on-disk memos write themselves (doctor/cache.py DiskMemo). One folder for the session: it
    still spares each test re-parsing the rules."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="sm120-doctor-test-cache-")
    os.environ["SM120_DOCTOR_CACHE"] = folder
    atexit.register(shutil.rmtree, folder, True)  # registered first, so it runs after the memos' own exit flush


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
