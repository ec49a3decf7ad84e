"""Which kernel library a bare `Unsupported architecture` refusal came from, read from the text before it on the
same line (KRN140's signature captures it as `log_arch_raiser`, and TensorRT-LLM's `(FILE:LINE)` after it as
`log_arch_where`): `log.arch_gate.library` names the library and
`log.arch_gate.way_out` the setting that moves the layer off it, or both say that the line does not name it and the
traceback's frames do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

from doctor.diagnose.read import first_captures

GROUP = "log_arch_raiser"
WHERE = "log_arch_where"
UNNAMED = ("not named by the line (the traceback's last frames name it: deep_gemm is DeepGEMM, flashinfer/trtllm is "
           "FlashInfer's trtllm-gen runners, flash_mla is FlashMLA)")
UNNAMED_WAY_OUT = ("find the library in the traceback's frames, then send the layer that called it to a backend "
                   "with SM12x kernels (the fixes below, per engine)")
# Each library's own wording in front of the refusal, in the order a line is tested (the most specific first).
RAISERS = (
    (re2.compile(r"csrc/apis/\w+\.hpp|(?i:deep_?gemm)"),
     "DeepGEMM (its csrc/apis dispatch implements SM90 and SM100 only; the file names the API)",
     "turn DeepGEMM off for the layer (vLLM: VLLM_USE_DEEP_GEMM=0; SGLang: SGLANG_ENABLE_JIT_DEEPGEMM=0), or run an "
     "engine release whose bundled DeepGEMM has SM120 kernels for that API"),
    (re2.compile(r"TllmGenFmhaRunner|fmhaRunner\.cuh"),
     "FlashInfer's trtllm-gen FMHA runner (its constructor accepts SM100 and SM103 only)",
     "pick an attention backend that is not trtllm-gen (vLLM: --attention-backend FLASHINFER or TRITON_ATTN; "
     "SGLang: --attention-backend flashinfer or triton instead of trtllm_mha/trtllm_mla)"),
    (re2.compile(r"TensorRT-LLM|tensorrt_llm|fmhaRunner\.cpp"),
     "TensorRT-LLM's own kernels (the file in parentheses names the runner; its FMHA runners list the SMs the build "
     "has kernels for)",
     "the frames name the layer: set that layer's backend in the LLM API config to one whose support matrix lists "
     "SM120/SM121, or run a TensorRT-LLM release that routes it elsewhere on 12.x"),
    (re2.compile(r"\btvm\.error\.|tvm_ffi|\bTVM"),
     "a library whose compiled ops raise through TVM-FFI (FlashInfer's kernels do: its trtllm-gen FMHA, MoE and GEMM "
     "runners check for SM100/SM103)",
     "the traceback's flashinfer frame names the op: send that layer to a non-trtllm-gen backend (attention: "
     "FLASHINFER FA2 or TRITON_ATTN; MoE: CUTLASS, Marlin or Triton)"),
)


def arch_gate_view(hits: Sequence[Any]) -> dict[str, Any]:
    """`log.arch_gate` for KRN140 ({} when its signature did not match)."""
    found = first_captures(hits, {GROUP: GROUP, WHERE: WHERE})
    if GROUP not in found:
        return {}
    raiser = f"{found[GROUP]} {found.get(WHERE, '')}"
    for pattern, library, way_out in RAISERS:
        if pattern.search(raiser):
            return {"arch_gate": {"library": library, "way_out": way_out, "named": True}}
    return {"arch_gate": {"library": UNNAMED, "way_out": UNNAMED_WAY_OUT, "named": False}}
