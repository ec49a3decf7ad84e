"""vLLM's fused-MoE Triton configs in a wheel: the tuned files it ships (parsed names; the full tables of
the SM12x devices, which the doctor sizes without the wheel installed), and the functions that name, look
up and default them, recorded by line and by a hash of their normalised source so a change between releases
cannot go unnoticed."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from typing import Any

from tools.vllm_facts.source import WheelSource

FUSED_MOE = "vllm/model_executor/layers/fused_moe/fused_moe.py"
CONFIG_DIR = "vllm/model_executor/layers/fused_moe/configs/"
FUNCTIONS = ("get_config_file_name", "get_moe_configs", "get_default_config", "try_get_optimal_moe_config")
KEEP_SOURCE = ("get_config_file_name", "get_default_config")  # run by doctor.engines.vllm.moe for the GPU at hand
DEVICE_NAME_HELPER = ("vllm/utils/platform_utils.py", "get_device_name_as_file_name")
# torch.cuda.get_device_name() of SM12x parts, spaces as underscores (as the file names spell them)
SM12X_DEVICES = re.compile(r"RTX_50\d0|RTX_PRO_\d+_Blackwell|GB10|RTX_PRO_\d+$")
NAME = re.compile(r"^E=(?P<E>\d+),N=(?P<N>\d+),device_name=(?P<device>[^,]+?)(?:,dtype=(?P<dtype>[^,]+?))?"
                  r"(?:,block_shape=\[(?P<block>[\d, ]+)\])?(?P<down>_down)?\.json$")


def moe_facts(source: WheelSource) -> dict[str, Any]:
    files = sorted(n[len(CONFIG_DIR):] for n in source.names if n.startswith(CONFIG_DIR) and n.endswith(".json"))
    parsed = [p for p in (parse_config_name(f) for f in files) if p]
    sm12x = {p["file"]: _table(source, p["file"]) for p in parsed if SM12X_DEVICES.search(p["device"])}
    found = functions(source, FUSED_MOE, FUNCTIONS, KEEP_SOURCE)
    found.update(functions(source, DEVICE_NAME_HELPER[0], DEVICE_NAME_HELPER[1:], DEVICE_NAME_HELPER[1:]))
    return {"dir": CONFIG_DIR, "count": len(files), "files": files, "sm12x_tables": sm12x, "functions": found}


def parse_config_name(name: str) -> dict[str, Any] | None:
    match = NAME.match(name)
    if match is None:
        return None
    block = match.group("block")
    return {"file": name, "E": int(match.group("E")), "N": int(match.group("N")), "device": match.group("device"),
            "dtype": match.group("dtype"), "block_shape": [int(x) for x in block.split(",")] if block else None,
            "down": bool(match.group("down"))}


def _table(source: WheelSource, name: str) -> dict[str, Any]:
    table = json.loads(source.text(CONFIG_DIR + name))
    table.pop("triton_version", None)
    return table


def functions(source: WheelSource, path: str, names: tuple[str, ...], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """name -> {file, line, sha256 of ast.unparse (formatting and comments do not count)}; the normalised
    source itself for the names in `keep`."""
    tree = source.tree(path)
    out: dict[str, Any] = {}
    if tree is None:
        return out
    for node in ast.walk(tree):  # methods too (Worker.determine_available_memory); the first of a name wins
        if isinstance(node, ast.FunctionDef) and node.name in names and node.name not in out:
            out[node.name] = {"file": path, "line": node.lineno, "sha256": source_hash(node)}
            if node.name in keep:
                out[node.name]["source"] = ast.unparse(node)
    return out


def source_hash(node: ast.AST) -> str:
    return hashlib.sha256(ast.unparse(node).encode()).hexdigest()[:16]
