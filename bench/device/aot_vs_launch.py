"""On a real GPU (sm_90 here): does the ahead-of-time `metadata.shared` (doctor.kernels.exact, target =
this GPU's capability) equal what Triton's own launch path compiles, and does a config over the
device limit raise OutOfResources with Required = that number?

    SM120_DOCTOR_FULL_COMPILE=1 python bench/device/aot_vs_launch.py SGLANG_SITE OUT.json

Launched side: SGLang 0.5.8's own `extend_attention_fwd` with real tensors (tiles forced per case), and
the JIT-compiled kernels' metadata read from Triton's cache. OutOfResources side: the AOT-compiled
fused-MoE kernel is loaded onto the GPU exactly as a first launch does (`CompiledKernel._init_handles`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "device"))
from extend_patch_equivalence import problem, stub_package  # noqa: E402

from doctor.kernels import exact_launch  # noqa: E402
from doctor.kernels.exact import Job, compile_many, kernel_source  # noqa: E402
from doctor.kernels.exact_worker import load_module, specialise  # noqa: E402

EXTEND_CASES = [  # (Lq, Lv, heads, kv_heads, BLOCK_M, BLOCK_N, warps)
    (576, 512, 8, 1, 32, 64, 8), (576, 512, 8, 1, 32, 32, 8), (576, 512, 8, 1, 16, 64, 8),
    (192, 128, 8, 8, 128, 64, 8), (192, 128, 8, 8, 64, 64, 8), (128, 128, 32, 8, 64, 128, 8),
    (128, 128, 32, 8, 128, 64, 8), (256, 256, 16, 4, 128, 64, 8), (64, 64, 32, 8, 128, 64, 4),
]
MOE_CASES = [  # (dtype, BM, BN, BK, group, warps, stages)
    ("fp8_w8a8", 128, 256, 128, 32, 8, 4), ("bf16", 128, 128, 64, 8, 4, 4),
    ("bf16", 256, 256, 128, 8, 8, 4), ("bf16", 128, 256, 128, 8, 8, 5),
]


def launched_extend(site: Path, cc: int) -> list[dict]:
    module = stub_package(site, (site / "sglang/srt/layers/attention/triton_ops/extend_attention.py").read_text(),
                          "aot")
    rows = []
    for lq, lv, heads, kv_heads, bm, bn, warps in EXTEND_CASES:
        dm, dpe = {576: (512, 64), 192: (128, 64)}.get(lq, (triton.next_power_of_2(lq), 0))
        tiles = (dm, dpe, triton.next_power_of_2(lv), bm, bn, warps)
        module._get_block_sizes_for_extend_attention = lambda _lq, _lv, t=tiles: t
        p = problem(lq, lv, heads, kv_heads, [300, 0], [200, 517], seed=lq + bm)
        before = {key for key in _compiled(module)}
        out = torch.empty(p["q"].shape[0], heads, lv, device="cuda", dtype=torch.bfloat16)
        module.extend_attention_fwd(p["q"], p["k_ext"], p["v_ext"], out, p["k_buf"], p["v_buf"], p["qo"],
                                    p["kvp"], p["kv_indices"], None, True, None, max(p["extend"]))
        torch.cuda.synchronize()
        new = [k for key, k in _compiled(module).items() if key not in before]
        job = Job("extend_attention", cc, {"lq": lq, "lv": lv, "block_m": bm, "block_n": bn, "num_warps": warps,
                                           "num_stages": 1, "kv_group": heads // kv_heads})
        aot = compile_many([job], site, None, workers=1)[0]
        rows.append({"kernel": "extend_attention", "lq": lq, "lv": lv, "kv_group": heads // kv_heads,
                     "block_m": bm, "block_n": bn, "warps": warps,
                     "launched_shared": new[0].metadata.shared if new else None, "aot_shared": aot.get("shared"),
                     "aot_error": aot.get("error")})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def _compiled(module) -> dict:
    return {(d, key): k for d, cache in module._fwd_kernel.device_caches.items() for key, k in cache[0].items()}


def moe_load(site: Path, cc: int, limit: int) -> list[dict]:
    source = kernel_source("fused_moe", site)
    module = load_module(str(source))
    rows = []
    for dtype, bm, bn, bk, group, warps, stages in MOE_CASES:
        config = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group,
                  "num_warps": warps, "num_stages": stages}
        name, args, options = exact_launch.build("fused_moe", cc, {"dtype": dtype, "per_channel": dtype != "bf16",
                                                                   "n": 384, "k": 5120, "e": 161, "config": config})
        fn = getattr(module, name)
        signature, constexprs, attrs = specialise(fn, args)
        kernel = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs),
                                target=GPUTarget("cuda", cc, 32), options=options)
        row = {"kernel": "fused_moe", "dtype": dtype, "config": config, "aot_shared": kernel.metadata.shared,
               "limit": limit}
        try:
            kernel._init_handles()  # what the first launch does: load the cubin, check shared memory
            row["loaded"] = True
        except triton.runtime.errors.OutOfResources as exc:
            row["loaded"] = False
            row["error"] = str(exc)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    site, out = Path(sys.argv[1]), Path(sys.argv[2])
    major, minor = torch.cuda.get_device_capability()
    cc = major * 10 + minor
    limit = torch.cuda.get_device_properties(0).shared_memory_per_block_optin
    result = {"device": torch.cuda.get_device_name(0), "cc": cc, "limit": limit, "torch": torch.__version__,
              "triton": triton.__version__, "extend": launched_extend(site, cc), "moe": moe_load(site, cc, limit)}
    out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
