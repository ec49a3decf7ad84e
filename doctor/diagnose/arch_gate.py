"""Which kernel library a bare `Unsupported architecture` refusal came from, read from the text before it on the
same line (KRN140's signature captures it as `log_arch_raiser`, and TensorRT-LLM's `(FILE:LINE)` after it as
`log_arch_where`): `log.arch_gate.lead` opens the message (conditional where the line names no library),
`log.arch_gate.library` names the library and `log.arch_gate.way_out` the setting that moves the
layer off it in the log's engine (every engine's where the log names none), or both say that the line does not name
it and the traceback's frames do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import re2

from doctor.diagnose.read import first_captures

GROUP = "log_arch_raiser"
WHERE = "log_arch_where"
DEEPGEMM_WAY_OUT = {
    "vllm": "VLLM_USE_DEEP_GEMM=0 keeps vLLM's GEMMs and MoE off DeepGEMM (a sparse-attention indexer's MQA logits are "
            "not moved by it: there the release decides, DG010), or a vLLM release bundling a DeepGEMM with SM120 "
            "kernels for that API",
    "sglang": "SGLANG_ENABLE_JIT_DEEPGEMM=0 keeps SGLang's block-FP8 GEMMs off DeepGEMM (a DSA indexer's MQA logits "
              "are not moved by it: sgl-deep-gemm 0.1.5.post3, SGLang 0.5.18+, has them, DG011)",
}
TRTLLM_GEN_WAY_OUT = {
    "vllm": "an attention backend that is not trtllm-gen: --attention-backend FLASHINFER or TRITON_ATTN (MLA: "
            "TRITON_MLA); MoE: --moe-backend marlin or triton (vLLM 0.20.0+)",
    "sglang": "--attention-backend triton or flashinfer instead of trtllm_mha / trtllm_mla; for DSA models "
              "(DeepSeek-V3.2/V4, GLM-5.x) --dsa-prefill-backend tilelang --dsa-decode-backend tilelang with "
              "--kv-cache-dtype bf16 (SGLang 0.5.18+, SGL140)",
}
TRTLLM_WAY_OUT = {
    "tensorrt-llm": "the frames name the layer: set its backend in the LLM API config to one whose support matrix "
                    "lists SM120/SM121, or run a TensorRT-LLM release that routes it elsewhere on 12.x",
}
UNNAMED_WAY_OUT = {
    None: "find the library in the traceback's frames, then send the layer that called it to a backend with SM12x "
          "kernels (the fixes below, per engine)",
}


@dataclass(frozen=True)
class Raiser:
    pattern: Any  # re2 pattern on the words before (and the file after) `Unsupported architecture`
    library: str
    way_out: Mapping[str | None, str]  # per engine; None: the log names no engine this table knows


# The most specific wording first: FlashInfer's runner also prints through TVM-FFI.
RAISERS = (
    Raiser(re2.compile(r"csrc/apis/\w+\.hpp|(?i:deep_?gemm)"),
           "DeepGEMM (its csrc/apis dispatch implements SM90 and SM100 only; the file names the API)",
           DEEPGEMM_WAY_OUT),
    Raiser(re2.compile(r"TllmGenFmhaRunner|fmhaRunner\.cuh"),
           "FlashInfer's trtllm-gen FMHA runner (its constructor accepts SM100 and SM103 only)", TRTLLM_GEN_WAY_OUT),
    Raiser(re2.compile(r"TensorRT-LLM|tensorrt_llm|fmhaRunner\.cpp"),
           "TensorRT-LLM's own kernels (the file in parentheses names the runner; its FMHA runners list the SMs the "
           "build has kernels for)", TRTLLM_WAY_OUT),
    Raiser(re2.compile(r"\btvm\.error\.|tvm_ffi|\bTVM"),
           "a library whose compiled ops raise through TVM-FFI (FlashInfer's kernels do: its trtllm-gen FMHA, MoE and "
           "GEMM runners check for SM100/SM103)", TRTLLM_GEN_WAY_OUT),
)
UNNAMED = Raiser(None, "not named by the line: the traceback's last frames name it (deep_gemm is DeepGEMM, "
                       "flashinfer/trtllm is FlashInfer's trtllm-gen runners, flash_mla is FlashMLA); frames in an "
                       "installer or a CPU-side check (pip, setup.py, a platform test on an aarch64 host) print the "
                       "same words about the CPU, and then this is not the cause", UNNAMED_WAY_OUT)


def arch_gate_view(hits: Sequence[Any], engine: str | None = None) -> dict[str, Any]:
    """`log.arch_gate` for KRN140 ({} when its signature did not match)."""
    found = first_captures(hits, {GROUP: GROUP, WHERE: WHERE})
    if GROUP not in found:
        return {}
    words = f"{found[GROUP]} {found.get(WHERE, '')}"
    raiser = next((r for r in RAISERS if r.pattern.search(words)), UNNAMED)
    named = raiser is not UNNAMED
    return {"arch_gate": {"library": raiser.library, "way_out": _way_out(raiser.way_out, engine), "named": named,
                          "lead": "A kernel library refused" if named else
                          "If a GPU kernel library printed this line (the words before it do not say), it refused"}}


def _way_out(table: Mapping[str | None, str], engine: str | None) -> str:
    """The log's engine's setting; every engine's, each named, where the log's engine has none in the table."""
    if engine in table:
        return table[engine]
    if None in table:
        return table[None]
    return "; ".join(f"{name}: {text}" for name, text in table.items())
