"""Maintainers' script: what each FlashInfer release's source does on SM12x, read at its git tag.

    python tools/flashinfer_features.py --git-dir /path/to/flashinfer.git [--out doctor/data/flashinfer_features.json]

The git directory is a clone (or the bare snapshot the search tool's `fetch` makes) of
github.com/flashinfer-ai/flashinfer. For every final release tag from v0.6.0 (rc tags are skipped) it reads the
files below with `git show TAG:PATH` and records, per release, the SM12x facts the rules in rules/know_fi3.toml
are scoped by:

- `gdn_prefill_sm12x`: flashinfer/gdn_prefill.py has an `_arch_major == 12` branch (before it, capability 12 takes
  the SM90 JIT module, whose launcher refuses any major but 9);
- `gdn_prefill_sm121`: that SM12x kernel is not compiled for sm_120a only (delta_rule_sm120.py);
- `dsv4_sparse_mla_api`: flashinfer.mla `trtllm_batch_decode_sparse_mla_dsv4` exists;
- `dsv4_sparse_mla_swa_keywords`: its signature takes `swa_topk_lens` / `extra_sparse_indices` /
  `extra_sparse_topk_lens` (what vLLM 0.24.0-0.26.0 pass);
- `cute_core_thrmma_files`: files under flashinfer/ that name `cute.core.ThrMma`, gone in nvidia-cutlass-dsl 4.6;
- `cutlass_dsl_requirement`: the nvidia-cutlass-dsl line of requirements.txt.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "doctor" / "data" / "flashinfer_features.json"
FINAL_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)(?:\.post(\d+))?$")
FIRST = (0, 6, 0)
SWA_KEYWORDS = ("swa_topk_lens", "extra_sparse_indices", "extra_sparse_topk_lens")


def git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


def release_tags(git_dir: Path) -> list[str]:
    tags = [t for t in git(git_dir, "tag").split() if FINAL_TAG.match(t)]
    keyed = [(tuple(int(g or 0) for g in FINAL_TAG.match(t).groups()), t) for t in tags]
    return [t for key, t in sorted(keyed) if key[:3] >= FIRST]


def function_signature(source: str, name: str) -> str:
    """The text from `def name(` to the closing `) ->` or `):` of its parameter list."""
    start = source.find(f"def {name}(")
    if start < 0:
        return ""
    end = re.compile(r"\)\s*(->[^:]*)?:").search(source, start)
    return source[start:end.end()] if end else source[start:]


def features(git_dir: Path, tag: str) -> dict[str, object]:
    gdn = git(git_dir, "show", f"{tag}:flashinfer/gdn_prefill.py")
    sm120_kernel = git(git_dir, "show", f"{tag}:flashinfer/gdn_kernels/delta_rule_dsl/delta_rule_sm120.py")
    mla = git(git_dir, "show", f"{tag}:flashinfer/mla/_core.py") or git(git_dir, "show", f"{tag}:flashinfer/mla.py")
    dsv4 = function_signature(mla, "trtllm_batch_decode_sparse_mla_dsv4")
    thrmma = sorted(line.split(":", 2)[1] for line in git(git_dir, "grep", "-l", r"cute\.core\.ThrMma", tag,
                                                          "--", "flashinfer").splitlines() if ":" in line)
    requirement = next((line.strip() for line in git(git_dir, "show", f"{tag}:requirements.txt").splitlines()
                        if line.strip().startswith("nvidia-cutlass-dsl")), None)
    sm12x = bool(re.search(r"_arch_major\s*==\s*12", gdn))
    return {
        "commit": git(git_dir, "rev-list", "-n", "1", tag).strip(),
        "gdn_prefill_sm12x": sm12x,
        "gdn_prefill_sm121": sm12x and 'cute.GPUArch("sm_120a"),)' not in sm120_kernel,
        "dsv4_sparse_mla_api": bool(dsv4),
        "dsv4_sparse_mla_swa_keywords": bool(dsv4) and all(k in dsv4 for k in SWA_KEYWORDS),
        "cute_core_thrmma_files": thrmma,
        "cutlass_dsl_requirement": requirement,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    tags = release_tags(args.git_dir)
    if not tags:
        print(f"no FlashInfer release tags in {args.git_dir}", file=sys.stderr)
        return 2
    table = {
        "generated_by": "tools/flashinfer_features.py",
        "source": "https://github.com/flashinfer-ai/flashinfer (git tags)",
        "releases": {tag.removeprefix("v"): features(args.git_dir, tag) for tag in tags},
    }
    args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(tags)} releases ({tags[0]}..{tags[-1]}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
