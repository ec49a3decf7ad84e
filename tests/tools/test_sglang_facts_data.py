"""The committed SGLang facts (tools/sglang_facts.py output) cover the releases the doctor claims to know."""

import json
import re
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
    assert fresh["extend_tiles"] == DATA[version]["extend_tiles"]


def test_the_flag_registry_agrees_with_every_release_read_from_the_wheels():
    """doctor/engines/sglang/flags.py's added/removed releases, against the flags of every SGLang release the
    data holds (tools/sglang_facts.py): a spelling the doctor composes for a release exists in that release."""
    from packaging.version import Version

    from doctor.engines.sglang.flags import FLAGS

    wrong = [(release, name) for release, entry in DATA.items() if "flags" in entry
             for name, flag in FLAGS.items() if flag.exists(Version(release)) != (name in entry["flags"])]
    assert wrong == []


def test_extend_tiles_agree_with_every_release_read_from_the_wheels():
    """doctor/engines/sglang/attention.py's extend_tiles (used for what-if versions, when SGLang is not
    installed) against `_get_block_sizes_for_extend_attention` evaluated from each release's wheel
    (0.5.4 and later; earlier releases pick tiles inline and are not in the data)."""
    from packaging.version import Version

    from doctor.engines.sglang.attention import extend_tiles

    wrong = []
    for release, entry in DATA.items():
        for cc_text, heads in entry.get("extend_tiles", {}).items():
            if cc_text in ("file", "error"):
                continue
            cc = tuple(int(x) for x in cc_text.split("."))
            for head, expected in heads.items():
                lq, lv = (int(x) for x in head.split("x"))
                t = extend_tiles(Version(release), cc, lq, lv)
                got = [t.block_dmodel, t.block_dpe, t.block_dv, t.block_m, t.block_n, t.num_warps]
                if got != expected:
                    wrong.append((release, cc_text, head, got, expected))
    assert wrong == []


def test_extend_tiles_are_in_the_data_from_0_5_4():
    from packaging.version import Version

    assert all("12.0" in DATA[v]["extend_tiles"] for v in RELEASES if Version(v) >= Version("0.5.4"))


# device names of SM12x GPUs in SGLang's tuned-config file names
SM12X_DEVICE = re.compile(r"device_name=NVIDIA_(RTX_PRO_\d+_Blackwell|GeForce_RTX_50\d0|GB10|DGX_Spark)")


def test_sm12x_tuned_configs_known_for_what_if_versions_match_every_wheel():
    """kernel_plan.SHIPPED_SM12X (the tuned MoE configs for SM12x GPUs a not-installed release ships) against the
    file names each release's wheel holds."""
    from packaging.version import Version

    from doctor.engines.sglang.kernel_plan import SHIPPED_SM12X

    wrong = []
    for release, entry in DATA.items():
        if "tuned_moe_configs" not in entry:
            continue
        shipped = {f for f in entry["tuned_moe_configs"]["files"] if SM12X_DEVICE.search(f)}
        known = {f"{triton}/{name}" for floor, triton, name in SHIPPED_SM12X if Version(release) >= floor}
        if shipped != known:
            wrong.append((release, sorted(shipped - known), sorted(known - shipped)))
    assert wrong == []


def test_choice_segments_start_where_a_list_changes_and_read_tuples_as_lists():
    from tools.sglang_facts import choice_segments

    data = {"1": {"flags": {"--a": {"choices": ("x", "y")}}}, "2": {"flags": {"--a": {"choices": ["x", "y"]}}},
            "3": {"flags": {"--a": {"choices": "NAME_NOT_RESOLVED"}}}, "4": {"error": "no wheel"}}
    assert choice_segments(data, ("1", "2", "3", "4")) == {
        "--a": [{"from": "1", "choices": ["x", "y"]}, {"from": "3", "choices": None}]}


def test_the_check_time_choice_table_is_the_facts_tables_own():
    from tools.sglang_facts import CHOICES_OUT, OUT, choice_segments

    facts = json.loads(OUT.read_text())
    assert json.loads(CHOICES_OUT.read_text())["flags"] == choice_segments(facts, RELEASES)
