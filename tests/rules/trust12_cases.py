"""Positive and boundary cases for rules/trust12.toml (FI251: FlashInfer's SM120 FP4 JIT build where the doctor
cannot say it runs out of memory); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import a, build, lib
from tests.rules.famarch_cases import in_image, vl
from tests.rules.sweep10_cases import B200, NANO_BF16, PRO, R5090, SPARK, fi_jit

NGC_26_05, NGC_26_02 = "nvcr.io/nvidia/vllm:26.05.post1-py3", "nvcr.io/nvidia/vllm:26.02-py3"

TRUST12_CASES = [
    a("FI251", True, "a Spark profile: 20 cores, available memory not measured", fi_jit()),
    a("FI251", True, "a 5090 profile states no cores and no memory", fi_jit(profile=R5090)),
    a("FI251", True, "measured: 22 x 3 GiB fits 84 - 17.5 GiB, 22 x 8 GiB does not", fi_jit(available_gib=84)),
    a("FI251", False, "measured: the low end exceeds it (FI250's warning instead)", fi_jit(available_gib=83)),
    a("FI251", False, "measured: 18 x 8 GiB = 144 GiB fits 150 GiB",
      fi_jit(profile=R5090, cpus=16, available_gib=150)),
    a("FI251", True, "measured: 18 x 8 GiB = 144 GiB exceeds 143 GiB",
      fi_jit(profile=R5090, cpus=16, available_gib=143)),
    a("FI251", False, "not measured, MAX_JOBS set: the user bounded it", fi_jit(env={"MAX_JOBS": "4"})),
    a("FI251", False, "flashinfer-jit-cache ships the modules prebuilt", fi_jit(jit_cache="0.6.12")),
    a("FI251", False, "no nvcc: nothing is compiled", fi_jit(nvcc=None)),
    a("FI251", False, "0.4.1 has no SM120 CUTLASS FP4 module", fi_jit("0.4.1", profile=PRO)),
    a("FI251", False, "a BF16 model runs no FP4 kernels", fi_jit(model=NANO_BF16)),
    a("FI251", False, "B200 (10.0): outside this doctor's scope", fi_jit(profile=B200)),
]

# A container image carries its own build: the PyPI wheel's kernel images are held, and DSP064 says so.
TRUST12_CASES += [
    a("DSP062", True, "0.22.0 on GB10 from the PyPI wheel: Marlin MoE a16 is PTX only", vl("0.22.0", profile=SPARK)),
    in_image(a("DSP062", False, "the same in NGC's 26.05 container: NVIDIA's build", vl("0.22.0", profile=SPARK)),
             NGC_26_05),
    in_image(a("DSP064", True, "held in NGC's 26.05 container: not checked, the build is not PyPI's",
               vl("0.22.0", profile=SPARK)), NGC_26_05),
    in_image(a("DSP064", True, "NGC 26.02 (no table row: the stated engine stays)", vl("0.22.0", profile=SPARK)),
             NGC_26_02),
    a("DSP064", False, "no container: the PyPI wheel is judged (DSP062)", vl("0.22.0", profile=SPARK)),
    in_image(a("DSP064", False, "B200 (10.0) in a container: outside this doctor's scope", vl("0.22.0", profile=B200)),
             NGC_26_05),
]

# FI003 reads nvcc's absence: only where the environment was probed, not beside a what-if engine
TRUST12_CASES += [
    a("FI003", True, "probed: vLLM and FlashInfer installed, no nvcc",
      lambda: build(PRO, "meta-llama/Llama-3.1-8B-Instruct", libs=(lib("vllm", "0.24.0"), lib("flashinfer-python",
                                                                                              "0.6.12")))),
    a("FI003", False, "the same with nvcc found",
      lambda: build(PRO, "meta-llama/Llama-3.1-8B-Instruct", libs=(lib("vllm", "0.24.0"), lib("flashinfer-python",
                                                                                              "0.6.12"),
                                                                   lib("nvcc", "13.0.88")))),
    a("FI003", False, "--engine vllm==0.24.0: its environment was not read",
      lambda: build(PRO, "meta-llama/Llama-3.1-8B-Instruct", ("vllm==0.24.0",))),
    a("FI003", True, "FlashInfer probed with no engine analysed", lambda: build(PRO, libs=(lib("flashinfer-python",
                                                                                             "0.6.7"),))),
]
