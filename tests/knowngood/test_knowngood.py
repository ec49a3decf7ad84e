"""The known-good corpus: public reports of deployments that served requests on SM120/SM121, each replayed
through `check`. None may get a finding of severity error: an error is a promise that the deployment fails.

An entry marked `pending` names a doctor mistake another branch is fixing: it is expected to fail (strict), so
the marker must go once the fix lands. Nothing in doctor/ knows these entries (tests/knowngood/corpus.toml)."""

from __future__ import annotations

import datetime
import re

import pytest

from tests.fix_consistency import report_conflicts
from tests.knowngood.corpus import engine_of, load_entries, run_entry

ENTRIES = load_entries()
HTTPS = re.compile(r"^https://[\w.-]+\.[a-z]{2,}/\S*$")
ENGINES = {"vllm", "sglang", "tensorrt-llm", "llama.cpp", "ollama"}
MIN_ENTRIES = 130  # issue 24 asked for 60+; grown to 130 (knowngood2)


def _param(entry):
    marks = [pytest.mark.xfail(strict=True, reason=entry.pending)] if entry.pending else []
    return pytest.param(entry, id=entry.id, marks=marks)


@pytest.mark.parametrize("entry", [_param(e) for e in ENTRIES])
def test_a_deployment_that_served_gets_no_error(entry):
    report = run_entry(entry)
    errors = [f for f in report.findings if f.severity == "error"]
    detail = "; ".join(f"{f.id}: {f.message}" for f in errors)
    assert not errors, f"{entry.url}: error findings {sorted({f.id for f in errors})} ({detail})"
    contradictions = report_conflicts(report)  # no two findings' fixes contradict (tests/fix_consistency.py)
    assert not contradictions, f"{entry.url}: {[str(c) for c in contradictions]}"


def test_the_corpus_is_large_public_and_well_formed():
    assert len(ENTRIES) >= MIN_ENTRIES
    assert len({e.id for e in ENTRIES}) == len(ENTRIES), "ids are unique"
    for entry in ENTRIES:
        assert HTTPS.match(entry.url), (entry.id, entry.url)
        assert entry.title.strip() and len(entry.quote.strip()) >= 20, entry.id
        datetime.date.fromisoformat(entry.date)
        engine_of(entry)


def test_every_engine_is_covered():
    assert {engine_of(e) for e in ENTRIES} == ENGINES


def test_pending_names_a_rule_or_bug_of_issue_24():
    for entry in ENTRIES:
        if entry.pending:
            assert "issue 24" in entry.pending, entry.id
