"""Cases for the engine-pin consistency rules (rules/pin_check.toml, doctor/engines/pin_check.py): each firing case
beside one just outside its boundary (the pinned version itself, the release before the check, a patch-only
difference, a pair measured to resolve, a release the tables do not hold). test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

R5090, SPARK, H100 = "rtx-5090", "dgx-spark", "h100-sxm-x8"
QWEN = "Qwen/Qwen3-8B"


def stack(engine: str, profile: str = R5090, env: dict[str, str] | None = None,
          **versions: str) -> Callable[[], Facts]:
    """`engine` as a what-if with the packages in `versions` installed beside it (`flashinfer_cubin` for
    flashinfer-cubin; a `+cuXXX` torch carries that CUDA build)."""
    libs = tuple(lib(name.replace("_", "-"), version, **_torch_build(name, version))
                 for name, version in versions.items())
    return lambda: build(profile, QWEN, (engine,), libs=libs, env=env)


def _torch_build(name: str, version: str) -> dict[str, str]:
    label = version.partition("+")[2]
    if name != "torch" or not label.startswith("cu"):
        return {}
    return {"cuda_version": f"{label[2:-1]}.{label[-1]}"}


FI = {"flashinfer_python": "0.6.16.post3"}
FI_ATTN = ("--attention-backend", "FLASHINFER")

PINCHECK_CASES = [
    # PIN001 / PIN007: FlashInfer's import-time check, per release and comparison; an error where the run's
    # analysis puts FlashInfer on its path (here `--attention-backend FLASHINFER`), a warning elsewhere
    a("PIN001", True, "flashinfer#4781's pair (0.6.16.post3 with the stale cubin 0.6.13), FlashInfer attention",
      stack("vllm==0.28.0", SPARK, flashinfer_cubin="0.6.13", **FI), *FI_ATTN),
    a("PIN001", False, "the same pair, FLASH_ATTN chosen: PIN007's warning", stack("vllm==0.28.0", SPARK,
                                                                                flashinfer_cubin="0.6.13", **FI)),
    a("PIN007", True, "flashinfer#4781: vLLM 0.28.0 on GB10, no FlashInfer backend analysed",
      stack("vllm==0.28.0", SPARK, flashinfer_cubin="0.6.13", **FI)),
    a("PIN007", False, "the same pair with FlashInfer attention: PIN001's error",
      stack("vllm==0.28.0", SPARK, flashinfer_cubin="0.6.13", **FI), *FI_ATTN),
    a("PIN007", False, "FLASHINFER_DISABLE_VERSION_CHECK=1 (syv-ai/qwen38-27b-rtx3090#35's launchers)",
      stack("vllm==0.27.1", env={"FLASHINFER_DISABLE_VERSION_CHECK": "1"}, flashinfer_cubin="0.6.13", **FI)),
    a("PIN001", True, "the same pair on an H100: FlashInfer's check is the same on every GPU",
      stack("vllm==0.28.0", H100, flashinfer_cubin="0.6.13", **FI), *FI_ATTN),
    a("PIN001", False, "the matching cubin", stack("vllm==0.25.1", flashinfer_python="0.6.13",
                                                   flashinfer_cubin="0.6.13"), *FI_ATTN),
    a("PIN001", False, "FLASHINFER_DISABLE_VERSION_CHECK=1 skips the check",
      stack("vllm==0.28.0", env={"FLASHINFER_DISABLE_VERSION_CHECK": "1"}, flashinfer_cubin="0.6.13", **FI),
      *FI_ATTN),
    a("PIN001", False, "FLASHINFER_CUBIN_DIR set: not judged",
      stack("vllm==0.28.0", env={"FLASHINFER_CUBIN_DIR": "/cubins"}, flashinfer_cubin="0.6.13", **FI), *FI_ATTN),
    a("PIN001", False, "a cubin only implied by vLLM 0.25.1's pin is the pin: not compared",
      stack("vllm==0.25.1", flashinfer_python="0.6.16.post3"), *FI_ATTN),
    a("PIN001", True, "0.5.0, the first release the table holds, with cubin 0.4.1",
      stack("vllm==0.25.1", flashinfer_python="0.5.0", flashinfer_cubin="0.4.1"), *FI_ATTN),
    a("PIN001", False, "flashinfer-python 0.4.1, before the table: not derived",
      stack("vllm==0.25.1", flashinfer_python="0.4.1", flashinfer_cubin="0.4.0"), *FI_ATTN),
    a("PIN001", True, "jit-cache of another release (prefix comparison up to 0.6.18.post1)",
      stack("vllm==0.25.1", flashinfer_python="0.6.13", flashinfer_jit_cache="0.6.3+cu130"), *FI_ATTN),
    a("PIN001", False, "jit-cache 0.6.13+cu130 beside 0.6.13: its CUDA label passes",
      stack("vllm==0.25.1", flashinfer_python="0.6.13", flashinfer_jit_cache="0.6.13+cu130"), *FI_ATTN),
    a("PIN001", False, "0.6.18: jit-cache 0.6.18.post1+cu130 starts with 0.6.18, the prefix check passes it",
      stack("vllm==0.29.0", flashinfer_python="0.6.18", flashinfer_jit_cache="0.6.18.post1+cu130"), *FI_ATTN),
    a("PIN001", True, "0.7.0: the same jit-cache pair now needs the exact version with a local label",
      stack("vllm==0.31.0", flashinfer_python="0.7.0", flashinfer_jit_cache="0.7.0.post1+cu130"), *FI_ATTN),
    # PIN002: measured pairs whose core extension misses torch symbols
    a("PIN002", True, "vLLM 0.11.0 (torch==2.8.0) with torch 2.9.0: _C.abi3.so misses c10::SymInt::sym_ne",
      stack("vllm==0.11.0", torch="2.9.0")),
    a("PIN002", True, "the same pair on an H100: the import fails on any GPU", stack("vllm==0.11.0", H100,
                                                                                        torch="2.9.0")),
    a("PIN002", False, "vLLM 0.11.0 with its own torch 2.8.0", stack("vllm==0.11.0", torch="2.8.0")),
    a("PIN002", False, "vLLM 0.11.1 pins torch 2.9.0", stack("vllm==0.11.1", torch="2.9.0")),
    a("PIN002", True, "sglang-kernel 0.4.4 (beside torch 2.11.0) with torch 2.12.0: common_ops misses 4",
      stack("sglang==0.5.14", sgl_kernel="0.4.4", torch="2.12.0")),
    a("PIN002", True, "sgl-kernel 0.3.16.post4 (beside torch 2.8.0) with torch 2.9.0",
      stack("sglang==0.5.4.post1", sgl_kernel="0.3.16.post4", torch="2.9.0")),
    a("PIN002", False, "sglang-kernel 0.4.4 with its torch 2.11.0", stack("sglang==0.5.14", sgl_kernel="0.4.4",
                                                                          torch="2.11.0")),
    a("PIN002", False, "the kernel only implied by SGLang's pin: a warning (PIN003)",
      stack("sglang==0.5.14", torch="2.12.0")),
    a("PIN002", False, "vLLM 0.12.0 (torch 2.9.0) on torch 2.8.0: measured, _C loads", stack("vllm==0.12.0",
                                                                                             torch="2.8.0")),
    a("PIN002", False, "vLLM 0.24.0's stable-ABI _C on torch 2.12.0: measured, loads", stack("vllm==0.24.0",
                                                                                             torch="2.12.0")),
    a("PIN002", False, "a release the pins table does not hold (vLLM 0.8.5)", stack("vllm==0.8.5", torch="2.9.0")),
    # PIN003: another minor, core loads or not measured
    a("PIN003", True, "vLLM 0.24.0 on torch 2.12.0: FA2/FA3/FlashMLA/QuTLASS miss torch::Library::_def",
      stack("vllm==0.24.0", torch="2.12.0")),
    a("PIN003", True, "vLLM 0.12.0 on torch 2.8.0: FA2/FA3 miss symbols", stack("vllm==0.12.0", torch="2.8.0")),
    a("PIN003", True, "vLLM 0.13.0 (torch 2.9.0) on torch 2.10.0: not measured", stack("vllm==0.13.0",
                                                                                       torch="2.10.0")),
    a("PIN003", True, "SGLang 0.5.14 with torch 2.12.0 and its kernel only implied",
      stack("sglang==0.5.14", torch="2.12.0")),
    a("PIN003", False, "an installed, unmeasured SGLang kernel is SGL181's",
      stack("sglang==0.5.9", sgl_kernel="0.3.21", torch="2.10.0")),
    a("PIN003", False, "vLLM 0.13.0 with its torch 2.9.0", stack("vllm==0.13.0", torch="2.9.0")),
    a("PIN003", False, "the measured error pair is PIN002's", stack("vllm==0.11.0", torch="2.9.0")),
    a("SGL181", False, "a pair PIN002 measured (sglang-kernel 0.4.4, torch 2.12.0)",
      stack("sglang==0.5.14", sgl_kernel="0.4.4", torch="2.12.0")),
    a("SGL181", True, "an installed kernel pair nobody measured (0.3.21 beside 2.9.1, torch 2.10.0)",
      stack("sglang==0.5.9", sgl_kernel="0.3.21", torch="2.10.0")),
    # PIN004: a patch-level difference
    a("PIN004", True, "vLLM 0.13.0 (torch 2.9.0) on torch 2.9.1: not measured", stack("vllm==0.13.0",
                                                                                      torch="2.9.1")),
    a("PIN004", False, "vLLM 0.12.0 on torch 2.9.1: measured, every symbol resolves", stack("vllm==0.12.0",
                                                                                            torch="2.9.1")),
    a("PIN004", False, "a +cu130 build of the pinned torch is the same release", stack("vllm==0.13.0",
                                                                                       torch="2.9.0+cu130")),
    # PIN005: other exact pins
    a("PIN005", True, "vLLM 0.24.0 pins nvidia-cutlass-dsl 4.5.2; 4.5.0 installed",
      stack("vllm==0.24.0", nvidia_cutlass_dsl="4.5.0")),
    a("PIN005", True, "vLLM 0.28.0 pins flashinfer-python 0.6.16.post3; 0.6.18 installed",
      stack("vllm==0.28.0", flashinfer_python="0.6.18")),
    a("PIN005", False, "the pinned nvidia-cutlass-dsl", stack("vllm==0.24.0", nvidia_cutlass_dsl="4.5.2")),
    a("PIN005", False, "packages only implied by the pins", stack("vllm==0.24.0")),
    a("PIN005", False, "a release outside the pins table", stack("vllm==0.8.5", flashinfer_python="0.6.18")),
    # PIN006: the CUDA runtime of vLLM's PyPI wheel
    a("PIN006", True, "vllm#31424: vLLM 0.12.0 from PyPI (libcudart.so.12) on GB10 with a CUDA 13 torch",
      stack("vllm==0.12.0", SPARK, torch="2.9.0+cu130")),
    a("PIN006", True, "vLLM 0.20.0 (libcudart.so.13) with a cu128 torch", stack("vllm==0.20.0",
                                                                                torch="2.11.0+cu128")),
    a("PIN006", False, "vLLM 0.19.1 (CUDA 12) with a cu128 torch", stack("vllm==0.19.1", torch="2.10.0+cu128")),
    a("PIN006", False, "vLLM 0.20.0 (CUDA 13) with a cu130 torch", stack("vllm==0.20.0", torch="2.11.0+cu130")),
    a("PIN006", False, "vLLM's own +cu130 wheel", stack("vllm==0.12.0+cu130", SPARK, torch="2.9.0+cu130")),
    a("PIN006", False, "torch's CUDA not known", stack("vllm==0.12.0", SPARK, torch="2.9.0")),
]
