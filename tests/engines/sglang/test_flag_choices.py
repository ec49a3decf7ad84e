"""SGLang flag values checked against each release's own argparse choices (doctor/data/sglang_choices.json, read
from the wheels by tools/sglang_facts.py): a value is refused only where that release's list lacks it."""

from packaging.version import Version

from doctor.engines.sglang.flags import bad_values, choice_valid, release_choices


def test_values_real_releases_accept_are_never_refused():
    assert choice_valid("--attention-backend", "nsa", Version("0.5.9")) is True
    assert choice_valid("--attention-backend", "dsa", Version("0.5.23")) is True
    assert choice_valid("--kv-cache-dtype", "bfloat16", Version("0.5.9")) is True
    assert choice_valid("--moe-runner-backend", "flashinfer_cutedsl", Version("0.5.23")) is True
    assert bad_values(["--attention-backend", "nsa", "--kv-cache-dtype", "bfloat16"], Version("0.5.9")) == []


def test_a_value_outside_the_releases_list_is_refused_with_the_real_choices():
    assert choice_valid("--attention-backend", "trtion", Version("0.5.9")) is False
    [problem] = bad_values(["--attention-backend", "trtion"], Version("0.5.9"))
    assert problem == "--attention-backend trtion (did you mean triton?)"
    assert choice_valid("--kv-cache-dtype", "fp4_e2m1", Version("0.5.20")) is True
    assert choice_valid("--kv-cache-dtype", "fp4_e2m1", Version("0.5.21")) is False  # dropped in 0.5.21


def test_outside_the_releases_read_nothing_is_claimed():
    newest = release_choices("--attention-backend", Version("9.0.0"))
    assert newest[1] is False and "triton" in newest[0]
    assert choice_valid("--attention-backend", "a-backend-of-a-later-release", Version("9.0.0")) is None
    assert choice_valid("--attention-backend", "triton", Version("9.0.0")) is True
    assert release_choices("--attention-backend", Version("0.4.9")) == (None, False)
    assert choice_valid("--no-such-flag", "x", Version("0.5.9")) is None


def test_no_release_read_registers_a_flag_with_an_underscore():
    """SGL490's premise, over every wheel tools/sglang_facts.py read: a later release that registered one would
    make the rule's version scope wrong."""
    import json
    from pathlib import Path

    facts = json.loads((Path(__file__).resolve().parents[3] / "doctor/data/sglang_facts.json").read_text())
    read = {release: entry["flags"] for release, entry in facts.items() if "flags" in entry}
    assert len(read) >= 40 and "0.5.1" in read and "0.5.23" in read
    assert [(release, flag) for release, flags in read.items() for flag in flags if "_" in flag] == []


def test_underscore_spellings_are_named_with_their_dashed_form():
    from doctor.engines.sglang.flags import underscore_flags

    args = ["--mem_fraction_static", "0.8", "--tp-size", "2", "--json-model-override-args", '{"rope_theta": 1}',
            "--chunked_prefill_size=4096"]
    assert underscore_flags(args) == ["--mem_fraction_static (use --mem-fraction-static)",
                                      "--chunked_prefill_size (use --chunked-prefill-size)"]
