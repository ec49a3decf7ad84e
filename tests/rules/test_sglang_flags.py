"""doctor/engines/sglang/flags.py against the real SGLang wheels (source text only, never imported)."""

import pytest
from packaging.version import Version

from doctor.engines.sglang import flags
from tests.rules.sglang_source import server_args

pytestmark = pytest.mark.wheel
RELEASES = flags.CHECKED_RELEASES


@pytest.mark.parametrize("version", RELEASES)
def test_every_registered_flag_exists_exactly_where_the_registry_says(version):
    source = server_args(version)
    assert len(source.flags) > 300, "parsing the argument definitions failed"
    for name, flag in flags.FLAGS.items():
        assert flag.exists(Version(version)) == (name in source.flags), f"{name} in SGLang {version}"


@pytest.mark.parametrize("version", RELEASES)
def test_the_choice_table_holds_exactly_each_wheels_lists(version):
    """doctor/data/sglang_choices.json (tools/sglang_facts.py) against this module's own reading of the wheel."""
    source = server_args(version)
    listed = {flag: choices for flag, choices in source.choices.items() if choices is not None}
    assert len(listed) > 20
    for flag, real in listed.items():
        table, within = flags.release_choices(flag, Version(version))
        assert within and table is not None and set(table) == set(real), f"{flag} in SGLang {version}"


@pytest.mark.parametrize("version", RELEASES)
def test_abbreviations_resolve_to_one_real_flag_and_pp_is_ambiguous(version):
    source = server_args(version)
    for short, full in flags.ABBREVIATIONS.items():
        matches = sorted(f for f in source.flags if f.startswith(short))
        if short in flags.AMBIGUOUS:
            assert len(matches) > 1 and full in matches, (short, matches)
            assert set(flags.AMBIGUOUS[short]) <= set(matches)
        else:
            assert matches == [full], (short, matches)


@pytest.mark.parametrize("version", RELEASES)
def test_deprecations_are_announced_in_the_source(version):
    source = server_args(version)
    text = "\n".join(source.texts[n] for n in source.text(contains="DeprecatedStoreTrueAction"))
    for flag in flags.FLAGS.values():
        if flag.is_deprecated(Version(version)) and flag.name != "--enable-dp-attention":
            assert f'"{flag.name}"' in text and "Deprecated" in text, f"{flag.name} in {version}"
    if Version(version) >= Version("0.5.14"):
        assert "Deprecated. Use --cuda-graph-backend-{decode,prefill}=disabled instead." in text
    else:
        assert not source.text(contains="Deprecated. Use --cuda-graph-backend-{decode,prefill}=disabled")


def test_check_flags_catches_removed_flags_and_bad_choices():
    v0523, v058 = Version("0.5.23"), Version("0.5.8")
    assert flags.check_flags(["--cuda-graph-max-bs", "8"], v0523) == [
        "--cuda-graph-max-bs does not exist in SGLang 0.5.23"]
    assert flags.check_flags(["--fp4-gemm-backend", "cutlass"], v0523) == [
        "--fp4-gemm-backend cutlass is not a choice in SGLang 0.5.23"]
    assert flags.check_flags(["--attention-backend=triton", "--tp-size", "8"], v058) == []
    assert flags.check_flags(["--cuda-graph-backend-decode", "disabled"], v058)


def test_user_flag_view():
    view = flags.user_flag_view(["--pp", "2", "--cuda-graph-max-bs", "8", "--disable-cuda-graph"], Version("0.5.23"))
    assert view["ambiguous_flags"][0].startswith("--pp (matches --pp-size")
    assert view["rejected_flags"] == ["--cuda-graph-max-bs (use --cuda-graph-max-bs-decode)"]
    assert view["deprecated_flags"] == []
    view = flags.user_flag_view(["--cuda-graph-max-bs", "8"], Version("0.5.14"))
    assert view["deprecated_flags"] == ["--cuda-graph-max-bs (use --cuda-graph-max-bs-decode)"]
    assert flags.user_flag_view(["--cuda-graph-max-bs", "8"], Version("0.5.8")) == {
        "rejected_flags": [], "deprecated_flags": [], "ambiguous_flags": [], "bad_values": [], "misspelled_flags": [],
        "underscore_flags": []}
    assert flags.user_flag_view(["--cuda_graph_max_bs", "8"], Version("0.5.8"))["underscore_flags"] == [
        "--cuda_graph_max_bs (use --cuda-graph-max-bs)"]
    view = flags.user_flag_view(["--attention-backend", "trtion", "--tp-szie", "8", "--host", "h"], Version("0.5.8"))
    assert view["bad_values"] == ["--attention-backend trtion (did you mean triton?)"]
    assert view["misspelled_flags"] == ["--tp-szie (did you mean --tp-size?)"]
    assert flags.user_flag_view(["--mm-attention-backend", "fa4"], Version("0.5.8"))["bad_values"][0].startswith(
        "--mm-attention-backend fa4 (")  # fa4 arrives in 0.5.9
