"""Per-release cost of the derived vLLM tables, read from the tables themselves (their `cost` block, written by
`python -m tools.engine_oracle`): install time and installer, the venv's apparent size and what it alone adds
on disk (uv hardlinks the shared wheels), the run's wall time per capability, the table's size and what it
holds. Prints a Markdown table for bench/RESULTS-oracle.md.

    python bench/oracle_costs.py            # vLLM
    python bench/oracle_costs.py sglang     # SGLang (its stand-ins, if any, in the last column)"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from packaging.version import Version

DERIVED = Path(__file__).resolve().parents[1] / "doctor" / "data" / "derived"
HEADER = ("| release | installer | install s | venv apparent GB | venv own MB | run s (12.0 / 12.1 / 9.0 / 10.0) "
          "| table KB | entries | with layer decisions | rejections | emulation errors | stand-ins |")


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
    built = sum(bool(entry.get("moe") or entry.get("linear")) for entry in table["entries"])
    stand_ins = ", ".join(f"{name}=={s['version']}" for name, s in table["pinned"].get("stand_ins", {}).items())
    return (f"| {table['release']} | {cost.get('installer') or 'pip'} | {cost.get('install_s') or '-'} | "
            f"{_gb(cost.get('env_bytes'))} | {_mb(cost.get('own_bytes'))} | {cost.get('total_s')} ({caps}) | "
            f"{path.stat().st_size // 1024} | {len(table['entries'])} | {built} | {kinds.get('rejection', 0)} | "
            f"{kinds.get('emulation', 0)} | {stand_ins or '-'} |")


def main() -> None:
    engine = sys.argv[1] if len(sys.argv) > 1 else "vllm"
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for path in sorted((DERIVED / engine).glob("*.json"), key=lambda p: Version(p.stem)):
        print(row(path))


if __name__ == "__main__":
    main()
