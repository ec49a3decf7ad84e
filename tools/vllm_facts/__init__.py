"""Version knowledge of vLLM read from its released wheels, statically (zipfile + ast; vLLM is never
imported): the flags `vllm serve` accepts, the environment variables it reads, its fused-MoE configs and
their functions, its attention backends and their SM12x answers, the dense GEMM kernel per quantization
scheme on SM12x, the Python gates of the compiled kernels, the all-reduce paths and their gates
(vllm_facts.allreduce), the NCCL the release brings through its torch pin (vllm_facts.nccl),
and the CUDA architectures each compiled extension carries (doctor.binaries). Every fact keeps its file
and line. `python -m tools.vllm_facts --out doctor/data/vllm` regenerates the data."""

from __future__ import annotations

import ast
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from doctor.engines.vllm.evaluate import NotStatic, run_function
from tools.vllm_facts.allreduce import allreduce_facts
from tools.vllm_facts.backends import attention_facts
from tools.vllm_facts.cli_flags import FlagReader
from tools.vllm_facts.envs import env_facts
from tools.vllm_facts.gemm import gemm_facts
from tools.vllm_facts.moe import functions, moe_facts, source_hash
from tools.vllm_facts.nccl import load_table, nccl_facts, torch_pin
from tools.vllm_facts.parser_rules import dash_o
from tools.vllm_facts.source import WheelSource

SCHEMA = 1
# Python-side gates in front of compiled kernels: (file, function, parameter given the capability as an int)
GATES = (("vllm/_custom_ops.py", "cutlass_group_gemm_supported", "cuda_device_capability"),
         ("vllm/_custom_ops.py", "cutlass_scaled_mm_supports_fp8", "cuda_device_capability"),
         ("vllm/_custom_ops.py", "cutlass_scaled_mm_supports_block_fp8", "cuda_device_capability"))
# Functions whose behaviour the doctor models by hand (memory accounting, kernel tiles): where they are and
# a hash of their source per release, so a change between releases shows in the data.
MODELLED = (("vllm/v1/worker/gpu_worker.py", ("determine_available_memory",)),
            ("vllm/v1/worker/utils.py", ("request_memory",)),
            ("vllm/utils/mem_utils.py", ("memory_profiling",)),
            ("vllm/v1/core/kv_cache_utils.py", ("get_num_blocks", "_report_kv_cache_config", "get_kv_cache_config",
                                                 "get_kv_cache_config_from_groups")),
            ("vllm/v1/attention/ops/triton_decode_attention.py", ("_decode_grouped_att_m_fwd",)),
            ("vllm/attention/ops/triton_decode_attention.py", ("_decode_grouped_att_m_fwd",)))
SELECTION_DIRS = ("vllm/model_executor/layers/quantization/", "vllm/model_executor/layers/fused_moe/")
MIN_BINARY_BYTES = 1 << 16
TORCH_TABLE = Path(__file__).resolve().parents[2] / "doctor" / "data" / "vllm" / "torch-nccl.json"


def extract(wheel: Path, audit_binaries: bool = True) -> dict[str, Any]:
    source = WheelSource(wheel)
    try:
        version = _version(source)
        flags = FlagReader(source)
        facts = {
            "schema": SCHEMA, "package": "vllm", "version": version, "wheel": Path(wheel).name,
            "flags": flags.read(), "flag_semantics": {"optional_value_bool": flags.optional_value_bool,
                                                 "dash_o": dash_o(source)},
            "envs": env_facts(source), "moe": moe_facts(source), "attention": attention_facts(source),
            "gates": gates(source), "selection_functions": selection_functions(source),
            "modelled_functions": modelled_functions(source),
            "allreduce": allreduce_facts(source), "nccl": nccl_facts(torch_pin(source), load_table(TORCH_TABLE)),
        }
        facts["gemm"] = gemm_facts(source, facts["envs"]["table"])
        if audit_binaries:
            facts["binaries"] = binaries(wheel)
        return facts
    finally:
        source.close()


def _version(source: WheelSource) -> str:
    meta = next(n for n in source.names if n.endswith(".dist-info/METADATA"))
    for line in source.text(meta).splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    raise ValueError(f"{source.wheel}: no Version in {meta}")


def gates(source: WheelSource) -> dict[str, Any]:
    """Each gate's answer for 120 and 121, where the Python code decides before asking the compiled op
    ("compiled" when it defers to `torch.ops._C`)."""
    out: dict[str, Any] = {}
    for path, name, param in GATES:
        function = source.function(path, name)
        if function is None:
            continue
        entry: dict[str, Any] = {"file": path, "line": function.lineno, "sha256": source_hash(function)}
        for capability in (120, 121):
            try:
                entry[str(capability)] = run_function(function, {param: capability})
            except NotStatic:
                entry[str(capability)] = "compiled"
        out[name] = entry
    return out


def selection_functions(source: WheelSource) -> dict[str, Any]:
    """Top-level functions that pick a kernel backend (name mentions `backend`) in the quantization and
    fused-MoE packages: where they are and a hash of their source, so a change is visible per release."""
    out: dict[str, Any] = {}
    for path in sorted(n for n in source.names if n.startswith(SELECTION_DIRS) and n.endswith(".py")):
        tree = source.tree(path)
        names = tuple(n.name for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef)
                      and "backend" in n.name and not n.name.startswith("_"))
        for name, entry in functions(source, path, names).items():
            out.setdefault(name, entry)
    return dict(sorted(out.items()))


def modelled_functions(source: WheelSource) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, names in MODELLED:
        for name, entry in functions(source, path, names).items():
            out.setdefault(name, entry)
    return dict(sorted(out.items()))


def binaries(wheel: Path) -> dict[str, Any]:
    """CUDA architectures of every compiled extension in the wheel, read from its fatbins."""
    from doctor.binaries import read_cuda_archs

    out: dict[str, Any] = {}
    with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory(prefix="vllm-wheelfacts-") as tmp:
        for info in archive.infolist():
            if not info.filename.endswith(".so") or info.file_size < MIN_BINARY_BYTES:
                continue
            path = Path(archive.extract(info, tmp))
            try:
                found = read_cuda_archs(path)
                out[info.filename] = {"sass": sorted(found.sass), "ptx": sorted(found.ptx), "bytes": info.file_size}
            finally:
                path.unlink()
    return {k: v for k, v in sorted(out.items()) if v["sass"] or v["ptx"]}
