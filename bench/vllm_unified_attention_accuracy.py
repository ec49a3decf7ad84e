"""vLLM's Triton unified attention (TRITON_ATTN) against the kernel library's closed form, config by config.

    PYTHONPATH=. python bench/vllm_unified_attention_accuracy.py 0.33.0 3.8.0 120,121 [--out rows.json] [--quick] \
        [--table fixtures/vllm/unified-attention-compiled.json]

Compiles the release's own `triton_unified_attention.py` (from the wheel, never committed) ahead of time with the
Triton version given, for each target, over the launches vLLM makes (doctor/engines/vllm/exact.py `unified_job`,
the doctor's own `kernels --exact` path: head sizes with their padding, query heads per KV head, bf16/fp8 KV, sliding
window, sinks, softcap, the 2D kernel, the 3D split-KV kernel and its reduction), and prints exact/over/under of
`doctor.kernels.unified_attention_smem` against `metadata.shared`. --table merges the compiled values (not the
estimates) into the committed table the fast tests check the closed form against, with the wheel and Triton they
came from.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from wheels import download_wheel, triton_site  # noqa: E402

from doctor.engines.vllm.exact import unified_job  # noqa: E402
from doctor.engines.vllm.unified_attention import launches  # noqa: E402
from doctor.kernels.exact import compile_many  # noqa: E402
from doctor.kernels.unified_attention_smem import segments_reduce_smem, unified_attention_smem  # noqa: E402

HEAD_SIZES = (64, 80, 96, 128, 256, 512)
QUERIES_PER_KV = (1, 4, 8, 32, 64)
WINDOWS = (0, 1024, 4096)


def ops_dir(release: str, into: Path) -> Path:
    """The release's triton_unified_attention.py (and helpers) unpacked from its wheel."""
    with zipfile.ZipFile(download_wheel("vllm", release)) as archive:
        names = [n for n in archive.namelist() if n.endswith(("ops/triton_unified_attention.py",
                                                              "ops/triton_attention_helpers.py"))]
        for name in names:
            archive.extract(name, into)
    return into / Path(names[0]).parent


def grid(release: str, ccs: list[int], quick: bool) -> list[dict]:
    jobs = []
    for cc in ccs:
        for hs in HEAD_SIZES:
            for qpk in QUERIES_PER_KV if not quick else (1, 8, 64):
                for kv in ("bf16", "fp8"):
                    for window in WINDOWS if not quick else (0, 1024):
                        extras = ({}, {"sinks": True, "softcap": True}) if hs == 64 and qpk == 8 else ({},)
                        for extra in extras:
                            for launch in launches(release, hs, qpk, kv, window):
                                jobs.append({"cc": cc, **launch, **extra})
    return [dict(t) for t in dict.fromkeys(tuple(sorted(_relevant(j).items())) for j in jobs)]


def _relevant(job: dict) -> dict:
    """A reduction's launch depends on the head size and segment count only."""
    if job["kernel"] != "reduce":
        return job
    return {k: v for k, v in job.items() if k not in ("kv", "window", "sinks", "softcap")}


def estimate(job: dict, triton: str, revision: int) -> int | str:
    try:
        if job["kernel"] == "reduce":
            return segments_reduce_smem(job["cc"], job["head_size"], job["segments"], job["num_warps"], triton)
        return unified_attention_smem(job["cc"], job["head_size"], job["block_m"], job["tile"], job["num_warps"],
                                      job["num_stages"], job["kv"], job["kernel"] == "3d", job.get("window", 0),
                                      job.get("sinks", False), job.get("softcap", False), triton, revision)
    except ValueError as exc:
        return f"refused: {exc}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release")
    parser.add_argument("triton")
    parser.add_argument("ccs")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--table", type=Path, help="merge the compiled values into this committed table")
    args = parser.parse_args()
    from doctor.engines.vllm.unified_attention import kernel_revision

    revision = kernel_revision(args.release)
    with tempfile.TemporaryDirectory() as tmp:
        folder = ops_dir(args.release, Path(tmp))
        jobs = grid(args.release, [int(c) for c in args.ccs.split(",")], args.quick)
        source = folder / "triton_unified_attention.py"
        results = compile_many([unified_job(source, job) for job in jobs], None, triton_site(args.triton),
                               cache_dir=Path(tmp) / "results")
    rows, counts = [], {"exact": 0, "over": 0, "under": 0, "refused": 0, "error": 0}
    for job, result in zip(jobs, results, strict=True):
        row = {**job, "release": args.release, "triton": args.triton, "shared": result.get("shared"),
               "estimate": estimate(job, args.triton, revision)}
        if "error" in result:
            counts["error"] += 1
            row["error"] = result["error"]
        elif isinstance(row["estimate"], str):
            counts["refused"] += 1
        else:
            counts["exact" if row["estimate"] == row["shared"] else
                   "over" if row["estimate"] > row["shared"] else "under"] += 1
        rows.append(row)
        if row.get("error") or row["estimate"] != row["shared"]:
            print(json.dumps(row))
    print(f"vLLM {args.release}, Triton {args.triton}, sm {args.ccs}: {counts}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=0) + "\n")
    if args.table:
        merge_table(args.table, args.release, args.triton, rows)
    return 0


COLUMNS = ("cc", "kernel", "head_size", "q_per_kv", "kv", "block_m", "tile", "window", "sinks", "softcap",
           "segments", "num_warps", "num_stages", "shared")


def merge_table(path: Path, release: str, triton: str, rows: list[dict]) -> None:
    """Compiled rows per (release, Triton): one compact list per row in COLUMNS order."""
    table = json.loads(path.read_text()) if path.exists() else {
        "about": "metadata.shared of vLLM's own unified attention kernels compiled ahead of time (CPU only) by "
                 "bench/vllm_unified_attention_accuracy.py with doctor/engines/vllm/exact.py",
        "columns": list(COLUMNS), "runs": []}
    wheel = download_wheel("vllm", release).name
    compiled = [[row.get(c, False if c in ("sinks", "softcap") else 0) for c in COLUMNS]
                for row in rows if "error" not in row]
    table["runs"] = [r for r in table["runs"] if (r["release"], r["triton"]) != (release, triton)]
    table["runs"].append({"release": release, "wheel": wheel, "triton": triton, "rows": compiled})
    table["runs"].sort(key=lambda r: (r["release"], r["triton"]))
    path.write_text(json.dumps(table, separators=(",", ":")).replace('],[', '],\n[') + "\n")


if __name__ == "__main__":
    sys.exit(main())
