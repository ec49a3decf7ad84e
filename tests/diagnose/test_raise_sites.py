"""SRC001 (issue 26): tools/raise_sites.py reads each release's raise sites; `diagnose` names the site behind an
error line no signature explains, with the release where its guard changes or the message goes."""

from __future__ import annotations

import re

import pytest

from doctor.diagnose.raise_sites import Index, candidate_lines, match_lines
from doctor.raise_site_table import MIN_LITERAL, engines, index_word, literal_chars, load_table, parse_ranges, ranges
from tests.diagnose.corpus import diagnose_on, diagnose_text
from tools.raise_site_extract import cpp_sites, python_sites
from tools.raise_sites import add_release, records

# vllm 0.10.1.1, vllm/model_executor/layers/quantization/kernels/mixed_precision/bitblas.py (`.format`, an
# if/elif/else chain: the else branch is guarded by every test of the chain, negated)
BITBLAS = b'''
class BitBLASLinearKernel:
    def _preprocess_weight(self, zeros_mode):
        if zeros_mode == "original":
            zeros = 1
        elif zeros_mode == "rescale":
            assert zeros is not None, "zeros should not be None"
        elif zeros_mode == "quantized":
            zeros = 2
        else:
            raise ValueError("Unsupported zeros type: {}".format(zeros_mode))
'''
# vllm 0.10.1.1, vllm/config/cache.py (`+` concatenation of a name bound to an f-string in the same function)
SWAP = b'''
class CacheConfig:
    def verify_with_parallel_config(self, parallel_config):
        msg = (f"{cpu_memory_usage / GiB_bytes:.2f} GiB out of the "
               f"{total_cpu_memory / GiB_bytes:.2f} GiB total CPU memory "
               "is allocated for the swap space.")
        if cpu_memory_usage > 0.7 * total_cpu_memory:
            raise ValueError("Too large swap space. " + msg)
'''
# vllm 0.10.1.1, vllm/platforms/cuda.py (a logger call: %-style arguments)
FLASHMLA = b'''
class CudaPlatformBase:
    def get_attn_backend_cls(cls, selected_backend, block_size):
        if use_flashmla:
            if not is_flashmla_supported()[0]:
                logger.warning("FlashMLA backend is not supported due to %s", is_flashmla_supported()[1])
            elif block_size != 64:
                logger.warning(
                    "FlashMLA backend is not supported for block size %d"
                    " (currently only supports block size 64).",
                    block_size)
'''
# vllm 0.10.1.1, csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu
SCALED_MM = b'''
  TORCH_CHECK_NOT_IMPLEMENTED(
      false,
      "No compiled cutlass_scaled_mm for CUDA device capability: ", version_num,
      ". Required capability: 90 or 100");
'''


def test_format_template_and_else_branch_guard():
    site = next(s for s in python_sites("bitblas.py", BITBLAS) if s.kind == "ValueError")
    assert site.template == "Unsupported zeros type: {*}"
    assert site.function == "BitBLASLinearKernel._preprocess_weight"
    assert site.guard == ("not (zeros_mode == 'original') and not (zeros_mode == 'rescale') "
                          "and not (zeros_mode == 'quantized')")


def test_assert_guard_is_its_condition_and_elif_its_own_test():
    site = next(s for s in python_sites("bitblas.py", BITBLAS) if s.kind == "AssertionError")
    assert (site.template, site.guard) == ("zeros should not be None", "zeros is not None")


def test_concatenation_resolves_a_name_bound_to_an_fstring():
    (site,) = python_sites("cache.py", SWAP)
    assert site.template == ("Too large swap space. {*} GiB out of the {*} GiB total CPU memory is allocated for the "
                             "swap space.")
    assert site.guard == "cpu_memory_usage > 0.7 * total_cpu_memory"


def test_logger_percent_arguments_are_wildcards_and_the_guard_nests_two_levels():
    first, second = python_sites("cuda.py", FLASHMLA)
    assert first.template == "FlashMLA backend is not supported due to {*}"
    assert first.guard == "use_flashmla and not is_flashmla_supported()[0]"
    assert second.template == ("FlashMLA backend is not supported for block size {*} (currently only supports "
                               "block size 64).")
    assert second.guard == "use_flashmla and block_size != 64"
    assert second.kind == "logger.warning"


def test_logger_calls_without_a_device_word_are_not_sites():
    source = b'def f():\n    logger.warning("Possibly too large swap space. %s", msg)\n'
    assert python_sites("cache.py", source) == []


def test_torch_check_template_and_condition():
    (site,) = cpp_sites("scaled_mm_entry.cu", SCALED_MM)
    assert site.kind == "TORCH_CHECK_NOT_IMPLEMENTED"
    assert site.template == ("No compiled cutlass_scaled_mm for CUDA device capability: {*}. Required capability: "
                             "90 or 100")
    assert site.guard == "false"


def test_tvm_stream_and_throw_with_the_if_before_it():
    source = b'''
  TVM_FFI_ICHECK(q.ndim() == 3) << "query must be a 3D tensor, got " << q.ndim();
  if (sm < 90) {
    throw std::runtime_error("Unsupported SM version " + std::to_string(sm) + " for this kernel");
  }'''
    icheck, throw = cpp_sites("x.cu", source)
    assert (icheck.template, icheck.guard) == ("query must be a 3D tensor, got {*}", "q.ndim() == 3")
    assert (throw.kind, throw.template, throw.guard) == ("runtime_error", "Unsupported SM version {*} for this kernel",
                                                         "sm < 90")


def test_a_template_with_too_little_literal_text_is_not_indexed():
    source = b'def f(x):\n    if x:\n        raise ValueError(f"bad {x}")\n'
    (site,) = python_sites("m.py", source)
    assert literal_chars(site.template) < MIN_LITERAL
    held: dict = {}
    add_release(held, "1.0", [site])
    assert records(held, ["1.0"]) == []


def test_index_word_never_touches_a_placeholder():
    assert index_word("{*}Unsupported head size{*}") == "head"
    assert index_word("Unsupported head size: {*}") == "Unsupported"


def test_ranges_round_trip():
    assert ranges([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert parse_ranges("0-2,5,7-8") == [0, 1, 2, 5, 7, 8]


def _table(order: list[str], per_release: dict[str, list]) -> Index:
    held: dict = {}
    for release, sites in per_release.items():
        add_release(held, release, sites)
    return Index("vllm", {"releases": order, "sites": records(held, order)})


GUARDED = (b'def f(cap):\n    if {guard}:\n'
           b'        raise ValueError(f"FlashAttention is not supported on capability {cap}")\n')


def _sites(guard: str) -> list:
    return python_sites("vllm/attn.py", GUARDED.replace(b"{guard}", guard.encode()))


LINE = [(3, "ValueError: FlashAttention is not supported on capability 120")]


def test_a_changed_guard_names_the_release_it_changes_in():
    index = _table(["1.0", "1.1", "1.2"], {"1.0": _sites("cap >= 100"), "1.1": _sites("cap >= 100"),
                                           "1.2": _sites("cap in (100, 103)")})
    (found,) = match_lines(LINE, {"vllm": "1.0"}, "vllm", [index])
    assert found.site.record["guard"] == "cap >= 100"
    assert found.transition == "from vllm 1.2 the guard changes to `cap in (100, 103)`"
    assert found.to_dict()["releases"] == "1.0-1.1"


def test_a_message_that_goes_names_the_release_and_the_newest_is_unchanged():
    index = _table(["1.0", "1.1", "1.2"], {"1.0": _sites("cap >= 100"), "1.1": _sites("cap >= 100"), "1.2": []})
    assert match_lines(LINE, {"vllm": "1.1"}, "vllm", [index])[0].transition == "from vllm 1.2 the message is gone"
    index = _table(["1.0", "1.1"], {"1.0": _sites("cap >= 100"), "1.1": _sites("cap >= 100")})
    assert match_lines(LINE, {"vllm": "1.0"}, "vllm", [index])[0].transition == \
        "unchanged through vllm 1.1, the newest release read"


def test_a_release_before_the_site_exists_does_not_match_and_one_not_read_is_said_so():
    index = _table(["1.0", "1.1"], {"1.0": [], "1.1": _sites("cap >= 100")})
    assert match_lines(LINE, {"vllm": "1.0"}, "vllm", [index]) == []
    assert match_lines(LINE, {"vllm": "1.1"}, "vllm", [index])[0].transition == \
        "unchanged through vllm 1.1, the newest release read"
    (found,) = match_lines(LINE, {"vllm": "0.9"}, "vllm", [index])
    assert found.transition == "the log's vllm 0.9 is not among the releases read (1.0-1.1); the site exists in 1.1"


def test_a_line_that_lacks_the_literal_text_does_not_match():
    index = _table(["1.0"], {"1.0": _sites("cap >= 100")})
    assert match_lines([(1, "ValueError: FlashAttention is fine on capability 120")], {}, None, [index]) == []


def test_candidate_lines_skip_explained_lines_frames_and_short_ones_and_repeat_none():
    a, b = "ValueError: some message long enough", "RuntimeError: another long message"
    c = "ERROR 01-01 00:00:00 [x.py:1] and a logged one, long enough"
    frame = '(EngineCore_DP0 pid=1) ERROR 02-13 17:19:01 [core.py:900]   File "/vllm/v1/engine/core.py", line 89'
    assert candidate_lines([(1, a), (5, b)], [(5, b), (7, c), (8, frame), (9, "ERROR short")], {1}) == [(5, b), (7, c)]
    assert candidate_lines([], [], set(), (3, "INFO 01-01 00:00:00 [cuda.py] Using FlashAttention version 2")) == []
    assert candidate_lines([], [], set(), (3, "kernel does not support the current device")) == [
        (3, "kernel does not support the current device")]


@pytest.mark.parametrize("log", [b"\xff\xfe" * 50 + b"\nValueError: " + b"x" * 200000 + b"\n",
                                 b"WARNING 01-01 00:00:00 [a.py:1] " + b"{*}" * 30000 + b"\n" * 3])
def test_malformed_or_huge_lines_give_no_traceback(log):
    diagnosis = diagnose_text(log)
    assert isinstance(diagnosis.raise_sites, list)


def test_every_table_is_loadable_and_names_its_releases():
    for engine in engines():
        table = load_table(engine)
        if not table:
            continue
        assert table["releases"] and set(table["provenance"]) == set(table["releases"])
        assert all(len(p["sha256"]) == 64 for p in table["provenance"].values())
        assert all(r["word"] and literal_chars(r["template"]) >= MIN_LITERAL for r in table["sites"])


def test_a_message_no_engine_raises_gets_no_site():
    diagnosis = diagnose_text("ValueError: nothing the engines raise with this exact long wording at all\n")
    assert diagnosis.to_dict()["raise_sites"] == []


def test_the_tables_are_wheel_derived_tables_the_refresh_extends(tmp_path):
    from doctor.data_tables import newest, tables
    from tools.refresh import Step

    by_name = {t.name: t for t in tables()}
    for engine, row in engines().items():
        table = by_name[f"raise sites: {engine}"]
        assert table.package == row["project"] and newest(table) == row["releases"][-1]
        command = Step(table, row["releases"][-1], ("99.0",)).command(tmp_path)
        assert command[1:] == ["tools/raise_sites.py", "--only", engine, "--versions", "99.0"]


def test_the_index_matches_each_table():
    for engine, row in engines().items():
        table = load_table(engine)
        assert row["releases"] == table["releases"] and row["sites"] == len(table["sites"])


def test_check_never_loads_the_tables():
    import subprocess
    import sys
    from pathlib import Path

    code = ("import contextlib, io, sys\n"
            "from doctor.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(['check', 'Qwen/Qwen3-8B', '--hardware', 'rtx-5090', '--engine', 'vllm==0.11.0', '--offline'])\n"
            "import doctor.raise_site_table as t\n"
            "print('doctor.diagnose.raise_sites' in sys.modules, t.load_table.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["False", "0"]


# tests/diagnose/logs/sglang-35080-hybrid-gdn-flashinfer-b300.log (sgl-project/sglang#35080)
HYBRID_GDN = ("AssertionError: Only {'trtllm_mha', 'triton', 'fa4'} backends are supported on Blackwell GPUs for "
              "hybrid GDN models. Got attention_backend=flashinfer.")


def test_a_public_log_line_names_its_site_at_its_release_and_the_release_it_changes_in():
    (found,) = match_lines([(1, HYBRID_GDN)], {"sglang": "0.5.17"}, "sglang")
    record = found.site.record
    assert (record["file"], record["function"], record["kind"]) == (
        "sglang/srt/layers/attention/attention_registry.py", "attn_backend_wrapper", "AssertionError")
    assert record["guard"] == "attn_be in allowed" and found.to_dict()["releases"] == "0.5.16-0.5.17"
    assert found.transition.startswith("from sglang 0.5.18 the message is gone; its function still raises `Only {*} "
                                       "backends are supported on Blackwell GPUs for hybrid GDN models. Got "
                                       "prefill={*}, decode={*}.` under `prefill_be in allowed and decode_be in "
                                       "allowed`")


def test_a_reworded_message_names_the_new_wording_not_a_sibling_check_that_stays():
    line = ("ValueError: TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different "
            "backend.")
    (found,) = match_lines([(1, line)], {"sglang": "0.5.9"}, "sglang")
    assert found.transition.startswith("from sglang 0.5.10 its function raises `TRTLLM MHA backend for prefill is "
                                       "only supported on Blackwell GPUs (SM100).")
    assert "TRTLLM MLA backend" not in found.transition and "(SM120) GPUs" in found.transition


def test_the_release_before_the_site_exists_and_the_one_after_it_went_do_not_match():
    assert match_lines([(1, HYBRID_GDN)], {"sglang": "0.5.15"}, "sglang") == []
    assert match_lines([(1, HYBRID_GDN)], {"sglang": "0.5.18"}, "sglang") == []


# vllm-project/vllm#41403 (FlashInfer 0.6.x under a cu128 torch on an RTX 5060 Ti): a caught exception logged
# with its text; the carried message's own site names the guard, and 0.7.1 relaxes SM120 to CUDA 12.8
CARRIED = "Failed to get device capability: SM 12.x requires CUDA >= 12.9"


def test_a_carried_message_is_matched_to_its_own_site():
    (found,) = match_lines([(1, CARRIED)], {"flashinfer": "0.6.8"}, None)
    assert found.site.record["file"] == "flashinfer/compilation_context.py"
    assert found.site.record["kind"] == "logger.warning"
    inner = found.carried
    assert inner is not None and inner.site.record["function"] == "CompilationContext._normalize_cuda_arch"
    assert inner.site.record["guard"] == "major == 12 and not (is_cuda_version_at_least('12.9'))"
    assert "from flashinfer 0.7.1 its function raises `SM 120 requires CUDA >= 12.8` under " \
           "`major == 12 and minor == 0`" in inner.transition


def test_the_carried_site_is_not_named_at_a_release_before_it_exists():
    (found,) = match_lines([(1, CARRIED)], {"flashinfer": "0.6.6"}, None)
    assert found.carried is None


def test_diagnose_reports_the_site_in_console_json_and_markdown():
    from doctor.formats.diagnosis import render_diagnosis_console, render_diagnosis_markdown

    diagnosis = diagnose_text(HYBRID_GDN + "\n")
    (site,) = diagnosis.to_dict()["raise_sites"]
    assert site["rule"] == "SRC001" and site["severity"] == "warning" and site["engine"] == "sglang"
    assert "SOURCE SRC001 [warning]" in render_diagnosis_console(diagnosis)
    assert "attention_registry.py" in render_diagnosis_markdown(diagnosis)
    assert not diagnosis.fails("error")


def test_a_line_a_signature_explains_gets_no_site():
    diagnosis = diagnose_text("ValueError: TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please "
                              "use a different backend.\n")
    assert diagnosis.explanations and diagnosis.raise_sites == []


@pytest.mark.slow
@pytest.mark.wheel
def test_the_sglang_table_holds_exactly_the_newest_wheels_sites():
    """Re-read the newest SGLang wheel the table holds from PyPI (sha256 checked against the provenance) and
    compare its indexed sites with the table's records for that release."""
    from tools.raise_sites import read_release, releases

    table = load_table("sglang")
    newest = table["releases"][-1]
    sites, provenance = read_release(releases("sglang")[newest])
    assert provenance["sha256"] == table["provenance"][newest]["sha256"]
    held: dict = {}
    add_release(held, newest, sites)
    read = {(r["file"], r["template"], r.get("guard"), r.get("function"), r["kind"]) for r in records(held, [newest])}
    position = len(table["releases"]) - 1
    stored = {(r["file"], r["template"], r.get("guard"), r.get("function"), r["kind"]) for r in table["sites"]
              if position in parse_ranges(r["releases"])}
    assert read == stored and len(read) > 5000


def test_the_json_with_a_carried_site_validates_against_the_schema():
    from tests.schemas import validator

    document = diagnose_on(HYBRID_GDN + "\n", "rtx-5090").to_dict()
    assert document["raise_sites"][0]["engine"] == "sglang"
    validator("diagnose").validate(document)
    (carried,) = match_lines([(1, CARRIED)], {"flashinfer": "0.6.8"}, None)
    document["raise_sites"] = [carried.to_dict()]  # FI002's signature explains this line in diagnose itself
    assert document["raise_sites"][0]["carries"]["rule"] == "SRC001"
    validator("diagnose").validate(document)


def test_a_line_reads_only_the_shards_of_its_words():
    from doctor.raise_site_table import SHARDS, open_table

    reader = open_table("sglang")
    index = Index("sglang", reader.meta, reader)
    (found,) = match_lines([(1, HYBRID_GDN)], {}, "sglang", [index])
    assert found.site.record["function"] == "attn_backend_wrapper"
    assert 0 < len(index._loaded) <= len(set(re.findall(r"\w{4,}", HYBRID_GDN))) < SHARDS
