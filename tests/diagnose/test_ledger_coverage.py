"""The triage ledger's error texts, diagnosed as a user would (the text, --hardware for the GPU the report names,
--engine for each version it states): no entry does worse than bench/results/diagnose-ledger.toml records
(`python bench/diagnose_ledger.py --record` after an improvement), and the recorded counts are what they say."""

from __future__ import annotations

import pytest

from bench.diagnose_ledger import OUTCOMES, RESULTS, diagnose_entry, ledger_entries

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

RECORDED = {e["url"]: e for e in tomllib.loads(RESULTS.read_text(encoding="utf-8"))["entry"]}
ENTRIES = ledger_entries()


def test_every_entry_is_recorded():
    assert {e.url for e in ENTRIES} == set(RECORDED)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.url.removeprefix("https://github.com/") for e in ENTRIES])
def test_entry_does_no_worse_than_recorded(entry):
    outcome, named = diagnose_entry(entry)
    recorded = RECORDED[entry.url]["outcome"]
    assert OUTCOMES.index(outcome) <= OUTCOMES.index(recorded), (entry.url, recorded, outcome, named)


def test_log_excerpts_mostly_named_first():
    """Of the entries whose text is a log excerpt (not a title), the share whose rule ranks first: the floor
    this session measured (bench/RESULTS-diagnose.md), so a regression fails here too."""
    logs = [e for e in RECORDED.values() if not e["title"]]
    first = sum(1 for e in logs if e["outcome"] == "first")
    assert first >= 36 and len(logs) >= 67
