"""Which kernel library a bare `Unsupported architecture` refusal came from, read from the text before it on the
same line (KRN140's signature captures it as `log_arch_raiser`, and TensorRT-LLM's `(FILE:LINE)` after it as
`log_arch_where`): `log.arch_gate.lead` opens the message (a condition where the line names no library),
`log.arch_gate.library` names the library and `log.arch_gate.way_out` what moves the layer off it. Engine-neutral:
each engine's setting is a fix of the rule (rules/diaggen.toml), shown for the engine the log names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import re2

from doctor.diagnose.read import first_captures

GROUP = "log_arch_raiser"
WHERE = "log_arch_where"


@dataclass(frozen=True)
class Raiser:
    pattern: Any  # re2 pattern on the words before (and the file after) `Unsupported architecture`
    library: str
    way_out: str


TRTLLM_GEN_WAY_OUT = ("send that layer to a backend that is not trtllm-gen (FlashInfer's FA2 or cutlass paths, "
                      "Triton, TileLang, Marlin): the engine's fix below names its setting")
# The most specific wording first: FlashInfer's runner also prints through TVM-FFI.
RAISERS = (
    Raiser(re2.compile(r"csrc/apis/\w+\.hpp|(?i:deep_?gemm)"),
           "DeepGEMM (its csrc/apis dispatch implements SM90 and SM100 only; the file names the API)",
           "keep that layer off DeepGEMM, or run a release whose bundled DeepGEMM has SM120 kernels for that API: the "
           "engine's fix below names its setting"),
    Raiser(re2.compile(r"TllmGenFmhaRunner|fmhaRunner\.cuh"),
           "FlashInfer's trtllm-gen FMHA runner (its constructor accepts SM100 and SM103 only)", TRTLLM_GEN_WAY_OUT),
    Raiser(re2.compile(r"TensorRT-LLM|tensorrt_llm|fmhaRunner\.cpp"),
           "TensorRT-LLM's own kernels (the file in parentheses names the runner; its FMHA runners list the SMs the "
           "build has kernels for)",
           "the frames name the layer: set its backend to one whose support matrix lists SM120/SM121, or run a "
           "release that routes it elsewhere on 12.x"),
    Raiser(re2.compile(r"\btvm\.error\.|tvm_ffi|\bTVM"),
           "a library whose compiled ops raise through TVM-FFI (FlashInfer's kernels do: its trtllm-gen FMHA, MoE and "
           "GEMM runners check for SM100/SM103)", TRTLLM_GEN_WAY_OUT),
)
UNNAMED = Raiser(None, "not named by the line: the traceback's last frames name it (deep_gemm is DeepGEMM, "
                       "flashinfer/trtllm is FlashInfer's trtllm-gen runners, flash_mla is FlashMLA); frames in an "
                       "installer or a CPU-side check (pip, setup.py, a platform test on an aarch64 host) print the "
                       "same words about the CPU, and then this is not the cause",
                 "find the library in the traceback's frames, then send the layer that called it to a backend with "
                 "SM12x kernels (the fixes below, per engine)")


def arch_gate_view(hits: Sequence[Any]) -> dict[str, Any]:
    """`log.arch_gate` for KRN140 ({} when its signature did not match)."""
    found = first_captures(hits, {GROUP: GROUP, WHERE: WHERE})
    if GROUP not in found:
        return {}
    words = f"{found[GROUP]} {found.get(WHERE, '')}"
    raiser = next((r for r in RAISERS if r.pattern.search(words)), UNNAMED)
    named = raiser is not UNNAMED
    return {"arch_gate": {"library": raiser.library, "way_out": raiser.way_out, "named": named,
                          "lead": "A kernel library refused" if named else
                          "If a GPU kernel library printed this line (the words before it do not say), it refused"}}
