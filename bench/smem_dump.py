"""What Triton put in shared memory for one kernel config: every buffer with its offset.

    PYTHONPATH=. python bench/smem_dump.py fused_moe 100 '{"dtype": "fp8_w8a8", "config": {...}}' \
        [--triton 3.5.1] [--sglang 0.5.8] [--layouts]

Compiles the config in exact mode's dump mode (doctor/kernels/exact_dump.py): the module as it
stands right after Triton's shared-memory allocation pass. Prints each allocated op (explicit
`local_alloc` buffers with their bytes, scratch users such as `convert_layout` and reductions
with their tensor types), the closed form's estimate and `metadata.shared`. The tool the closed
forms are derived with.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from wheels import cache_root, unpacked_wheel  # noqa: E402

from doctor.kernels.estimate import analytic  # noqa: E402
from doctor.kernels.exact import Job, compile_many, ensure_triton  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernel")
    parser.add_argument("cc", type=int)
    parser.add_argument("params", help="launch parameters as JSON (exact_launch vocabulary)")
    parser.add_argument("--triton", default="3.5.1")
    parser.add_argument("--sglang", default="0.5.8")
    parser.add_argument("--layouts", action="store_true", help="also print the layout aliases")
    args = parser.parse_args()
    params = json.loads(args.params)
    site = ensure_triton(args.triton, cache_root() / "triton")
    result = compile_many([Job(args.kernel, args.cc, params)], unpacked_wheel("sglang", args.sglang), site,
                          workers=1, cache_dir=cache_root() / "smem-results", dump=True)[0]
    if "error" in result:
        print(result["error"])
        return 1
    print("  offset    bytes  op                  type")
    for buf in result["buffers"]:
        kind = buf.get("type") or " -> ".join(buf.get("types", []))
        print(f"{buf['offset']:>8} {buf.get('bytes') or '':>8}  {buf['op']:<19} {kind}")
    if args.layouts:
        for name, layout in result["layouts"].items():
            print(f"{name} = {layout}")
    estimate = analytic(args.kernel, args.cc, params, triton=args.triton)
    print(f"metadata.shared {result['shared']}   closed form {estimate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
