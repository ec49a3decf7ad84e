"""Compile vLLM's TRITON_MLA decode stage 1 (`_fwd_grouped_kernel_stage1`) ahead of time, print `metadata.shared`.

Run as a script with PYTHONPATH at a private Triton site (never imported by the tests themselves):
    python mla_decode_compile_worker.py TRITON_DECODE_ATTENTION_PY '[{"cc": 120, "kv_dtype": "fp8", ...}]'
The doctor's exact worker copies the @triton.jit functions out of vLLM's file (no vLLM or torch import) and its
launch builder for the grouped decode kernel supplies the arguments, with vLLM's own names added (page size 16,
the k/v scales as fp32 pointers).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "doctor" / "kernels"))
import exact_launch
import exact_worker


def compile_one(kernel, job: dict) -> int:
    lk, lv = job["lk"], job["lv"]
    params = {"lk": lk, "lv": lv, "block_n": job["block_n"], "block_h": job["block_h"],
              "num_warps": job["num_warps"], "num_stages": job["num_stages"], "kv_dtype": job["kv_dtype"],
              "grouped": True}
    _, args, options = exact_launch.build("decode_attention", job["cc"], params)
    args.update({"Req_to_tokens": exact_launch._ptr("i32"), "B_Seqlen": exact_launch._ptr("i32"),
                 "stride_req_to_tokens_b": 4096, "stride_buf_kpbs": 16 * lk, "stride_buf_vpbs": 16 * lk,
                 "k_scale": exact_launch._ptr("fp32"), "v_scale": exact_launch._ptr("fp32"),
                 "NUM_KV_SPLITS": 16, "PAGE_SIZE": 16, "IS_MLA": True})
    signature, constexprs, attrs = exact_worker.specialise(kernel, args)
    source = exact_worker.ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    target = exact_worker.GPUTarget("cuda", job["cc"], 32)
    return int(exact_worker.triton.compile(source, target=target, options=options).metadata.shared)


def main() -> int:
    kernel = exact_worker.load_module(sys.argv[1])._fwd_grouped_kernel_stage1
    print(json.dumps([compile_one(kernel, job) for job in json.loads(sys.argv[2])]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
