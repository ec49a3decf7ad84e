"""How SGLang's loader reads a ModelOpt MIXED_PRECISION checkpoint (`ModelConfig._parse_modelopt_quant_config`):
up to 0.5.9 always as `w4afp8` (DeepSeek's int4-expert W4AFP8 format); from the release that registers
`modelopt_mixed` (0.5.10, doctor/data/derived/model_support.json) as `modelopt_mixed` when a layer is NVFP4 or
W4A16_NVFP4, else still as `w4afp8`."""

from __future__ import annotations

from typing import Any

from doctor.engines.model_support import first_release, knows, newest, table_release
from doctor.engines.quant_support import QUANT_METHODS
from doctor.engines.spi import EngineRun

PACKAGE, MIXED = "sglang", "modelopt_mixed"


def mixed_view(run: EngineRun) -> dict[str, Any] | None:
    """`sglang.quant_support.mixed` for a MIXED_PRECISION ModelOpt checkpoint on a tabulated release, else None."""
    model = run.facts.model
    release = table_release(PACKAGE, run.library.version)
    if model is None or release is None:
        return None
    quant = model.quantization
    if (quant.method or "").lower() != "modelopt" or (quant.algo or "").upper() != "MIXED_PRECISION":
        return None
    nvfp4 = quant.scheme == "nvfp4" or any(m.scheme == "nvfp4" for m in quant.modules)
    first = first_release(PACKAGE, QUANT_METHODS, MIXED)
    fix = (f"pip install 'sglang>={first}' (SGLang {first} is the first release that reads a MIXED_PRECISION "
           "ModelOpt checkpoint with NVFP4 layers as modelopt_mixed, derived from its wheel)") if first else \
        f"no SGLang release up to {newest(PACKAGE)} reads it as modelopt_mixed"
    return {"nvfp4_layers": nvfp4, "modelopt_mixed": knows(PACKAGE, QUANT_METHODS, MIXED, release),
            "first_release": first or f"none up to {newest(PACKAGE)}", "fix": fix}
