"""A diagnosis must not hand one engine's fix to another engine's log (task scope13; bench/cross_engine_fixes.py
measures it over the corpus and the ledger). Here: the signatures' own cited reports, and the classifier itself."""

from __future__ import annotations

from bench.cross_engine_fixes import Row, corpus_engines, fix_engines, ledger_engines, static_rows
from doctor.findings import Fix


def test_no_signature_cites_a_report_of_an_engine_its_fixes_do_not_name():
    """A signature whose report ran engine A while its rule's fixes name only engine B is scoped to B's logs
    (`context`): the report itself would otherwise get B's fix."""
    assert static_rows() == []


def test_fix_engines_reads_engine_package_and_summary():
    fixes = [Fix("upgrade", "manual", "Upgrade SGLang to 0.5.10", {"package": "sglang>=0.5.10"}),
             Fix("env", "safe", "Set it", {"env": {"X": "1"}, "engine": "vllm"}),
             Fix("upgrade", "manual", "Compile with Triton 3.6.0", {"package": "triton>=3.6.0"})]
    assert fix_engines(fixes) == {"sglang", "vllm"}
    assert fix_engines(fixes[2:]) == frozenset()


def test_row_kinds():
    vllm_log = corpus_engines("vllm-27542.log", "https://github.com/vllm-project/vllm/issues/27542")
    sglang, vllm, both = frozenset({"sglang"}), frozenset({"vllm"}), frozenset({"sglang", "vllm"})
    assert Row("corpus", "x", vllm_log, "MOE002", (sglang,), "").kind == "cross"
    assert Row("corpus", "x", vllm_log, "VLLM580", (vllm, frozenset()), "").kind == "ok"
    assert Row("corpus", "x", vllm_log, "KRN140", (vllm, sglang), "").kind == "cross"  # one fix is SGLang's only
    assert Row("corpus", "x", vllm_log, "GATE006", (both,), "").kind == "ok"  # one fix naming both, its own among them
    assert Row("ledger", "x", ledger_engines(["triton"]), "MOE002", (sglang,), "").kind == "neutral"
    assert Row("ledger", "x", ledger_engines(["triton"]), "GATE006", (vllm, sglang), "").kind == "ok"  # alternatives
    assert Row("ledger", "x", ledger_engines(["triton"]), "SGL107", (sglang,), "", frozenset({"sglang"})).kind == "ok"
    assert Row("ledger", "x", ledger_engines("triton"), "TRI070", (frozenset(),), "").kind == "ok"
    assert Row("ledger", "x", ledger_engines(["ollama"]), "LCPP001", (frozenset({"llama.cpp"}),), "").kind == "ok"
