"""Regenerate docs/rules/<ID>.md (and docs/rules/README.md) from rules/*.toml, and the per-area rule tables of
README.md and docs/rules.md (tools/rule_areas.py).

    python tools/gen_rule_docs.py          # write the pages and the tables
    python tools/gen_rule_docs.py --check  # exit 1 if a page or a table is stale (tests/ci/test_rule_docs.py too)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from doctor.pipeline.rules import load_rules  # noqa: E402
from doctor.rule_docs import write_rule_docs  # noqa: E402
from tools.rule_areas import stale_tables  # noqa: E402
from tools.rule_audit import audit_page, load_notes, negative_cases  # noqa: E402


def main(argv: list[str]) -> int:
    rules = load_rules(REPO / "rules")
    target = REPO / "docs" / "rules"
    extra = {"AUDIT.md": audit_page(rules, load_notes(), negative_cases())}
    if "--check" in argv:
        with tempfile.TemporaryDirectory() as scratch:
            write_rule_docs(Path(scratch), rules, extra)
            fresh = {p.name: p.read_text(encoding="utf-8") for p in Path(scratch).glob("*.md")}
        current = {p.name: p.read_text(encoding="utf-8") for p in target.glob("*.md")}
        stale = sorted(name for name in fresh.keys() | current.keys() if fresh.get(name) != current.get(name))
        stale = [f"docs/rules/{name}" for name in stale] + stale_tables(rules, write=False)
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    written = write_rule_docs(target, rules, extra)
    tables = stale_tables(rules, write=True)
    print(f"{len(written)} page(s) written under {target.relative_to(REPO)}; area tables rewritten: "
          f"{', '.join(tables) or 'none (current)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
