"""Positive and boundary cases for the sweep10 rules (rules/sweep10.toml); test_rule_cases.py runs them with the rest
(and test_error_boundaries.py sweeps the error rules)."""

from __future__ import annotations

import dataclasses

from tests.rules.builders import a, build, lib

PRO, R5090, SPARK, H100, B200 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"
QWEN36, NANO_NVFP4, NANO_BF16 = ("Qwen/Qwen3.6-35B-A3B", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
                                 "Qwen/Qwen3-30B-A3B")
RAY, MP, TP2 = ("--distributed-executor-backend", "ray"), ("--distributed-executor-backend", "mp"), ("--tp", "2")


def vl_env(version, profile=SPARK, ray=None):
    """vLLM as a live probe finds it installed, with or without a ray distribution beside it."""
    libs = (lib("vllm", version),) + ((lib("ray", ray),) if ray else ())
    return lambda: build(profile, QWEN36, libs=libs)


SWEEP10_CASES = [
    a("VLLM430", True, "0.27.1 on two Sparks, Ray executor, no ray (ainode#84's image)", vl_env("0.27.1"), *RAY, *TP2),
    a("VLLM430", True, "0.18.0: the first release without ray, on a PRO 6000", vl_env("0.18.0", PRO), *RAY, *TP2),
    a("VLLM430", True, "0.33.0 on a 5090", vl_env("0.33.0", R5090), *RAY),
    a("VLLM430", False, "ray installed beside vLLM", vl_env("0.27.1", ray="2.48.0"), *RAY, *TP2),
    a("VLLM430", False, "0.17.1 requires ray[cgraph]", vl_env("0.17.1"), *RAY, *TP2),
    a("VLLM430", False, "the multiprocessing executor needs no Ray", vl_env("0.27.1"), *MP, *TP2),
    a("VLLM430", False, "no executor named", vl_env("0.27.1"), *TP2),
    a("VLLM430", False, "B200 (10.0): outside this doctor's scope", vl_env("0.27.1", B200), *RAY, *TP2),
    a("VLLM430", False, "Hopper: outside this doctor's scope", vl_env("0.27.1", H100), *RAY, *TP2),
]


GIB = 1 << 30


def fi_jit(version="0.6.12", model=NANO_NVFP4, profile=SPARK, nvcc="13.0", jit_cache=None, env=None, cpus=None,
           available_gib=None):
    """FlashInfer's Python package as the probe finds it, with nvcc and (or without) flashinfer-jit-cache; `cpus`
    and `available_gib` (MemAvailable) as a live probe of the host records them (a profile states neither)."""
    libs = (lib("flashinfer-python", version),) + ((lib("nvcc", nvcc),) if nvcc else ())
    libs += (lib("flashinfer-jit-cache", jit_cache),) if jit_cache else ()

    def facts():
        built = build(profile, model, ("vllm==0.23.0",), libs=libs, env=env)
        host = {"cpu_count": cpus} if cpus is not None else {}
        if available_gib is not None:
            host["memory_available_bytes"] = int(available_gib * GIB)
        return built.replace(host=dataclasses.replace(built.host, **host)) if host else built
    return facts


# The Nemotron-3-Nano NVFP4 weights the plan loads: 17.5 GiB. A Spark (20 cores: 22 jobs, 66 GiB at 3 GiB each)
# warns below 66 + 17.5 = 83.5 GiB available; a 16-core 5090 host (18 jobs, 54 GiB) below 54 GiB.
SWEEP10_CASES += [
    a("FI250", True, "flashinfer#3634: GB10, 0.6.12 JIT, 83 GiB available less 17.5 GiB of weights < 66 GiB",
      fi_jit(available_gib=83)),
    a("FI250", False, "the same Spark with 84 GiB available: 66.5 GiB left >= 22 x 3 GiB", fi_jit(available_gib=84)),
    a("FI250", True, "PR 3636's 5090 host, 16 cores, 53 GiB available < 18 x 3 GiB",
      fi_jit("0.6.14", profile=R5090, nvcc="13.1", cpus=16, available_gib=53)),
    a("FI250", False, "16 cores, 55 GiB available >= 54 GiB (discrete GPU: no weights taken)",
      fi_jit("0.6.14", profile=R5090, nvcc="13.1", cpus=16, available_gib=55)),
    a("FI250", False, "16 cores, 54.5 GiB available", fi_jit(profile=R5090, cpus=16, available_gib=54.5)),
    a("FI250", True, "17 cores, 54.5 GiB available: 19 x 3 GiB = 57",
      fi_jit(profile=R5090, cpus=17, available_gib=54.5)),
    a("FI250", True, "0.5.0: the first release read with both SM120 FP4 modules",
      fi_jit("0.5.0", profile=PRO, cpus=64, available_gib=100)),
    a("FI250", False, "0.4.1 has no SM120 CUTLASS FP4 module",
      fi_jit("0.4.1", profile=PRO, cpus=64, available_gib=100)),
    a("FI250", True, "0.7.4 still leaves ninja's default", fi_jit("0.7.4", available_gib=60)),
    a("FI250", False, "MAX_JOBS=4 caps ninja's -j: 12 GiB", fi_jit(env={"MAX_JOBS": "4"}, available_gib=60)),
    a("FI250", True, "MAX_JOBS=20 is a cap above what 53 GiB holds",
      fi_jit(profile=R5090, env={"MAX_JOBS": "20"}, cpus=16, available_gib=53)),
    a("FI250", True, "MAX_JOBS=0 is no cap to ninja (-j 0: infinity): the default stands",
      fi_jit(env={"MAX_JOBS": "0"}, available_gib=60)),
    a("FI250", False, "flashinfer-jit-cache ships the modules prebuilt", fi_jit(jit_cache="0.6.12", available_gib=60)),
    a("FI250", False, "no nvcc: nothing is compiled (FI003's matter)", fi_jit(nvcc=None, available_gib=60)),
    a("FI250", False, "a BF16 model runs no FP4 kernels", fi_jit(model=NANO_BF16, available_gib=60)),
    a("FI250", False, "B200 (10.0): outside this doctor's scope", fi_jit(profile=B200, cpus=64, available_gib=60)),
    a("FI250", False, "a profile, not a probe: the host was not measured (FI251)", fi_jit()),
]

DOUBLED = '{{"method": "dflash", "model": "z-lab/Qwen3.6-35B-A3B-DFlash", "num_speculative_tokens": 15}}'
PLAIN = '{"method": "mtp", "num_speculative_tokens": 3}'


def vl(version, profile=SPARK):
    return lambda: build(profile, QWEN36, (f"vllm=={version}",))


SWEEP10_CASES += [
    a("VLLM431", True, "sparkrun#195: spark-vllm-docker's {{ escape left in", vl("0.21.0"), "--speculative-config",
      DOUBLED),
    a("VLLM431", True, "0.11.1: the first release read, on a PRO 6000", vl("0.11.1", PRO), "--speculative-config",
      "{method: mtp}"),
    a("VLLM431", True, "0.33.0 on a 5090, a truncated value", vl("0.33.0", R5090), "--speculative-config",
      '{"method": "mtp"'),
    a("VLLM431", False, "plain JSON parses", vl("0.21.0"), "--speculative-config", PLAIN),
    a("VLLM431", False, "a dotted key's value is not JSON by design", vl("0.21.0"), "--speculative-config.method",
      "mtp"),
    a("VLLM431", False, "'None' is optional_type's no-config", vl("0.21.0"), "--speculative-config", "None"),
    a("VLLM431", False, "0.11.0: not read", vl("0.11.0"), "--speculative-config", DOUBLED),
    a("VLLM431", False, "B200 (10.0): outside this doctor's scope", vl("0.21.0", B200), "--speculative-config",
      DOUBLED),
    a("VLLM431", False, "Hopper: outside this doctor's scope", vl("0.21.0", H100), "--speculative-config", DOUBLED),
]
