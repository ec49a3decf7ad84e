"""docs/rules/<ID>.md are generated from the registry, complete, current, and linked from `explain`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from doctor.pipeline.rules import load_rules
from doctor.rule_docs import docs_dir, rule_doc_url, rule_page, write_rule_docs
from tests.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
SECTIONS = ("## What it detects", "## Why", "## Fix", "## Safety", "## Example", "## Sources")


def _audit() -> dict[str, str]:
    from tools.rule_audit import audit_page, load_notes, negative_cases

    return {"AUDIT.md": audit_page(load_rules(), load_notes(), negative_cases())}


def test_committed_pages_are_exactly_what_the_generator_writes(tmp_path):
    write_rule_docs(tmp_path, load_rules(), _audit())
    fresh = {p.name: p.read_text() for p in tmp_path.glob("*.md")}
    committed = {p.name: p.read_text() for p in (REPO / "docs" / "rules").glob("*.md")}
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not stale, f"run `python tools/gen_rule_docs.py`: stale {stale[:5]}"
    assert docs_dir() == REPO / "docs" / "rules"


def test_every_page_has_every_section_and_the_rule_itself():
    for rule in load_rules():
        page = rule_page(rule)
        assert all(section in page for section in SECTIONS), rule.id
        assert page.startswith(f"# {rule.id}: ") and rule.summary in page
        assert all(ref in page for ref in rule.references)


def test_writing_removes_pages_of_rules_that_are_gone(tmp_path):
    (tmp_path / "OLD001.md").write_text("gone")
    write_rule_docs(tmp_path, load_rules()[:2])
    assert sorted(p.name for p in tmp_path.glob("*.md")) == sorted([*(f"{r.id}.md" for r in load_rules()[:2]),
                                                                    "README.md"])


def test_doc_urls():
    assert rule_doc_url("SGL101", "https://h/docs/rules/") == "https://h/docs/rules/SGL101.md"
    local = rule_doc_url("SGL101")
    assert local.startswith("file://") and Path(local.removeprefix("file://")).is_file()


def test_explain_links_the_page():
    result = subprocess.run([sys.executable, "-m", "doctor", "explain", "SGL102"], capture_output=True, text=True,
                            env=cli_env(COLUMNS="400"), timeout=60)
    assert result.returncode == 0 and "docs/rules/SGL102.md" in result.stdout


def test_the_generator_script_checks_staleness():
    result = subprocess.run([sys.executable, str(REPO / "tools" / "gen_rule_docs.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_every_page_states_the_releases_its_rule_is_about():
    from doctor.pipeline.rules import load_rules
    from doctor.rule_docs import rule_page

    rules = {r.id: r for r in load_rules()}
    assert all("\nVersions: " in rule_page(r) for r in rules.values())
    assert "Versions: `lib.vllm.version <0.9.2`." in rule_page(rules["VLLM001"])
    assert "the fix differs per release: vllm `<0.11`" in rule_page(rules["VLLM006"])


def test_every_error_rule_is_audited_and_every_note_names_a_rule():
    """docs/rules/AUDIT.md covers each error rule with its source and verdict (issue 24, point 2)."""
    from tools.rule_audit import load_notes

    notes = load_notes()
    rules = {r.id: r for r in load_rules()}
    errors = {rule_id for rule_id, rule in rules.items() if rule.severity == "error"}
    assert errors <= set(notes), sorted(errors - set(notes))
    assert set(notes) <= set(rules), sorted(set(notes) - set(rules))
    for rule_id, note in notes.items():
        assert (note["verdict"] == "demoted") is (rules[rule_id].severity != "error"), rule_id
    page = (REPO / "docs" / "rules" / "AUDIT.md").read_text()
    assert all(f"[{rule_id}]({rule_id}.md)" in page for rule_id in notes)


def test_area_tables_are_generated_from_the_registry_and_drift_is_caught(tmp_path, monkeypatch):
    """README.md's and docs/rules.md's per-area tables are the registry's; one rule fewer makes both stale."""
    import tools.rule_areas as areas

    rules = load_rules()
    assert areas.stale_tables(rules, write=False) == []
    table = areas.area_table(rules, areas.load_descriptions())
    assert f"| **all** | **{len(rules)}** |" in table
    vllm = sum(r.area == "vllm" for r in rules)
    assert f"| vllm | {vllm} |" in table
    copies = []
    for path in areas.TABLE_FILES:
        copy = tmp_path / path.name
        copy.write_text(path.read_text())
        copies.append(copy)
    monkeypatch.setattr(areas, "TABLE_FILES", tuple(copies))
    monkeypatch.setattr(areas, "REPO", tmp_path)
    assert areas.stale_tables(rules[1:], write=True) == [c.name for c in copies]
    assert areas.stale_tables(rules[1:], write=False) == []


def test_an_area_without_a_description_fails_the_generator():
    import pytest

    import tools.rule_areas as areas

    rules = load_rules()
    descriptions = areas.load_descriptions()
    descriptions.pop(rules[0].area)
    with pytest.raises(KeyError, match=rules[0].area):
        areas.area_table(rules, descriptions)
    with pytest.raises(KeyError, match="description of no area gone"):
        areas.area_table(rules, {**areas.load_descriptions(), "gone": "an area no rule has"})
    with pytest.raises(ValueError, match="no <!-- rule-areas:begin"):
        areas.with_table("no markers", "table", "X.md")
