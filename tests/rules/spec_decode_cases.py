"""Cases for rules/spec_decode.toml (task specdec). The log-line rules (SPEC001-SPEC005) fire with their own
signature shown on every SM12x profile (12.0 and 12.1), and stay silent in `check` (no log), with another rule's
line shown, and just outside their GPU bound (Hopper 9.0, datacenter Blackwell 10.0); the deployment checks
(SPEC010, SPEC011) just outside each release bound, checkpoint format and speculative method."""

from __future__ import annotations

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build
from tests.rules.log_line_cases import OTHER, SM12X, logged

SPEC_RULES = ("SPEC001", "SPEC002", "SPEC003", "SPEC004", "SPEC005")

SPEC_DECODE_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in SPEC_RULES for profile in SM12X),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in SPEC_RULES
      for profile in OTHER),
    *(logged(rule, False, "check: no log", "rtx-5090", shown=()) for rule in SPEC_RULES),
    *(logged(rule, False, "another rule's line (VLLM113's IMA frame)", "rtx-5090", shown=("VLLM113",))
      for rule in SPEC_RULES),
    logged("SPEC001", False, "the MTP weights line is SPEC002's, not a crash dump", "dgx-spark", shown=("SPEC002",)),
]

# SPEC010/SPEC011: the Qwen MTP drafter's fc under a ModelOpt NVFP4 config. nvidia/Qwen3.5-397B-A17B-NVFP4 excludes
# only `mtp.layers.0*`; nvidia/Qwen3.5-122B-A10B-NVFP4 excludes `mtp*` too; nvidia/Qwen3.6-27B-NVFP4 is
# MIXED_PRECISION (vLLM's modelopt_mixed). Qwen3-Next has no bundled NVFP4 config: its BF16 config with the 397B
# export's quantization stands in (the rule reads the family, the scheme and the exclude list).
Q35_NVFP4 = "nvidia/Qwen3.5-397B-A17B-NVFP4"
MTP2 = ("--tp", "8", "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}')
NVFP4_ONLY_LAYERS = {"method": "modelopt", "scheme": "nvfp4", "modules": (), "ignored": ("lm_head", "mtp.layers.0*")}


def _q35(version: str, model: str = Q35_NVFP4) -> Facts:
    return build("rtx-pro-6000-x8", model=model, engines=(f"vllm=={version}",))


def _next(version: str, quant: dict | None = None, profile: str = "dgx-spark") -> Facts:
    return build(profile, model="Qwen/Qwen3-Next-80B-A3B-Instruct", engines=(f"vllm=={version}",),
                 quant=NVFP4_ONLY_LAYERS if quant is None else quant)


SPEC_DECODE_CASES += [
    a("SPEC010", True, "vLLM 0.19.0, 397B NVFP4 (mtp.layers.0* only), MTP", lambda: _q35("0.19.0"), *MTP2),
    a("SPEC010", True, "vLLM 0.17.0: first release with qwen3_5_mtp read", lambda: _q35("0.17.0"), *MTP2),
    a("SPEC010", True, "method qwen3_5_mtp spelled out", lambda: _q35("0.18.0"), "--tp", "8",
      "--speculative-config", '{"method":"qwen3_5_mtp","num_speculative_tokens":1}'),
    a("SPEC010", False, "vLLM 0.20.0 forces fc unquantized", lambda: _q35("0.20.0"), *MTP2),
    a("SPEC010", False, "vLLM 0.16.0 not read", lambda: _q35("0.16.0"), *MTP2),
    a("SPEC010", False, "122B NVFP4 excludes mtp*", lambda: _q35("0.19.0", "nvidia/Qwen3.5-122B-A10B-NVFP4"), *MTP2),
    a("SPEC010", False, "Qwen3.6-27B NVFP4 is MIXED_PRECISION (modelopt_mixed)",
      lambda: _q35("0.19.0", "nvidia/Qwen3.6-27B-NVFP4"), "--speculative-config", '{"method":"mtp"}'),
    a("SPEC010", False, "BF16 Qwen3.6-27B", lambda: _q35("0.19.0", "Qwen/Qwen3.6-27B"), "--speculative-config",
      '{"method":"mtp"}'),
    a("SPEC010", False, "no speculative config", lambda: _q35("0.19.0"), "--tp", "8"),
    a("SPEC010", False, "EAGLE-3 drafter, not MTP", lambda: _q35("0.19.0"), "--tp", "8", "--speculative-config",
      '{"method":"eagle3","model":"some/eagle3-head","num_speculative_tokens":3}'),
    a("SPEC010", False, "Qwen3-Next is SPEC011's", lambda: _next("0.19.0"), *MTP2),
    a("SPEC011", True, "vLLM 0.24.0, Qwen3-Next NVFP4 on GB10, MTP", lambda: _next("0.24.0"), *MTP2),
    a("SPEC011", True, "vLLM 0.13.0 on an RTX PRO 6000", lambda: _next("0.13.0", profile="rtx-pro-6000-x8"), *MTP2),
    a("SPEC011", True, "method qwen3_next_mtp", lambda: _next("0.21.0"), "--speculative-config",
      '{"method":"qwen3_next_mtp","num_speculative_tokens":1}'),
    a("SPEC011", False, "vLLM 0.25.0 forces fc unquantized", lambda: _next("0.25.0"), *MTP2),
    a("SPEC011", False, "vLLM 0.12.0 not read", lambda: _next("0.12.0"), *MTP2),
    a("SPEC011", False, "the exclude list covers mtp*", lambda: _next("0.24.0", {**NVFP4_ONLY_LAYERS,
      "ignored": ("lm_head", "mtp*")}), *MTP2),
    a("SPEC011", False, "FP8 checkpoint", lambda: _next("0.24.0", {**NVFP4_ONLY_LAYERS, "scheme": "fp8-block"}), *MTP2),
    a("SPEC011", False, "no speculative config", lambda: _next("0.24.0")),
]
