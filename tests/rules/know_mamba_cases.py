"""Positive and boundary cases for rules/hybrid_state.toml (task know-mamba, issue 25): a hybrid model's
Mamba/linear-attention state blocks against vLLM's max_num_seqs. test_rule_cases.py runs them and
tests/rules/test_error_boundaries.py sweeps each error rule's bounds from its positive cases here."""

from __future__ import annotations

from tests.rules.builders import Case, a, build
from tests.rules.log_line_cases import OTHER, SM12X, logged

QWEN36_27B, QWEN3_32B = "Qwen/Qwen3.6-27B", "Qwen/Qwen3-32B"
QWEN36_27B_NVFP4 = "nvidia/Qwen3.6-27B-NVFP4"
MAXQ = "rtx-pro-6000-maxq"


def vllm(version, model=QWEN36_27B, profile=MAXQ):
    return lambda: build(profile, model, (f"vllm=={version}",))


KNOW_MAMBA_CASES = [
    # VLLM170: max_num_seqs above the pool's state blocks, FULL CUDA graphs, vLLM >= 0.20.0
    a("VLLM170", True, "Qwen3.6-27B BF16 on one 96 GB card: ~690 blocks < a stated 1024", vllm("0.24.0"),
      "--max-num-seqs", "1024"),
    a("VLLM170", True, "0.20.0, the first release that raises", vllm("0.20.0"), "--max-num-seqs", "1024"),
    a("VLLM170", True, "0.33.0, the newest release read", vllm("0.33.0"), "--max-num-seqs", "1024"),
    a("VLLM170", True, "Qwen3.6-27B NVFP4 on an RTX 5090: ~137 blocks < a stated 256",
      vllm("0.24.0", QWEN36_27B_NVFP4, "rtx-5090"), "--max-num-seqs", "256"),
    a("VLLM170", False, "the same, max_num_seqs left to vLLM's default: VLLM171's warning",
      vllm("0.24.0", QWEN36_27B_NVFP4, "rtx-5090")),
    a("VLLM170", False, "0.19.1 only caps the capture sizes (a warning)", vllm("0.19.1"), "--max-num-seqs", "1024"),
    a("VLLM170", False, "a model without Mamba/GDN layers", vllm("0.24.0", QWEN3_32B), "--max-num-seqs", "1024"),
    a("VLLM170", False, "--max-num-seqs below the blocks", vllm("0.24.0"), "--max-num-seqs", "512"),
    a("VLLM170", False, "--enforce-eager: no FULL graphs, no check", vllm("0.24.0"), "--max-num-seqs", "1024",
      "--enforce-eager"),
    a("VLLM170", False, "cudagraph mode PIECEWISE: no FULL graphs", vllm("0.24.0"), "--max-num-seqs", "1024",
      "-cc.cudagraph_mode=PIECEWISE"),
    a("VLLM170", False, "within the estimate's margin: VLLM171's warning, not an error", vllm("0.24.0"),
      "--max-num-seqs", "720"),
    a("VLLM170", False, "TP2 halves each block: ~1.9k blocks on two cards", vllm("0.24.0", profile="rtx-pro-6000-x2"),
      "--tensor-parallel-size", "2"),
    # VLLM171: within 2 GiB of the boundary
    a("VLLM171", True, "720 sequences against ~708 planned blocks", vllm("0.24.0"), "--max-num-seqs", "720"),
    a("VLLM171", True, "Qwen3.6-35B-A3B NVFP4 on an RTX 5090: ~298 blocks, 256 sequences",
      vllm("0.24.0", "nvidia/Qwen3.6-35B-A3B-NVFP4", "rtx-5090")),
    a("VLLM171", False, "far below the blocks", vllm("0.24.0"), "--max-num-seqs", "256"),
    a("VLLM171", False, "0.19.1: no check", vllm("0.19.1"), "--max-num-seqs", "720"),
    a("VLLM171", True, "short even with the margin, but max_num_seqs is vLLM's default (1024): a warning",
      vllm("0.24.0")),
    a("VLLM171", False, "short for sure with a stated --max-num-seqs: VLLM170's error instead", vllm("0.24.0"),
      "--max-num-seqs", "1024"),
]


def vllm_env(version, env, model="Qwen/Qwen3.5-27B", profile="rtx-5090"):
    return lambda: build(profile, model, (f"vllm=={version}",), env=env)


QWEN35_27B = "Qwen/Qwen3.5-27B"
KNOW_MAMBA_CASES += [
    # VLLM172: FLA solve_tril's TMA path on SM12x
    a("VLLM172", True, "Qwen3.5-27B on an RTX 5090, vLLM 0.17.0 (vllm#36325)", vllm("0.17.0", QWEN35_27B, "rtx-5090")),
    a("VLLM172", True, "0.12.0, a release with the TMA path", vllm("0.12.0", QWEN35_27B, "rtx-5090")),
    a("VLLM172", True, "0.19.0, the last release with TMA on by default", vllm("0.19.0", QWEN36_27B, "rtx-pro-6000")),
    a("VLLM172", True, "GB10 (12.1) takes the same path", vllm("0.17.0", QWEN36_27B, "dgx-spark")),
    a("VLLM172", True, "0.24.0 with FLA_USE_TMA=1: is_nvidia_hopper passes SM12x",
      vllm_env("0.24.0", {"FLA_USE_TMA": "1"})),
    a("VLLM172", True, "0.11.0: no TMA path yet, but the autotune at the first request (before 0.18.0)",
      vllm("0.11.0", QWEN35_27B, "rtx-5090")),
    a("VLLM172", False, "0.10.0: before Qwen3-Next support and the vendored FLA (0.10.2)",
      vllm("0.10.0", QWEN35_27B, "rtx-5090")),
    a("VLLM172", False, "0.20.0: TMA opt-in", vllm("0.20.0", QWEN35_27B, "rtx-5090")),
    a("VLLM172", False, "0.24.0 with FLA_USE_TMA=0", vllm_env("0.24.0", {"FLA_USE_TMA": "0"})),
    a("VLLM172", False, "H100: TMA works on Hopper", vllm("0.17.0", QWEN35_27B, "h100-sxm-x8")),
    a("VLLM172", False, "B200: not reported", vllm("0.17.0", QWEN35_27B, "b200-x8")),
    a("VLLM172", False, "Nemotron-H (Mamba2): no gated-delta-rule prefill",
      vllm("0.17.0", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "rtx-pro-6000")),
    a("VLLM172", False, "a model without linear attention", vllm("0.17.0", QWEN3_32B, "rtx-5090")),
]


def sglang_logged(fires, why, shown, version="0.5.14", profile="rtx-5090"):
    """SGLang's deployment as `diagnose` rebuilds it, with `shown` as the rules whose signatures the log showed
    (None: `check`, no log)."""
    context = (lambda: {"image": None, "recipe": None, "log": {"signatures": list(shown)}}) if shown is not None \
        else None
    return Case("SGL270", fires, lambda: build(profile, QWEN36_27B, (f"sglang=={version}",)), (), (), why, context)


KNOW_MAMBA_CASES += [
    # SGL270: SGLang's state-pool startup error, explained from the log line only
    sglang_logged(True, "its line, SGLang 0.5.14 on an RTX 5090", ("SGL270",)),
    sglang_logged(True, "its line, SGLang 0.5.23 on GB10", ("SGL270",), "0.5.23", "dgx-spark"),
    sglang_logged(False, "check: no log", None),
    sglang_logged(False, "another rule's line", ("SGL101",)),
]


# VLLM230 (check) / VLLM231 (the logged ValueError): Mamba-cache stochastic rounding on the Triton SSU backend
# needs the capability-10 family (vllm/config/mamba.py, 0.20.0-0.33.0 read)
NANO = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
SR = ("--enable-mamba-cache-stochastic-rounding",)
KNOW_MAMBA_CASES += [
    a("VLLM230", True, "Nemotron 3 Nano on an RTX 5090, vLLM 0.24.0, the flag", vllm("0.24.0", NANO, "rtx-5090"), *SR),
    a("VLLM230", True, "0.20.0, the first release with the flag and the check", vllm("0.20.0", NANO, "dgx-spark"), *SR),
    a("VLLM230", True, "0.33.0, the newest read", vllm("0.33.0", NANO, "rtx-pro-6000"), *SR),
    a("VLLM230", True, "--mamba-backend triton spelled out", vllm("0.33.0", NANO, "rtx-5090"), *SR,
      "--mamba-backend", "triton"),
    a("VLLM230", False, "--mamba-backend flashinfer: the check does not apply", vllm("0.33.0", NANO, "rtx-5090"),
      *SR, "--mamba-backend", "flashinfer"),
    a("VLLM230", False, "B200 (capability 10.0): cvt.rs exists", vllm("0.33.0", NANO, "b200-x8"), *SR),
    a("VLLM230", False, "H100: not an SM12x GPU (the doctor's scope)", vllm("0.33.0", NANO, "h100-sxm-x8"), *SR),
    a("VLLM230", False, "0.19.1 has no such flag (VLLM013's)", vllm("0.19.1", NANO, "rtx-5090"), *SR),
    a("VLLM230", False, "no stochastic rounding asked", vllm("0.33.0", NANO, "rtx-5090")),
    *(logged("VLLM231", True, f"its ValueError on {profile}", profile) for profile in SM12X),
    *(logged("VLLM231", False, f"its ValueError on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("VLLM231", False, "check: no log", "rtx-5090", shown=()),
]
