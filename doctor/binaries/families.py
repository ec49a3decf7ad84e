"""Kernel families: which engine kernels (by mangled name) a file holds, and for which archs.

The table maps mangled kernel names to the families engines dispatch to. Patterns were written against
the kernel names in real wheels: vllm 0.33.0 (`_C_stable_libtorch`, `_moe_C_stable_libtorch`,
`_flashmla_C`, `vllm_flash_attn/_vllm_fa2_C`, `_vllm_fa3_C`) and sgl-kernel 0.3.21 (`common_ops`,
`flash_ops`, `flashmla_ops`). The first family whose pattern matches a name wins.

Arch gates: vLLM wraps CUTLASS kernels in `enable_smXX_to_smYY<Kernel>` and friends, whose body is
compiled out (a trap) unless `__CUDA_ARCH__` of the image is in range, so an sm_120 image of an
`enable_sm89_to_sm90<...>` kernel exists but cannot do its work (vllm-project/vllm
csrc/libtorch_stable/cutlass_extensions/common.hpp; FlashAttention's `flash::enable_sm90_or_later` and
`flash::enable_sm80_to_sm89` follow the same scheme).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from doctor.binaries.archs import sort_tokens


@dataclass(frozen=True)
class Family:
    """`keywords`: literal pieces, one of which every kernel name of the family contains (a fast
    filter); `pattern`: the exact test, a regex over the mangled name."""

    name: str
    keywords: tuple[str, ...]
    pattern: str
    what: str


def _family(name: str, pattern: str, what: str, keywords: tuple[str, ...] | None = None) -> Family:
    return Family(name, keywords or tuple(pattern.split("|")), pattern, what)


FAMILIES = (
    _family("flash_mla", "flash_fwd_splitkv_mla|flash_fwd_mla|sparse_attn_fwd|get_mla_metadata",
            "FlashMLA (DeepSeek MLA decode)"),
    _family("cutlass_mla", "FmhaMla", "CUTLASS MLA decode (cutlass::fmha Sm100FmhaMla*)"),
    _family("flash_attention", r"(?<![0-9])5flash(?![A-Za-z_])|13pytorch_flash",
            "FlashAttention 2/3 (namespace flash; torch's copy pytorch_flash)", ("5flash", "13pytorch_flash")),
    _family("marlin_moe", "marlin_moe", "Marlin MoE GEMM (marlin_moe_wna16)"),
    _family("marlin", "marlin", "Marlin weight-only GEMM (GPTQ/AWQ/FP8 marlin)"),
    _family("machete", r"(?<![0-9])7machete(?![A-Za-z_])", "Machete mixed-input GEMM (Hopper)", ("7machete",)),
    _family("cutlass_moe_mm", "cutlass_3x_group_gemm|GroupProblemShape",
            "CUTLASS grouped GEMM for MoE (cutlass_moe_mm)"),
    _family("cutlass_scaled_mm", r"cutlass_3x_gemm|DefaultGemmWithVisitor|ScaledEpilogue"
                                 r"|enable_sm\d+\w*INS_4gemm6kernel13GemmUniversal",
            "CUTLASS GEMMs behind cutlass_scaled_mm (FP8/INT8, blockwise FP8, FP4): c2x visitors, "
            "cutlass_3x_gemm, arch-gated GemmUniversal",
            ("cutlass_3x_gemm", "DefaultGemmWithVisitor", "ScaledEpilogue", "GemmUniversal")),
    _family("moe_routing", r"(?<![0-9])3moe(?![A-Za-z_])|topkGating|moe_align_block_size|moe_sum|moe_fused_gate"
                           r"|grouped_topk|expert_tokens|moe_wna16",
            "MoE routing, alignment and reduction kernels around fused_moe",
            ("3moe", "topkGating", "moe_align_block_size", "moe_sum", "moe_fused_gate", "grouped_topk",
             "expert_tokens", "moe_wna16")),
    _family("flashinfer", r"(?<![0-9])10flashinfer(?![A-Za-z_])",
            "FlashInfer kernels built into the library (RoPE, norm, sampling)", ("10flashinfer",)),
    _family("gguf", "mul_mat_vec_q|moe_vec_q|dequantize_block|mul_mat_q", "GGUF dequantize and matmul"),
    _family("fp4_quant", "cvt_fp16_to_fp4|fp4_quant", "NVFP4/MXFP4 activation quantization"),
    _family("fp8_quant", "per_token_group_quant|scaled_fp8_quant|per_token_quant", "FP8 activation quantization"),
    _family("custom_allreduce", "cross_device_reduce|lamport|all_reduce|allreduce", "custom all-reduce"),
    _family("mamba", "selective_scan|causal_conv1d", "Mamba selective scan and causal conv1d"),
)
_EACH = tuple((f, re.compile(f.pattern)) for f in FAMILIES)
_KEYWORDS = tuple(sorted({k for f in FAMILIES for k in f.keywords}))
WHAT = {f.name: f.what for f in FAMILIES}

# Marlin kernels by the activation type they take: the first template argument of `Marlin<...>` is the
# activation's C++ type in older releases (`__nv_bfloat16`, `half`: 16-bit only) and a vllm::ScalarType id from
# the releases with FP8/INT8 activations (csrc/core/scalar_type.hpp: exponent bits 0-7, mantissa 8-15, signed
# bit 16). vLLM builds the two halves for different arch lists (CMakeLists.txt MARLIN_MOE_ARCHS vs
# MARLIN_MOE_FP8_ARCHS), so a family can run natively for W4A8-FP8 and only through PTX for W4A16.
_MARLIN_FAMILIES = ("marlin", "marlin_moe")
_MARLIN_ACTIVATION = re.compile(r"6MarlinI(?:(6__half|13__nv_bfloat16)|Ll(\d+)E)")
_SIXTEEN_BIT = {(8, 7), (5, 10)}  # (exponent, mantissa): bfloat16, float16

_GATE = re.compile(r"enable_sm(\d+)(?:_to_sm(\d+)|_or_later|a?_only|_family)")
_UNBOUNDED = 10_000


def family_of(kernel: str, keywords: tuple[str, ...] = _KEYWORDS) -> str | None:
    """The first family whose pattern matches; `keywords` narrows the families worth testing."""
    for family, pattern in _EACH:
        if any(k in keywords and k in kernel for k in family.keywords) and pattern.search(kernel):
            return family.name
    return None


def _present_keywords(names) -> tuple[str, ...]:
    """Keywords found anywhere in a batch of names: one C-level pass per keyword over the batch, so a
    library with no family kernels (cuFFT) costs almost nothing."""
    blob = "\n".join(names)
    return tuple(k for k in _KEYWORDS if k in blob)


@lru_cache(maxsize=1 << 16)
def arch_gate(kernel: str) -> tuple[int, int] | None:
    """[low, high) of image arch numbers whose body is real, from an `enable_sm...` wrapper; None: no gate."""
    match = _GATE.search(kernel)
    if match is None:
        return None
    low = int(match.group(1))
    text = match.group(0)
    if match.group(2):
        return low, int(match.group(2))
    if text.endswith("_or_later"):
        return low, _UNBOUNDED
    if text.endswith("_family"):
        return low, (low // 10 + 1) * 10
    return low, low + 1


def activation_variant(kernel: str) -> str | None:
    """`a16` for a Marlin kernel taking 16-bit activations, `a8` for 8-bit ones (FP8/INT8), None otherwise."""
    match = _MARLIN_ACTIVATION.search(kernel)
    if match is None:
        return None
    if match.group(1):
        return "a16"
    type_id = int(match.group(2))
    return "a16" if (type_id & 0xFF, (type_id >> 8) & 0xFF) in _SIXTEEN_BIT else "a8"


class FamilyIndex:
    """Collects each kernel's images (kernel name -> arch tokens); families are assigned at the end, with
    one keyword pass over all names, so a library with no family kernels (cuFFT) costs almost nothing."""

    def __init__(self) -> None:
        self.images: dict[str, set[str]] = {}

    def add(self, names: set[str], token: str) -> None:
        images = self.images
        for name in names:
            found = images.get(name)
            if found is None:
                images[name] = {token}
            else:
                found.add(token)

    def family_kernels(self) -> dict[str, str]:
        """kernel name -> family, for the kernels that belong to one."""
        keywords = _present_keywords(self.images)
        if not keywords:
            return {}
        return {name: family for name in self.images if (family := family_of(name, keywords))}

    def kernel_archs(self) -> list[tuple[list[str], int]]:
        """Every kernel, grouped by the set of images it has: [(tokens, kernels), ...]."""
        groups = Counter(frozenset(tokens) for tokens in self.images.values())
        return [(sort_tokens(tokens), count) for tokens, count in groups.most_common()]

    def to_dict(self) -> dict[str, dict]:
        """family -> {"kernels": n, "kernel_archs": [[tokens, gate or None, count], ...]} (JSON-able); Marlin
        families also keep `variants`: activation variant (activation_variant) -> kernel_archs of its kernels."""
        groups: dict[str, Counter] = {}
        variants: dict[tuple[str, str], Counter] = {}
        for name, family in self.family_kernels().items():
            key = (tuple(sort_tokens(self.images[name])), arch_gate(name))
            groups.setdefault(family, Counter())[key] += 1
            variant = activation_variant(name) if family in _MARLIN_FAMILIES else None
            if variant:
                variants.setdefault((family, variant), Counter())[key] += 1
        out = {family: {"kernels": sum(counts.values()), "kernel_archs": archs_list(counts)}
               for family, counts in sorted(groups.items())}
        for (family, variant), counts in sorted(variants.items()):
            out[family].setdefault("variants", {})[variant] = archs_list(counts)
        return out


def archs_list(counts: Counter) -> list[list]:
    """Counted (arch tokens, arch gate) images as JSON-able [[tokens, gate or None, count], ...], most first."""
    return [[list(tokens), list(gate) if gate else None, count] for (tokens, gate), count in counts.most_common()]
