"""Runs inside one Triton release (PYTHONPATH = its site dir, nothing else of the doctor imported): compiles a
small kernel for each CUDA capability given on the command line and prints one JSON line: the release, its
bundled ptxas builds and, per capability, whether a cubin came out (the PTX target it chose) or the error."""

import glob
import json
import os
import re
import subprocess
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

PTXAS_LINE = re.compile(r"ptxas (?:fatal|error)\s*:.*")


@triton.jit
def add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


def kernel_source() -> ASTSource:
    named = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    try:  # Triton >= 3.3: `constexprs`
        return ASTSource(fn=add_one, signature=named, constexprs={"BLOCK": 128})
    except TypeError:
        pass
    try:  # Triton 3.2: named `constants`
        return ASTSource(fn=add_one, signature=named, constants={"BLOCK": 128})
    except TypeError:  # Triton 3.0-3.1: numbered
        return ASTSource(fn=add_one, signature={0: "*fp32", 1: "*fp32", 2: "i32"}, constants={3: 128})


def short_error(exc: Exception) -> str:
    text = str(exc)
    ptxas = PTXAS_LINE.findall(text)
    first = ptxas[0] if ptxas else next((line for line in text.splitlines() if line.strip()), "")
    return f"{type(exc).__name__}: {' '.join(first.split())[:300]}"


def compile_for(capability: int) -> dict:
    try:
        kernel = triton.compile(kernel_source(), target=GPUTarget("cuda", capability, 32))
    except Exception as exc:
        return {"compiles": False, "error": short_error(exc)}
    target = re.search(r"^\.target\s+(\S+)", kernel.asm.get("ptx", ""), re.MULTILINE)
    return {"compiles": bool(kernel.asm.get("cubin")), "ptx_target": target.group(1) if target else None}


def bundled_ptxas() -> dict:
    found = {}
    for path in sorted(glob.glob(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas*"))):
        out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        release = re.search(r"V(\d+\.\d+\.\d+)", out)
        found[os.path.basename(path)] = release.group(1) if release else None
    return found


if __name__ == "__main__":
    capabilities = [int(arg) for arg in sys.argv[1:]]
    print(json.dumps({"version": triton.__version__, "ptxas": bundled_ptxas(),
                      "targets": {str(cc): compile_for(cc) for cc in capabilities}}))
