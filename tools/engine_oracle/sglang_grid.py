"""The SGLang grid: the same model shapes as vLLM's (grid.py: configs, checkpoint formats, KV-cache dtypes,
control devices), launched with `sglang.launch_server` flags, plus the choices SGLang users force (an
attention backend, a MoE runner backend) and SGLang's own switch for DeepGEMM. A forced value the release
does not offer is recorded as argparse's refusal (kind `flag`), not as a dispatch decision."""

from __future__ import annotations

from tools.engine_oracle.grid import Query, shapes, with_quant

BASE_FLAGS = ("--load-format", "dummy", "--skip-tokenizer-init")
# How users launch each checkpoint format: NVIDIA's ModelOpt NVFP4 checkpoints with `--quantization
# modelopt_fp4` (SGLang's docs; a bare `modelopt` quant_method is read as FP8 by 0.5.x), the rest as shipped.
FORMAT_FLAGS = {"nvfp4": ("--quantization", "modelopt_fp4")}
KV_FP8 = ("--kv-cache-dtype", "fp8_e4m3")
# SGLang's switch for its JIT DeepGEMM (`deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM` reads it): asked for block-FP8
# shapes, so a table shows what SGLang picks without DeepGEMM.
NO_DEEP_GEMM = (("SGLANG_ENABLE_JIT_DEEPGEMM", "0"),)
ENV_KEYS = ("SGLANG_ENABLE_JIT_DEEPGEMM",)

# (shape, format) -> attention backends users force on SM12x (issue reports, SGLang docs)
FORCED_ATTENTION: dict[tuple[str, str], tuple[str, ...]] = {
    ("mla-moe", "native"): ("flashinfer", "fa3", "flashmla", "trtllm_mla", "cutlass_mla", "fa4"),
    ("gqa-h128-dense", "bf16"): ("flashinfer", "fa3", "fa4", "trtllm_mha"),
    ("gqa-h64-swa-sinks-moe", "native"): ("flashinfer", "fa3", "trtllm_mha"),
    ("gqa-h256-linear-moe", "bf16"): ("flashinfer", "fa3"),
    ("mla-sparse-moe", "native"): ("flashmla", "trtllm_mla"),
}
# (shape, format) -> MoE runner backends users force
FORCED_MOE: dict[tuple[str, str], tuple[str, ...]] = {
    ("mla-moe", "native"): ("triton", "deep_gemm", "flashinfer_trtllm", "cutlass"),
    ("gqa-h128-moe", "nvfp4"): ("flashinfer_trtllm", "flashinfer_cutlass", "cutlass", "triton"),
    ("gqa-h64-swa-sinks-moe", "native"): ("triton_kernel", "flashinfer_mxfp4", "marlin", "triton"),
}
DEEP_GEMM_VARIANTS = {("mla-moe", "native"), ("gqa-h128-moe", "fp8-block"), ("gqa-h128-dense", "fp8-block")}
# Block-FP8 shapes are also asked with each explicit `--fp8-gemm-backend` (from 0.5.7; older releases refuse the
# flag: kind `flag`), so a table shows which explicit GEMM avoids a kernel with no code for the GPU.
FORCED_FP8_GEMM = ("triton", "cutlass", "flashinfer_trtllm")


def _as_shipped(shape: str, config: dict) -> dict:
    """The DeepSeek-V3.2 checkpoints ship no `auto_map` (SGLang then loads their `deepseek_v32` config its own
    way, hf_transformers_utils._load_deepseek_v32_model); the grid's V3.2 shape is V3's config, which has one."""
    if shape != "mla-sparse-moe":
        return config
    return {k: v for k, v in config.items() if k != "auto_map"}


def _flags(quant: str, *extra: str) -> tuple[str, ...]:
    return (*BASE_FLAGS, *FORMAT_FLAGS.get(quant, ()), *extra)


def queries(control: bool = False) -> list[Query]:
    """Every (shape, format, KV dtype) the grid asks about, the forced backends and the DeepGEMM switch;
    the control devices get each shape's control formats only."""
    asked = []
    for shape in shapes():
        for quant in shape.controls if control else shape.quants:
            config = _as_shipped(shape.name, with_quant(shape.config, quant))
            asked.append(Query(f"{shape.name}:{quant}", shape.name, quant, _flags(quant), config))
            if quant in FORMAT_FLAGS and not control:  # the checkpoint launched without the format flag
                asked.append(Query(f"{shape.name}:{quant}+bare", shape.name, quant, BASE_FLAGS, config))
            if quant in shape.kv_fp8:
                asked.append(Query(f"{shape.name}:{quant}+kv-fp8", shape.name, quant, _flags(quant, *KV_FP8),
                                   config))
            if control:
                continue
            for backend in FORCED_ATTENTION.get((shape.name, quant), ()):
                asked.append(Query(f"{shape.name}:{quant}+attn={backend}", shape.name, quant,
                                   _flags(quant, "--attention-backend", backend), config))
            for backend in FORCED_MOE.get((shape.name, quant), ()):
                asked.append(Query(f"{shape.name}:{quant}+moe={backend}", shape.name, quant,
                                   _flags(quant, "--moe-runner-backend", backend), config))
            for backend in FORCED_FP8_GEMM if (shape.name, quant) in DEEP_GEMM_VARIANTS else ():
                asked.append(Query(f"{shape.name}:{quant}+fp8-gemm={backend}", shape.name, quant,
                                   _flags(quant, "--fp8-gemm-backend", backend), config))
            if (shape.name, quant) in DEEP_GEMM_VARIANTS:
                suffix = ",".join(f"{k}={v}" for k, v in NO_DEEP_GEMM)
                asked.append(Query(f"{shape.name}:{quant}+env={suffix}", shape.name, quant, _flags(quant),
                                   config, NO_DEEP_GEMM))
    return asked
