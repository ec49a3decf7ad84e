"""The -hf GGUF estimate (doctor/probe/hf_gguf.py) against published GGUF figures, one row per figure.

    PYTHONPATH=. python bench/bench_gguf_estimate.py [--write bench/RESULTS-gguf-estimate.md]

Rows: tests/cases/sizing/gguf_published.json (file sizes, tensor counts, llama.cpp load-log buffers). Each is
estimated from the bundled original config as `check` does for `-hf owner/Repo-GGUF:QUANT` with no file on disk;
buffers come from the llama.cpp plan (doctor/engines/llama_cpp/memory.py) with every layer on one GPU.
tests/probe/test_gguf_estimate_published.py holds a few rows to the bounds measured here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from doctor.engines.llama_cpp.memory import CPU, usage  # noqa: E402
from doctor.engines.llama_cpp.options import ALL, LlamaOptions  # noqa: E402
from doctor.probe.gguf import GgufModel, read_gguf  # noqa: E402
from doctor.probe.model import load_model  # noqa: E402

PUBLISHED = REPO / "tests" / "cases" / "sizing" / "gguf_published.json"
UNITS = {"GB": 1e9, "GiB": 2**30, "MiB": 2**20, "tensors": 1}
BIG_GPU = 1 << 44  # every layer fits: the buffers as llama.cpp logs them with -ngl all on one GPU


def rows() -> list[dict]:
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))["rows"]


def estimated(row: dict) -> float:
    """The estimate of the row's figure, in the row's unit."""
    gguf = read_gguf(load_model(row["spec"], {}, offline=True).source_path)
    return figure(gguf, row) / UNITS[row["unit"]]


def figure(gguf: GgufModel, row: dict) -> float:
    kind = row["kind"]
    if kind == "file":
        return gguf.tensor_bytes
    if kind == "tensors":
        return len(gguf.tensors)
    options = LlamaOptions(n_gpu_layers=ALL, parallel=int(row.get("parallel", 1)), ctx_size=4096)
    use = usage(gguf, options, [BIG_GPU])
    gpu, cpu = use.devices["CUDA0"], use.devices[CPU]
    return {"gpu_weights": gpu.weights, "cpu_weights": cpu.weights, "recurrent": gpu.recurrent + cpu.recurrent}[kind]


def table() -> list[tuple[dict, float, float]]:
    out = []
    for row in rows():
        value = estimated(row)
        out.append((row, value, (value / row["value"] - 1) * 100 if row["value"] else 0.0))
    return out


def markdown(results: list[tuple[dict, float, float]]) -> str:
    lines = ["| -hf spec | figure | recipe | published | estimate | error | source |",
             "|---|---|---|---:|---:|---:|---|"]
    for row, value, error in results:
        unit = row["unit"]
        shown = f"{value:.0f}" if unit == "tensors" else f"{value:.2f}"
        lines.append(f"| {row['spec']} | {row['kind']}{' -np ' + str(row['parallel']) if 'parallel' in row else ''} "
                     f"| {row['recipe']} | {row['value']} {unit} | {shown} {unit} | {error:+.2f} % | "
                     f"[{row['source'].split('github.com/')[-1]}]({row['source']}) |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="replace the table between the markers of this file")
    args = parser.parse_args()
    text = markdown(table())
    if args.write:
        doc = args.write.read_text(encoding="utf-8")
        head, _, rest = doc.partition("<!-- table -->\n")
        _, _, tail = rest.partition("<!-- /table -->")
        args.write.write_text(f"{head}<!-- table -->\n{text}\n<!-- /table -->{tail}", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
