"""`--fix` for vLLM's fused MoE: for each MoE GEMM whose config overflows the GPU, a tuned-config table whose
every entry fits (doctor.kernels.generate_safe_moe_config, each entry re-sized before it is written), named
as this vLLM release names it and placed flat in the fix directory, which `VLLM_TUNED_CONFIG_FOLDER` points
at: `get_moe_configs` reads that folder before the package's own `configs/` (read from 0.11.0 in the wheel
data). Safe: new files in a directory the user owns, plus env.sh."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from doctor.engines.run import EngineRun
from doctor.engines.vllm.kernel_plan import triton_for
from doctor.engines.vllm.moe import ENV
from doctor.errors import InputError
from doctor.findings import Action, Safety
from doctor.kernels import fused_moe_smem, generate_safe_moe_config
from doctor.kernels.check import KernelCheck


def safe_table(check: KernelCheck, capability: tuple[int, int], triton: str | None = None
               ) -> tuple[dict[str, dict[str, int]], int]:
    """A table whose every entry fits, sized for `triton` (the Triton that will compile it)."""
    shape = check.shape
    dtype = shape["dtype"] or "bf16"
    table = generate_safe_moe_config(capability, shape["E"], shape["N"], shape["K"], dtype, topk=shape["top_k"],
                                     per_channel=shape["per_channel"], block_shape=shape["block_shape"],
                                     triton=triton)
    worst = max(fused_moe_smem(capability, dtype, e["BLOCK_SIZE_M"], e["BLOCK_SIZE_N"], e["BLOCK_SIZE_K"],
                               e["GROUP_SIZE_M"], e["num_warps"], e["num_stages"], per_channel=shape["per_channel"],
                               block_shape=shape["block_shape"], triton=triton, b_scale_vector=True)
                for e in table.values())
    if worst > check.limit:
        raise InputError(f"generated MoE config needs {worst} B > {check.limit} B; refusing to write it")
    return table, worst


def config_file_changes(run: EngineRun, kernels: Sequence[KernelCheck], fix_dir: Path) -> list[Action]:
    if run.gpu is None:
        return []
    actions: list[Action] = []
    written: set[str] = set()
    for check in kernels:
        name = check.details.get("config_file")
        if check.kernel != "fused_moe" or check.engine != "vllm" or check.fits or not name or name in written:
            continue
        written.add(name)
        table, worst = safe_table(check, run.gpu.capability, triton_for(run))
        path = fix_dir / name
        text = json.dumps(table, indent=4) + "\n"
        actions.append(Action("fused_moe", Safety.SAFE, f"smem-safe vLLM MoE config ({len(table)} entries, largest "
                              f"{worst} B), read first through {ENV}={fix_dir}", path=path, new_bytes=text.encode(),
                              old_bytes=_current(path), mode=0o644, env={ENV: str(fix_dir)}, kernel="fused_moe"))
    if actions:
        env_file = fix_dir / "env.sh"
        body = f"# written by sm120-doctor --fix\nexport {ENV}={fix_dir}\n"
        actions.append(Action("fused_moe", Safety.SAFE, "environment for the launch (source it)", path=env_file,
                              new_bytes=body.encode(), old_bytes=_current(env_file), mode=0o644, kernel="fused_moe"))
    return actions


def _current(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None
