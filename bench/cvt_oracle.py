"""Ground truth for layout-conversion scratch: compile one `convert_layout` with Triton, per version.

    PYTHONPATH=. python bench/cvt_oracle.py [--triton 3.5.1 3.9.0] [--n 300] [--seed S]

Builds random (source, destination) layout pairs of the kinds SGLang's kernels convert between
(mma.sync and wgmma accumulators, blocked layouts, their slices), writes each as a TTGIR module
holding a single conversion, compiles it for its target with that Triton (no GPU needed) and
compares `metadata.shared` with doctor.kernels.cvt_scratch. Prints the mismatches; exit 1 if any.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from wheels import cache_root  # noqa: E402

from doctor.kernels import layouts as ll  # noqa: E402
from doctor.kernels.cvt_scratch import scratch_bytes  # noqa: E402
from doctor.kernels.exact import ensure_triton  # noqa: E402

_TYPES = {16: "bf16", 32: "f32", 8: "i8"}
_RUNNER = textwrap.dedent("""
    import json, sys, triton
    from triton.backends.compiler import GPUTarget
    out = []
    for path, cc in json.load(sys.stdin):
        try:
            out.append(triton.compile(path, target=GPUTarget("cuda", cc, 32)).metadata.shared)
        except Exception as exc:
            out.append(str(exc)[-300:])
    print(json.dumps(out))
""")


def _pow2(rng: random.Random, lo: int, hi: int) -> int:
    return 1 << rng.randint(lo.bit_length() - 1, hi.bit_length() - 1)


def random_blocked(rng: random.Random, shape: tuple[int, ...], warps: int) -> dict:
    rank = len(shape)
    order = (1, 0) if rank == 2 and rng.random() < 0.8 else tuple(range(rank))
    spt = [1] * rank
    spt[order[0]] = min(shape[order[0]], _pow2(rng, 1, 8))
    tpw, left = [1] * rank, 32
    for d in order:  # threads fill the fastest dim first, as Triton's default layouts do
        take = min(left, max(1, shape[d] // spt[d]))
        tpw[d], left = take, left // take
    tpw[order[-1]] *= left
    wpc = [1] * rank
    wpc[order[-1] if rng.random() < 0.7 else order[0]] = warps
    return {"kind": "blocked", "spt": spt, "tpw": tpw, "wpc": wpc, "order": list(order)}


def random_mma(rng: random.Random, shape: tuple[int, int], warps: int, cc: int) -> dict:
    if cc == 90 and warps % 4 == 0 and shape[0] % 64 == 0 and rng.random() < 0.5:
        n = min(shape[1], 256)
        return {"kind": "mma", "version": 3, "warps": [warps, 1], "instr_n": n}
    wm = _pow2(rng, 1, warps)
    return {"kind": "mma", "version": 2, "warps": [wm, warps // wm], "instr_n": 8}


def to_text(spec: dict) -> str:
    if spec["kind"] == "blocked":
        return (f"#ttg.blocked<{{sizePerThread = {spec['spt']}, threadsPerWarp = {spec['tpw']}, "
                f"warpsPerCTA = {spec['wpc']}, order = {spec['order']}}}>")
    instr = "[16, 8]" if spec["version"] == 2 else f"[16, {spec['instr_n']}, 16]"
    return (f"#ttg.nvidia_mma<{{versionMajor = {spec['version']}, versionMinor = 0, "
            f"warpsPerCTA = {spec['warps']}, instrShape = {instr}}}>")


def to_layout(spec: dict, shape: tuple[int, ...]) -> ll.Layout:
    if spec["kind"] == "blocked":
        return ll.blocked(shape, tuple(spec["spt"]), tuple(spec["tpw"]), tuple(spec["wpc"]),
                          tuple(spec["order"]))
    return ll.mma(shape, tuple(spec["warps"]), spec["version"], spec["instr_n"])


def module(src: str, dst: str, shape: tuple[int, ...], bits: int, warps: int, cc: int) -> str:
    ty = _TYPES[bits]
    dims = "x".join(map(str, shape))
    zero = "0.000000e+00" if ty in ("bf16", "f32") else "0"
    attrs = (f'"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, ttg.target = "cuda:{cc}", '
             '"ttg.threads-per-warp" = 32 : i32')
    return textwrap.dedent(f"""\
        #src = {src}
        #dst = {dst}
        module attributes {{{attrs}}} {{
          tt.func public @k(%out: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{
            %v = arith.constant dense<{zero}> : tensor<{dims}x{ty}, #src>
            %c = ttg.convert_layout %v : tensor<{dims}x{ty}, #src> -> tensor<{dims}x{ty}, #dst>
            %p = tt.splat %out : !tt.ptr<{ty}> -> tensor<{dims}x!tt.ptr<{ty}>, #dst>
            tt.store %p, %c : tensor<{dims}x!tt.ptr<{ty}>, #dst>
            tt.return
          }}
        }}
        """)


def random_case(rng: random.Random) -> dict:
    cc = rng.choice((80, 89, 90, 100, 120))
    warps = rng.choice((2, 4, 8))
    shape = (_pow2(rng, 16, 256), _pow2(rng, 8, 256))
    bits = rng.choice((16, 16, 32, 8))
    a = random_mma(rng, shape, warps, cc) if rng.random() < 0.7 else random_blocked(rng, shape, warps)
    b = random_blocked(rng, shape, warps)
    if a["kind"] == "mma" and rng.random() < 0.25:  # into an accumulator layout too (a mask into qk's)
        a, b = b, a
    return {"cc": cc, "warps": warps, "shape": list(shape), "bits": bits, "src": a, "dst": b}


def predict(case: dict, version: str = "3.9.0") -> int:
    shape = tuple(case["shape"])
    src, dst = to_layout(case["src"], shape), to_layout(case["dst"], shape)
    return scratch_bytes(src, dst, case["bits"], case["cc"], tuple(int(x) for x in version.split(".")[:2]))


def measure(cases: list[dict], version: str) -> list:
    site = ensure_triton(version, cache_root() / "triton")
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for i, case in enumerate(cases):
            path = Path(tmp) / f"m{i}.ttgir"
            path.write_text(module(to_text(case["src"]), to_text(case["dst"]), tuple(case["shape"]),
                                   case["bits"], case["warps"], case["cc"]))
            jobs.append((str(path), case["cc"]))
        env = dict(os.environ, PYTHONPATH=str(site), TRITON_CACHE_DIR=tmp)
        done = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(jobs), env=env,
                              capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton", nargs="+", default=["3.5.1"])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    cases = [random_case(random.Random(seed + i)) for i in range(args.n)]
    bad = 0
    for version in args.triton:
        results = measure(cases, version)
        wrong = [(c, r, predict(c, version)) for c, r in zip(cases, results, strict=True)
                 if isinstance(r, int) and r != predict(c, version)]
        failed = sum(1 for r in results if not isinstance(r, int))
        print(f"triton {version}: {len(cases) - failed - len(wrong)}/{len(cases) - failed} exact, "
              f"{failed} did not compile (seed {seed})")
        for case, real, guess in wrong[:25]:
            print(f"  real {real} predicted {guess}: {json.dumps(case)}")
        bad += len(wrong)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
