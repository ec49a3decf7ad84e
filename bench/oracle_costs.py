"""Per-release cost of the derived vLLM tables, read from the tables themselves (their `cost` block, written by
`python -m tools.engine_oracle`): install time and installer, the venv's apparent size and what it alone adds
on disk (uv hardlinks the shared wheels), the run's wall time per capability, the table's size and what it
holds. Prints a Markdown table for bench/RESULTS-oracle.md.

    python bench/oracle_costs.py"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from packaging.version import Version

TABLES = Path(__file__).resolve().parents[1] / "doctor" / "data" / "derived" / "vllm"
HEADER = ("| release | installer | install s | venv apparent GB | venv own MB | run s (12.0 / 12.1 / 9.0 / 10.0) "
          "| table KB | entries | rejections | emulation errors |")


def _gb(value: int | None) -> str:
    return f"{value / 1e9:.2f}" if value else "-"


def _mb(value: int | None) -> str:
    return f"{value / 1e6:.1f}" if value else "-"


def row(path: Path) -> str:
    table = json.loads(path.read_text(encoding="utf-8"))
    cost = table["cost"]
    per_cap = cost.get("seconds_per_capability", {})
    caps = " / ".join(str(round(per_cap[c])) if per_cap.get(c) else "-" for c in ("12.0", "12.1", "9.0", "10.0"))
    kinds = Counter(e["kind"] for entry in table["entries"] for e in entry["errors"])
    return (f"| {table['release']} | {cost.get('installer') or 'pip'} | {cost.get('install_s') or '-'} | "
            f"{_gb(cost.get('env_bytes'))} | {_mb(cost.get('own_bytes'))} | {cost.get('total_s')} ({caps}) | "
            f"{path.stat().st_size // 1024} | {len(table['entries'])} | {kinds.get('rejection', 0)} | "
            f"{kinds.get('emulation', 0)} |")


def main() -> None:
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for path in sorted(TABLES.glob("*.json"), key=lambda p: Version(p.stem)):
        print(row(path))


if __name__ == "__main__":
    main()
