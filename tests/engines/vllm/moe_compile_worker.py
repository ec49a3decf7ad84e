"""Compile vLLM's own `fused_moe_kernel` ahead of time for sm_120 and print `metadata.shared` per config.

Run as a script with PYTHONPATH at a private Triton site (never imported by the tests themselves):
    python moe_compile_worker.py FUSED_MOE_PY '[{"BLOCK_SIZE_M": .., "dtype": "fp8_w8a8", "block_shape": [128, 128]}]'
The @triton.jit functions are copied out of vLLM's file into a scratch module (no vLLM or torch import).
Arguments are specialised as Triton's runtime binder does for real tensors: pointers and the large sizes
and strides divisible by 16, unit strides as the constant 1.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

UNIT_STRIDES = {"stride_ak", "stride_bk", "stride_cn", "stride_ask", "stride_bsk"}
SCALE_POINTERS = {"a_scale_ptr", "b_scale_ptr", "topk_weights_ptr"}
INDEX_POINTERS = {"sorted_token_ids_ptr", "expert_ids_ptr", "num_tokens_post_padded_ptr"}


def load_kernel(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    jits = [n for n in tree.body if isinstance(n, ast.FunctionDef)
            and any("jit" in ast.unparse(d) for d in n.decorator_list)]
    scratch = Path(tempfile.mkdtemp()) / "vllm_moe_kernels.py"
    scratch.write_text("import triton\nimport triton.language as tl\n\n" + "\n\n".join(ast.unparse(n) for n in jits))
    spec = importlib.util.spec_from_file_location("vllm_moe_kernels", scratch)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fused_moe_kernel


def pointer_type(name: str, fp8: bool) -> str:
    if name in SCALE_POINTERS:
        return "*fp32"
    if name in INDEX_POINTERS:
        return "*i32"
    return "*fp8e4nv" if fp8 and name in ("a_ptr", "b_ptr") else "*bf16"


def constexpr_value(name: str, job: dict):
    fp8 = job["dtype"] == "fp8_w8a8"
    block = job.get("block_shape") or [0, 0]
    values = {"group_n": block[0], "group_k": block[1], "SPLIT_K": 1, "top_k": 8, "compute_type": tl.bfloat16,
              "use_fp8_w8a8": fp8, "per_channel_quant": bool(job.get("per_channel"))}
    return job.get(name, values.get(name, False))


def compile_one(kernel, job: dict) -> int:
    signature, constexprs, attrs = {}, {}, {}
    for index, param in enumerate(kernel.params):
        name = param.name
        if param.is_constexpr or name in UNIT_STRIDES:
            signature[name] = "constexpr"
            constexprs[(index,)] = 1 if name in UNIT_STRIDES else constexpr_value(name, job)
        elif name.endswith("_ptr"):
            signature[name] = pointer_type(name, job["dtype"] == "fp8_w8a8")
            attrs[(index,)] = [["tt.divisibility", 16]]
        else:
            signature[name] = "i32"
            if name in ("N", "K", "EM") or name.startswith("stride_"):
                attrs[(index,)] = [["tt.divisibility", 16]]
    source = ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    options = {"num_warps": job["num_warps"], "num_stages": job["num_stages"]}
    return triton.compile(source, target=GPUTarget("cuda", 120, 32), options=options).metadata.shared


def main() -> None:
    kernel = load_kernel(Path(sys.argv[1]))
    print(json.dumps([compile_one(kernel, job) for job in json.loads(sys.argv[2])]))


if __name__ == "__main__":
    main()
