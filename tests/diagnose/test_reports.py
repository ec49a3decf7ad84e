"""RPT001 (issue 25): `diagnose` names the public reports of the triage ledger whose quoted lines the log holds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from doctor.diagnose.reports import MAX_SHARED, ReportIndex, load_index, match_log, normalize, words
from tests.diagnose.corpus import diagnose_on

ROOT = Path(__file__).resolve().parents[2]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def record(url: str, quoted: list[str], engine: str = "vllm", **extra: object) -> dict:
    return {"url": url, "date": "2026-05-01", "engine": engine, "versions": "vLLM 0.20.0", "gpu": "RTX 5090",
            "class": "backend-unsupported", "status": "not-actionable", "reason": "a test", "fix": "upgrade",
            "quoted": quoted, **extra}


PAGE = ("NotImplementedError: The page size of the layer is not divisible by the maximum page size. Cannot unify "
        "by adjusting block_size.")
FILLER = [record(f"https://example.org/filler/{i}", [f"ValueError: filler number {w} of the corpus went away"])
          for i, w in enumerate(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])]
INDEX = ReportIndex([record("https://example.org/page", [PAGE], cause="mixed page sizes"), *FILLER])


def test_a_line_is_matched_with_its_numbers_paths_and_prefix_changed():
    line = ("(EngineCore_DP0 pid=77) ERROR 05-01 10:00:00 [core.py:9] NotImplementedError: The page size of the "
            "layer is not divisible by the maximum page size. Cannot unify by adjusting block_size.")
    (found,) = match_log([(12, line)], "vllm", set(), INDEX)
    assert found.report.url == "https://example.org/page" and found.line == 12 and found.coverage == pytest.approx(1.0)
    assert normalize("/home/u/.venv/lib/python3.12/site-packages/vllm/v1/core.py:1234 0xdeadbeef") == "core.py:"


def test_a_line_missing_the_distinctive_words_is_not_matched():
    assert match_log([(1, "NotImplementedError: The page size of the layer is fine")], "vllm", set(), INDEX) == []


GENERIC = "RuntimeError: CUDA error: an illegal memory access was encountered in the fused kernel launch"
SPECIFIC = "Assertion failed: tile_k must divide the SM120 block-scaled operand layout in fused_moe_sm120"


def test_a_generic_line_names_a_report_only_beside_a_specific_line_of_it():
    reports = [record(f"https://example.org/ima/{i}", [GENERIC, f"{SPECIFIC} variant {w}"], engine="sglang")
               for i, w in enumerate(["one", "two", "three", "four", "five"])]
    index = ReportIndex([*reports, *FILLER], [[MAX_SHARED + 1, 0]] * len(reports) + [[0]] * len(FILLER))
    assert match_log([(1, GENERIC)], "sglang", set(), index) == []
    (found,) = match_log([(1, GENERIC), (2, f"{SPECIFIC} variant three")], "sglang", set(), index)
    assert found.report.url.endswith("/2")


def test_a_report_of_another_serving_engine_is_not_named_on_a_line_others_share():
    shared = ReportIndex([record("https://example.org/s", [PAGE], engine="sglang"), *FILLER], [[1]] + [[0]] * 8)
    assert match_log([(1, PAGE)], "vllm", set(), shared) == []
    assert match_log([(1, PAGE)], "sglang", set(), shared)


def test_a_report_whose_rule_explained_the_log_is_left_out():
    index = ReportIndex([record("https://example.org/page", [PAGE], related=["ATTN001"]), *FILLER])
    assert match_log([(1, PAGE)], "vllm", {"ATTN001"}, index) == []
    assert match_log([(1, PAGE)], "vllm", {"VLLM001"}, index)


def test_leave_one_out_skips_the_report_itself():
    assert match_log([(1, PAGE)], "vllm", set(), INDEX, skip=0) == []


def test_diagnose_names_a_ledger_report_from_its_quoted_line_in_json_console_and_markdown():
    from doctor.formats.diagnosis import render_diagnosis_console, render_diagnosis_markdown
    from tests.schemas import validator

    index = load_index()
    position, quoted = next((i, q.text) for i, q in enumerate(index.lines)
                            if q.shared == 0 and index.reports[q.report].record["status"] != "encoded"
                            and not index.reports[q.report].named and index.matches(q.text))
    report = index.reports[index.lines[position].report]
    diagnosis = diagnose_on(f"some preamble\n{quoted}\nINFO 05-01 10:00:02 [api_server.py:1] shutting down\n",
                            "rtx-5090")
    document = diagnosis.to_dict()
    assert report.url in [m["url"] for m in document["public_reports"]]
    validator("diagnose").validate(document)
    assert "REPORTED RPT001 [warning]" in render_diagnosis_console(diagnosis)
    assert report.url in render_diagnosis_markdown(diagnosis)
    assert not diagnosis.fails("warning") or diagnosis.explanations


def test_the_index_is_what_the_ledger_gives():
    assert _tool("report_index").main(["--check"]) == 0


def test_the_ledger_refuses_a_quoted_line_that_is_not_one_log_line():
    check_ledger = _tool("check_ledger")
    assert check_ledger.check_quoted("x", ["first line of it\nsecond line of it"])
    assert check_ledger.check_quoted("x", ["short"])
    assert check_ledger.check_quoted("x", "not a list")
    assert not check_ledger.check_quoted("x", ["RuntimeError: a twenty-character line"])


def test_the_scan_keeps_a_quoted_line_that_does_not_look_like_an_error():
    from doctor.diagnose.logfacts import LogFacts
    from doctor.diagnose.reports import report_rules

    quiet = PAGE.split(": ", 1)[1]
    records = [record("https://example.org/page", [PAGE]), *FILLER]
    rare = {word: 6.0 for r in records for text in r["quoted"] for word in words(text)}
    (rule,) = report_rules(ReportIndex(records, weight=rare))
    facts = LogFacts()
    match = rule.regex.search(quiet)
    assert match is not None and rule.regex.search("INFO 05-01 10:00:02 [api_server.py:1] shutting down") is None
    rule.handler(match, 7, facts)
    assert facts.quoted == [(7, quiet)]


def test_a_log_of_another_gpu_gets_no_sm12x_report():
    index = load_index()
    quoted = next(q.text for q in index.lines if q.shared == 0 and index.matches(q.text)
                  and not index.reports[q.report].named)
    assert diagnose_on(f"{quoted}\n", "rtx-5090").public_reports
    assert diagnose_on(f"{quoted}\n", "h100-sxm-x8").public_reports == []
