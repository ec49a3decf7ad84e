"""The triage ledger (ledger/*.toml) passes its checker, and the checker rejects each kind of bad entry."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_ledger", ROOT / "tools" / "check_ledger.py")
check_ledger = importlib.util.module_from_spec(_spec)
sys.modules["check_ledger"] = check_ledger
_spec.loader.exec_module(check_ledger)

RULES = {"VLLM001", "TORCH001"}
CASES = {"vllm-1-case": "https://github.com/vllm-project/vllm/issues/1"}
GOOD = {
    "url": "https://github.com/vllm-project/vllm/issues/1", "date": "2025-05-31", "engine": "vllm",
    "versions": "vllm 0.9.0", "gpu": "RTX 5090", "class": "arch-missing",
    "error": "no kernel image is available for execution on the device", "fix": "vllm>=0.9.2",
    "status": "encoded", "rules": ["VLLM001"], "case": "vllm-1-case",
}


def problems(*entries: dict) -> list[str]:
    found = check_ledger.check_ledger([(f"t#{i}", e) for i, e in enumerate(entries)], RULES, CASES)
    return [str(p) for p in found]


def test_the_repository_ledger_is_clean_and_large():
    entries = check_ledger.load_entries()
    found = check_ledger.check_ledger(entries, check_ledger.known_rule_ids(), check_ledger.known_cases())
    assert not found, "\n".join(map(str, found))
    assert len(entries) >= 200


def test_a_good_entry_passes():
    assert problems(GOOD) == []


@pytest.mark.parametrize("change, message", [
    ({"fix": ""}, "missing or empty field 'fix'"),
    ({"url": "http://github.com/a/b/issues/1"}, "URL is not a public report address"),
    ({"url": "https://github.com/a/b/blob/main/x.py"}, "URL is not a public report address"),
    ({"date": "2025-13-01"}, "does not exist"),
    ({"date": "31.05.2025"}, "is not YYYY-MM-DD"),
    ({"date": "2019-01-01"}, "outside the SM12x era"),
    ({"class": "cosmic-rays"}, "not in the vocabulary"),
    ({"engine": "vllmx"}, "unknown engine"),
    ({"status": "fixed"}, "status 'fixed' is not one of"),
    ({"rules": ["VLLM999"]}, "rule VLLM999 is not in rules"),
    ({"case": "no-such-case"}, "case 'no-such-case' is not in tests/cases/*.toml"),
    ({"rules": []}, "encoded without rule IDs"),
])
def test_a_bad_field_is_named(change, message):
    found = problems({**GOOD, **change})
    assert any(message in p for p in found), found


def test_a_case_about_another_report_is_refused():
    other = {**GOOD, "url": "https://github.com/vllm-project/vllm/issues/2"}
    assert any("is about https://github.com/vllm-project/vllm/issues/1" in p for p in problems(other))


def test_not_encoded_needs_a_reason_and_no_case():
    entry = {**GOOD, "status": "not-encoded", "rules": [], "case": "vllm-1-case"}
    found = problems(entry)
    assert any("needs a reason" in p for p in found)
    assert any("a case is named" in p for p in found)


def test_duplicate_urls_are_found_ignoring_case_and_fragment():
    twin = {**GOOD, "url": "https://github.com/vLLM-project/vllm/issues/1#issuecomment-5"}
    assert any("duplicate URL" in p for p in problems(GOOD, twin))


def test_summary_counts_per_class_and_status(capsys):
    assert check_ledger.main(["--summary"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("reports: ")
    assert "per class:" in out and "per status:" in out and "encoded" in out
