"""The launch's speculative decoding as vLLM reads it (`--speculative-config` JSON), and what the release's Qwen
MTP drafters make of a ModelOpt NVFP4 checkpoint's `mtp.fc` (vllm/model_executor/models/qwen3_next_mtp.py and
qwen3_5_mtp.py, read from the wheels: the drafter builds `fc` with the target's quant config unless the release
forces `modelopt_fp4` off it, and NVFP4 exports store `mtp.fc` in BF16)."""

from __future__ import annotations

import json
from fnmatch import fnmatch
from typing import Any

from doctor.engines.spi import EngineRun

MTP_FC = "mtp.fc"  # the drafter's module prefix (maybe_prefix(prefix, "mtp") + ".fc")


def view(run: EngineRun) -> dict[str, Any] | None:
    """None without `--speculative-config`; else the method, the draft model, the draft length, whether the value
    is not JSON (what vLLM's argparse type, json.loads, refuses) and whether a ModelOpt NVFP4 checkpoint leaves
    `mtp.fc` to the quant config (its exclude list does not cover it)."""
    config = _config(run)
    if config is None:
        return None
    tokens = config.get("num_speculative_tokens")
    return {"method": str(config.get("method") or "") or None,
            "model": str(config.get("model") or "") or None,
            "num_speculative_tokens": tokens if isinstance(tokens, int) else None,
            "not_json": not_json(run),
            "nvfp4_mtp_fc_not_excluded": nvfp4_mtp_fc_not_excluded(run)}


def not_json(run: EngineRun) -> bool:
    """The `--speculative-config VALUE` text json.loads refuses (vllm/engine/arg_utils.py: the flag's type is
    optional_type(json.loads), which passes '' and 'None'); a dotted `--speculative-config.KEY VALUE` is not
    JSON and is not read here."""
    raw = run.launch.get("speculative_config")
    if not isinstance(raw, str) or run.launch.get("speculative_config_dotted") or raw in ("", "None"):
        return False
    return _loads(raw) is _REFUSED


def _config(run: EngineRun) -> dict[str, Any] | None:
    raw = run.launch.get("speculative_config")
    if raw is None or raw is False:
        return None
    if isinstance(raw, dict):
        return raw
    parsed = _loads(raw) if isinstance(raw, str) else None
    return parsed if isinstance(parsed, dict) else {}


_REFUSED = object()  # what json.loads raised on


def _loads(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return _REFUSED


def nvfp4_mtp_fc_not_excluded(run: EngineRun) -> bool | None:
    """True for a single-algorithm ModelOpt NVFP4 checkpoint (vLLM's `modelopt_fp4`, not `modelopt_mixed`) whose
    exclude list does not reach `mtp.fc`; None when the model or its quantization is not known."""
    model = run.facts.model
    quant = getattr(model, "quantization", None) if model is not None else None
    if quant is None:
        return None
    if quant.method != "modelopt" or quant.scheme != "nvfp4" or quant.modules:
        return False
    return not any(excludes(pattern, MTP_FC) for pattern in quant.ignored)


def excludes(pattern: str, prefix: str) -> bool:
    """vLLM's ModelOpt exclusion of a module prefix (ModelOptQuantConfigBase.apply_vllm_mapper and
    is_layer_excluded, 0.13-0.33): `path*` becomes `path` and `path.*`; a pattern excludes the prefix when it
    equals it, is a substring of it, or matches it as a wildcard."""
    expanded = [pattern[:-1], pattern[:-1] + ".*"] if len(pattern) >= 2 and pattern.endswith("*") and \
        pattern[-2] != "." else [pattern]
    return any(p == prefix or p in prefix or fnmatch(prefix, p) for p in expanded)
