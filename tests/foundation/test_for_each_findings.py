"""A `for_each` rule gives one finding per distinct thing it says: items that differ only in what the finding
does not show (one MoE kernel checked at several batch sizes) make one finding, not one per item."""

from __future__ import annotations

from pathlib import Path

from doctor.pipeline.rules import evaluate, load_rules

RULE = '''
[[rules]]
id = "TST001"
area = "kernels"
title = "kernel {item.kernel} reads {item.file}"
severity = "info"
summary = "s"
why = "w"
message = "{item.kernel} at {item.bytes} bytes"
for_each = "kernels"
when = [{ fact = "item.fits", eq = true }]
evidence = ["item.file"]
references = ["https://example.org/a"]
'''


def rules(tmp_path: Path):
    (tmp_path / "t.toml").write_text(RULE, encoding="utf-8")
    return load_rules(tmp_path)


def test_items_with_the_same_evidence_make_one_finding(tmp_path):
    kernels = [{"kernel": "fused_moe", "file": "E=64.json", "bytes": b, "fits": True} for b in (100, 200, 300)]
    assert len(evaluate(rules(tmp_path), {"kernels": kernels})) == 1


def test_items_with_other_evidence_make_their_own(tmp_path):
    kernels = [{"kernel": "fused_moe", "file": f"E={e}.json", "bytes": 1, "fits": True} for e in (64, 128)]
    assert len(evaluate(rules(tmp_path), {"kernels": kernels})) == 2
