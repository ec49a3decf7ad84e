"""vLLM's fused-MoE Triton configs for a run: the tuned file name vLLM builds (its own
`get_config_file_name`, kept in the wheel data and run here), the lookup order (`VLLM_TUNED_CONFIG_FOLDER`,
then the package's `configs/`), the entry chosen for M tokens (nearest tuned batch size), and the default
config when no file matches (the release's own `get_default_config`, run on its stored source)."""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from doctor.engines.vllm.evaluate import NotStatic, Stub, run_function

TUNED_BATCH_SIZES = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096)
ENV = "VLLM_TUNED_CONFIG_FOLDER"
PACKAGE_DIR = "vllm/model_executor/layers/fused_moe/configs"


def next_power_of_2(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


@cache
def _function(source: str) -> ast.FunctionDef:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def _stored(facts: Mapping[str, Any], name: str) -> ast.FunctionDef | None:
    entry = facts["moe"]["functions"].get(name)
    return _function(entry["source"]) if entry and "source" in entry else None


def config_file_name(facts: Mapping[str, Any], E: int, N: int, device_name: str, dtype: str | None,
                     block_shape: list[int] | None) -> str:
    """The file name this release looks for, from its own `get_config_file_name`."""
    platform = Stub(get_device_name=lambda *_: device_name, is_rocm=lambda: False)
    bindings: dict[str, Any] = {"E": E, "N": N, "dtype": dtype, "block_shape": block_shape,
                                "current_platform": platform, "all": all}
    helper = _stored(facts, "get_device_name_as_file_name")
    if helper is not None:
        bindings["get_device_name_as_file_name"] = lambda *_: run_function(
            helper, {"current_platform": platform, "re": Stub(sub=re.sub), "device_id": 0})
    function = _stored(facts, "get_config_file_name")
    if function is None:
        raise NotStatic("no get_config_file_name in the data")
    return str(run_function(function, bindings))


def default_config(facts: Mapping[str, Any], M: int, E: int, N: int, K: int, topk: int, dtype: str | None,
                   block_shape: list[int] | None) -> dict[str, int]:
    """This release's `get_default_config` on CUDA (not batch-invariant mode)."""
    function = _stored(facts, "get_default_config")
    if function is None:
        raise NotStatic("no get_default_config in the data")
    bindings = {"M": M, "E": E, "N": N, "K": K, "topk": topk, "dtype": dtype, "block_shape": block_shape,
                "is_marlin": False,
                "envs": Stub(VLLM_BATCH_INVARIANT=False), "vllm_is_batch_invariant": lambda: False,
                "current_platform": Stub(is_rocm=lambda: False), "min": min, "max": max, "all": all,
                "next_power_of_2": next_power_of_2, "cdiv": lambda a, b: -(-a // b), "math": Stub(ceil=math.ceil)}
    return dict(run_function(function, bindings))


def launch_config(config: Mapping[str, Any]) -> dict[str, int]:
    """Triton's launch defaults (4 warps, 3 stages) filled in; SPLIT_K and the like kept out."""
    full = {"GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 3}
    full.update({k: int(v) for k, v in config.items() if k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K",
                                                               "GROUP_SIZE_M", "num_warps", "num_stages")})
    return full


def select(configs: Mapping[int, dict[str, Any]], M: int) -> dict[str, Any]:
    return configs[min(configs, key=lambda key: abs(key - M))]


def find_tuned(facts: Mapping[str, Any], name: str, env: Mapping[str, str], site: Path | None
               ) -> tuple[str, dict[int, dict[str, Any]] | None, str]:
    """(where, table or None when only the name is known, how it was found); ("", None, reason) when vLLM
    would use the default config."""
    folder = env.get(ENV)
    if folder and (Path(folder) / name).is_file():
        return str(Path(folder) / name), load_table(Path(folder) / name), ENV
    if site is not None:
        path = site / PACKAGE_DIR / name
        if path.is_file():
            return str(path), load_table(path), "installed vLLM"
        return "", None, f"no {name} in {folder + ' or ' if folder else ''}the installed vLLM"
    if name in facts["moe"]["sm12x_tables"]:
        table = {int(k): v for k, v in facts["moe"]["sm12x_tables"][name].items()}
        return f"{PACKAGE_DIR}/{name}", table, f"vLLM {facts['version']} wheel"
    if name in set(facts["moe"]["files"]):
        return f"{PACKAGE_DIR}/{name}", None, f"vLLM {facts['version']} wheel (table not kept: not an SM12x device)"
    return "", None, f"vLLM {facts['version']} ships no {name}"


def load_table(path: Path) -> dict[int, dict[str, Any]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {int(k): v for k, v in raw.items() if k != "triton_version"}


def other_devices(facts: Mapping[str, Any], name: str) -> list[str]:
    """Shipped files for the same E, N, dtype and block shape on other devices (what a user might copy)."""
    head, _, tail = name.partition(",device_name=")
    suffix = tail.partition(",")[2] if "," in tail else ""
    return sorted(f for f in facts["moe"]["files"] if f.startswith(head + ",device_name=") and f != name
                  and (f.partition(",device_name=")[2].partition(",")[2] == suffix))
