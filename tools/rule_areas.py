"""The per-area rule tables of README.md and docs/rules.md, generated from the rule registry.

Each table sits between `<!-- rule-areas:begin -->` and `<!-- rule-areas:end -->`; the counts and ID prefixes of each
table comes from `rules/*.toml`, the one-line description of each area from docs/rules/areas.toml.
tools/gen_rule_docs.py writes the tables and `--check` fails when one has drifted."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from doctor.pipeline.rules import Rule

REPO = Path(__file__).resolve().parent.parent
AREAS = REPO / "docs" / "rules" / "areas.toml"
TABLE_FILES = (REPO / "README.md", REPO / "docs" / "rules.md")
BEGIN, END = "<!-- rule-areas:begin -->", "<!-- rule-areas:end -->"
SEVERITIES = ("error", "warning", "info")


def load_descriptions(path: Path = AREAS) -> dict[str, str]:
    return dict(tomllib.loads(path.read_text(encoding="utf-8"))["areas"])


def prefix(rule_id: str) -> str:
    """`SGL101` -> `SGL`, `P2P001` -> `P2P`: the ID without its trailing number."""
    return re.sub(r"\d+$", "", rule_id)


def _cell_prefixes(rules: list[Rule]) -> str:
    counts = Counter(prefix(r.id) for r in rules)
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _cell_severities(rules: list[Rule]) -> str:
    counts = Counter(r.severity for r in rules)
    return " / ".join(str(counts.get(s, 0)) for s in SEVERITIES)


def area_table(rules: list[Rule], descriptions: dict[str, str]) -> str:
    """The markdown table, one row per area, most rules first; KeyError for an area without a description or a
    description without an area."""
    by_area: dict[str, list[Rule]] = defaultdict(list)
    for rule in rules:
        by_area[rule.area].append(rule)
    missing, stale = sorted(set(by_area) - set(descriptions)), sorted(set(descriptions) - set(by_area))
    if missing or stale:
        raise KeyError(f"docs/rules/areas.toml: no description for area(s) {', '.join(missing) or '-'}; "
                       f"description of no area {', '.join(stale) or '-'}")
    lines = ["| area | rules | errors / warnings / infos | ID prefixes (rules) | what |",
             "|---|---|---|---|---|"]
    for area, members in sorted(by_area.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| {area} | {len(members)} | {_cell_severities(members)} | {_cell_prefixes(members)} | "
                     f"{descriptions[area]} |")
    lines.append(f"| **all** | **{len(rules)}** | {_cell_severities(rules)} | | |")
    return "\n".join(lines)


def with_table(text: str, table: str, where: str) -> str:
    """`text` with the block between the markers replaced by `table`; ValueError when the markers are missing."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{where}: no {BEGIN} ... {END} block")
    return text[:start + len(BEGIN)] + "\n" + table + "\n" + text[end:]


def stale_tables(rules: list[Rule], write: bool) -> list[str]:
    """The files whose table differs from the registry's (rewritten when `write`)."""
    table = area_table(rules, load_descriptions())
    stale = []
    for path in TABLE_FILES:
        current = path.read_text(encoding="utf-8")
        fresh = with_table(current, table, str(path.relative_to(REPO)))
        if fresh != current:
            stale.append(str(path.relative_to(REPO)))
            if write:
                path.write_text(fresh, encoding="utf-8")
    return stale
