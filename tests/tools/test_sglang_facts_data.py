"""The committed SGLang facts (tools/sglang_facts.py output) cover the releases the doctor claims to know."""

import json
from pathlib import Path

import pytest

from doctor.engines.sglang.releases import RELEASES

DATA = json.loads((Path(__file__).resolve().parents[2] / "doctor" / "data" / "sglang_facts.json").read_text())


def test_every_known_release_has_an_entry_up_to_0_5_23():
    assert set(RELEASES) <= set(DATA)
    assert RELEASES[-1] == "0.5.23"


def test_moe_runner_flag_has_provenance_in_the_newest_release():
    fact = DATA["0.5.23"]["flags"]["--moe-runner-backend"]
    assert fact["file"].startswith("sglang/srt/") and fact["line"] > 0
    assert DATA["0.5.23"]["wheel"].startswith("sglang-0.5.23")


def test_0_5_1_wheel_names_triton_kernel_as_a_runner_default():
    texts = [line["text"] for line in DATA["0.5.1"]["mxfp4_runner_lines"]]
    assert 'self.moe_runner_backend = "triton_kernel"' in texts


def _script():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "tools" / "sglang_facts.py"
    spec = importlib.util.spec_from_file_location("sglang_facts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.wheel
@pytest.mark.parametrize("version", ["0.5.1", "0.5.14", "0.5.23"])
def test_data_matches_the_boundary_wheels(version):
    from tests.wheels import download_wheel

    fresh = json.loads(json.dumps(_script().facts_for(download_wheel("sglang", version))))  # as committed
    assert fresh["flags"] == DATA[version]["flags"]
    assert fresh["tuned_moe_configs"] == DATA[version]["tuned_moe_configs"]


def test_the_flag_registry_agrees_with_every_release_read_from_the_wheels():
    """doctor/engines/sglang/flags.py's added/removed releases, against the flags of every SGLang release the
    data holds (tools/sglang_facts.py): a spelling the doctor composes for a release exists in that release."""
    from packaging.version import Version

    from doctor.engines.sglang.flags import FLAGS

    wrong = [(release, name) for release, entry in DATA.items() if "flags" in entry
             for name, flag in FLAGS.items() if flag.exists(Version(release)) != (name in entry["flags"])]
    assert wrong == []
