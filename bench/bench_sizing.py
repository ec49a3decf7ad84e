"""Checkpoint sizes from the config vs published sizes, one quantization format or architecture per row.

    PYTHONPATH=. python bench/bench_sizing.py [--write bench/RESULTS-sizing.md]

Each row sizes a real config (tests/cases/sizing/<name>/config.json, or a config the doctor bundles) the way
`check` does without headers or an index (doctor.plan.arch.model_pieces: parameter counts x each module's
storage) and compares with the checkpoint's published size (tests/cases/sizing/published.json: a tensor
table, the safetensors files' sizes or a model card's). tests/plan/test_sizing_published.py asserts 3 %.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from doctor.plan.arch import model_pieces  # noqa: E402
from doctor.probe.model import load_model  # noqa: E402
from doctor.probe.model_config import parse_model  # noqa: E402

CASES = REPO / "tests" / "cases" / "sizing"


def published() -> dict[str, dict]:
    return json.loads((CASES / "published.json").read_text(encoding="utf-8"))


def computed_bytes(name: str, entry: dict) -> int:
    if entry.get("bundled"):
        model = load_model(name, {}, offline=True)
    else:
        folder = CASES / name
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        quant = folder / "hf_quant_config.json"
        hf_quant = json.loads(quant.read_text(encoding="utf-8")) if quant.is_file() else None
        model = parse_model(config, hf_quant, model_id=entry["model"], source="local", source_path=str(folder))
    return sum(piece.nbytes for piece in model_pieces(model))


def rows() -> list[tuple[str, dict, int, float]]:
    out = []
    for name, entry in published().items():
        size = computed_bytes(name, entry)
        out.append((name, entry, size, size / entry["bytes"] - 1))
    return out


def table() -> str:
    lines = ["| checkpoint | format / architecture | published | doctor (config) | error | published size from |",
             "|---|---|---:|---:|---:|---|"]
    for _name, entry, size, error in rows():
        lines.append(f"| {entry['model']} | {entry['format']} | {entry['bytes'] / 1e9:,.3f} GB | "
                     f"{size / 1e9:,.3f} GB | {error * 100:+.2f} % | [{entry['how']}]({entry['source']}) |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    text = table()
    print(text)
    if args.write:
        body = args.write.read_text(encoding="utf-8") if args.write.is_file() else ""
        marker = "<!-- table -->"
        if marker in body:
            head, _, rest = body.partition(marker)
            tail = rest.partition("<!-- /table -->")[2]
            args.write.write_text(f"{head}{marker}\n{text}\n<!-- /table -->{tail}", encoding="utf-8")
        else:
            args.write.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
