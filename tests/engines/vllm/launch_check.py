"""Shared by the launch tests: a composed `vllm serve` command checked flag by flag against one release's
argument definitions (the wheel data, or a table read from the wheel itself in the slow test)."""

from __future__ import annotations

from doctor.engines.vllm.flags import FlagTable, value_ok
from doctor.launch import flag_pairs
from doctor.pipeline.check import CheckRequest, run_check

MODELS = ("openai/gpt-oss-120b", "moonshotai/Kimi-K2.5", "zai-org/GLM-4.7-FP8")
SM120_PROFILES = ("rtx-pro-6000-x8", "rtx-pro-6000-ws-x4", "rtx-5090-x2", "dgx-spark")
# user flags that make rules add fixes (attention backend forced to one that cannot run, FP8 KV with FA2)
USER_FLAGS = {"moonshotai/Kimi-K2.5": ("--attention-backend", "FLASHMLA"),
              "openai/gpt-oss-120b": ("--attention-backend", "FLASHINFER"),
              "zai-org/GLM-4.7-FP8": ("--kv-cache-dtype", "fp8", "--attention-backend", "FLASH_ATTN")}


def launch_for(model: str, profile: str, version: str, user_flags: tuple[str, ...] = (),
               env: dict[str, str] | None = None) -> dict:
    report = run_check(CheckRequest(model=model, hardware=profile, engines=(f"vllm=={version}",),
                                    engine_args=user_flags, offline=True, environ=env or {}))
    [launch] = [launch for launch in report.launches if launch["engine"] == "vllm"]
    return launch


def invalid_tokens(argv: list[str], flags: FlagTable) -> list[str]:
    """Flags of `vllm serve MODEL ...` (argv) that this table does not define, or values outside choices."""
    assert argv[:2] == ["vllm", "serve"], argv
    bad = []
    for flag, value in flag_pairs(argv[3:], is_switch=flags.is_switch, takes_value=flags.takes_value):
        resolved = flags.resolve(flag)
        if resolved is None:
            bad.append(flag)
        elif value is not None and not value_ok(resolved.entry, value):
            bad.append(f"{flag} {value}")
        elif value is None and resolved.entry.get("takes_value") is True and not resolved.negated:
            bad.append(f"{flag} (no value)")
    return bad
