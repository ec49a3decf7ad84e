"""Positive and boundary cases for the check rules of rules/enc6.toml (task enc6: the spent sixth held-out
sample). test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

from tests.rules.builders import a, build

DSV4, DSV32 = "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V3.2"


def vl(version, model=DSV4, profile="rtx-pro-6000-x8"):
    return lambda: build(profile, model, (f"vllm=={version}",))


ENC6_CASES = [
    # VLLM330: DeepSeek-V4's attention is FlashMLA sparse only (sm_90a/sm_100f) in vLLM 0.20.0-0.23.x
    a("VLLM330", True, "0.20.2, DeepSeek-V4-Flash on 8x RTX PRO 6000 (HF DeepSeek-V4-Flash discussion 28)",
      vl("0.20.2"), "-tp", "8"),
    a("VLLM330", True, "0.20.0, the first release with DeepSeek-V4", vl("0.20.0"), "-tp", "8"),
    a("VLLM330", True, "0.23.0 on GB10 (vllm-gb10#26)", vl("0.23.0", profile="dgx-spark")),
    a("VLLM330", False, "0.24.0 defaults SM12x to FlashInfer's SM120 DeepSeek-V4 attention", vl("0.24.0"),
      "-tp", "8"),
    a("VLLM330", False, "0.19.1 has no DeepSeek-V4 at all (another finding's business)", vl("0.19.1"), "-tp", "8"),
    a("VLLM330", False, "9.0 (H100) runs FlashMLA sparse", vl("0.21.0", profile="h100-sxm-x8"), "-tp", "8"),
    a("VLLM330", False, "10.0 (B200) runs FlashMLA sparse", vl("0.21.0", profile="b200-x8"), "-tp", "8"),
    a("VLLM330", False, "DeepSeek-V3.2 takes vLLM's backend selector, not this path", vl("0.21.0", DSV32),
      "-tp", "8"),
    a("VLLM330", False, "0.23.0 with FLASHINFER_MLA_SPARSE_DSV4 asked for: another path, not claimed",
      vl("0.23.0"), "-tp", "8", "--attention-backend", "FLASHINFER_MLA_SPARSE_DSV4"),
]


def lc(profile="rtx-5060-ti-16gb", version="11312"):
    return lambda: build(profile, None, (f"llama.cpp=={version}",))


ENC6_CASES += [
    # LCPP211: -fa on hands flash attention to the projector without clip's probe (llama.cpp#21272)
    a("LCPP211", True, "--mmproj with -fa on, RTX 5060 Ti (llama.cpp#21272)", lc(), "--mmproj", "mmproj.gguf",
      "-fa", "on"),
    a("LCPP211", True, "--mmproj-url with --flash-attn on, GB10", lc("dgx-spark"), "--mmproj-url", "https://x/mm.gguf",
      "--flash-attn", "on"),
    a("LCPP211", False, "--flash-attn auto probes and falls back on the GPU", lc(), "--mmproj", "mmproj.gguf",
      "-fa", "auto"),
    a("LCPP211", False, "no projector", lc(), "-fa", "on"),
    a("LCPP211", False, "not an SM12x GPU (9.0)", lc("h100-sxm-x8"), "--mmproj", "mmproj.gguf", "-fa", "on"),
]


def _log_line_cases():
    """The signature-only rules (CKPT080, OOM100, LCPP210: no GPU bound; KRN070: SM12x only) fire with their own
    line shown, and stay silent in `check` (no log) and with another rule's line shown."""
    from tests.rules.log_line_cases import logged

    cases = []
    for rule in ("CKPT080", "OOM100", "LCPP210", "KRN070"):
        cases += [
            logged(rule, True, "its line on GB10", "dgx-spark"),
            logged(rule, True, "its line on an RTX 5090", "rtx-5090"),
            logged(rule, False, "check: no log", "rtx-5090", shown=()),
            logged(rule, False, "another rule's line", "rtx-5090", shown=("KRN011",)),
        ]
    cases += [logged("KRN070", False, f"its line on {p}: not an SM12x GPU", p) for p in ("h100-sxm-x8", "b200-x8")]
    return cases


ENC6_CASES += _log_line_cases()
