"""vLLM's Mamba/Gated-DeltaNet state blocks: the doctor's count against the counts public reports logged.

    PYTHONPATH=. python bench/mamba_blocks.py

Two kinds of rows:
- plan: the deployment as the report states it, through `check --format json` (offline); the planned block count
  is `plan.requested.state_cache.blocks` (doctor/engines/vllm/state_cache.py over the planner's KV budget);
- formula: the report states the KV pool itself ("KV pool 3.86 GiB"), so only the block arithmetic is compared.
The logged count is what vLLM printed in "max_num_seqs (N) exceeds available Mamba cache blocks (M)".
Results are recorded in bench/RESULTS-mamba-blocks.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from doctor.engines.spi import LayoutShape  # noqa: E402
from doctor.engines.vllm.state_cache import state_cache  # noqa: E402
from doctor.plan import kv as kvmod  # noqa: E402
from doctor.probe.model import load_model  # noqa: E402

GiB = 1 << 30
KG = "tests/knowngood/models"
# (report, what differs from the report, check arguments, blocks vLLM logged)
PLAN_ROWS = [
    ("recipes#551", "Qwen3.6-27B-FP8, H100 80GB, --gpu-memory-utilization 0.95 (release not stated; 0.24.0)",
     [f"{KG}/Qwen--Qwen3.6-27B-FP8", "--hardware", "h100-sxm-x8", "--engine", "vllm==0.24.0", "--",
      "--tensor-parallel-size", "1", "--gpu-memory-utilization", "0.95"], 856),
    ("recipes#831", "Qwen3.8-27B BF16 (Qwen3.6-27B stands in), PRO 6000 Max-Q, 0.95 (dev build; 0.28.0)",
     ["Qwen/Qwen3.6-27B", "--hardware", "rtx-pro-6000-maxq", "--engine", "vllm==0.28.0", "--",
      "--gpu-memory-utilization", "0.95"], 556),
    ("recipes#831", "Qwen3.8-27B FP8 (Qwen3.6-27B-FP8 stands in), PRO 6000 Max-Q, default utilization",
     [f"{KG}/Qwen--Qwen3.6-27B-FP8", "--hardware", "rtx-pro-6000-maxq", "--engine", "vllm==0.28.0"], 939),
    ("recipes#831", "Qwen3.8-27B NVFP4 (nvidia/Qwen3.6-27B-NVFP4 stands in), PRO 6000 Max-Q, default",
     ["nvidia/Qwen3.6-27B-NVFP4", "--hardware", "rtx-pro-6000-maxq", "--engine", "vllm==0.28.0"], 1011),
]


def planned_blocks(args: list[str]) -> tuple[int, float]:
    cut = args.index("--") if "--" in args else len(args)
    command = [sys.executable, "-m", "doctor", "check", *args[:cut], "--offline", "--format", "json",
               "--fail-on", "never", *args[cut:]]
    out = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True).stdout
    requested = json.loads(out)["analysis"]["plan"]["requested"]
    return requested["state_cache"]["blocks"], requested["kv_budget_gib"]


def formula_row() -> tuple[str, int, int]:
    """vllm#49064: Qwen3.8-27B (Qwen3.6-27B's shapes), TP2, a logged 3.86 GiB KV pool, 161 blocks logged."""
    model = load_model("Qwen/Qwen3.6-27B", {}, offline=True)
    shape = kvmod.kv_shape(model, 2, 0, model.num_layers, "bf16")
    state = state_cache("0.23.0", int(3.86 * GiB), shape, model, LayoutShape(2, 1, 1), {"max_num_seqs": 256}, {})
    assert state is not None
    return "vllm#49064 (TP2, 3.86 GiB pool logged)", state["blocks"], 161


def main() -> None:
    print("| report | deployment | logged | planned | error | planned KV budget |")
    print("|---|---|---|---|---|---|")
    for report, what, args, logged in PLAN_ROWS:
        blocks, budget = planned_blocks(args)
        print(f"| {report} | {what} | {logged} | {blocks} | {(blocks - logged) / logged:+.1%} | {budget} GiB |")
    report, blocks, logged = formula_row()
    error = (blocks - logged) / logged
    print(f"| {report} | block arithmetic only | {logged} | {blocks} | {error:+.1%} | 3.86 GiB (logged) |")


if __name__ == "__main__":
    main()
