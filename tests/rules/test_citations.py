"""Every rule cites public sources (an issue, PR, doc or source file at a tag) and nothing in the knowledge
base or the package points at the team's private research notes."""

from __future__ import annotations

import re
from pathlib import Path

from doctor.pipeline.rules import load_rules

REPO = Path(__file__).resolve().parents[2]
# the notes' paths, bare (`research/models.md`, `sglang.md §2`) or under shared/
PRIVATE = re.compile(r"(?<![\w/])shared/(research|seeds|models)|\.\./shared|(?<![\w/.])(research|seeds)/[\w-]+\.md"
                     r"|(?<![\w/.-])(sglang|smem|engines|models|anchors|peers|DESIGN)\.md\b")


def test_every_rule_cites_a_public_url_and_no_reference_repeats():
    for rule in load_rules():
        assert any(ref.startswith("https://") for ref in rule.references), rule.id
        assert len(set(rule.references)) == len(rule.references), rule.id


def test_no_rule_file_or_package_file_cites_private_notes():
    files = [*(REPO / "rules").glob("*.toml"), *(REPO / "doctor").rglob("*.py"),
             *(REPO / "doctor").rglob("*.json"), *(REPO / "doctor").rglob("*.md"), *(REPO / "doctor").rglob("*.toml")]
    offenders = [str(p.relative_to(REPO)) for p in files if PRIVATE.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
