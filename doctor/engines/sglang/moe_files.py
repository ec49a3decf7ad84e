"""Smem-safe fused-MoE config files: for each MoE GEMM whose config overflows the GPU, a table whose
every entry fits (doctor.kernels.generate_safe_moe_config), laid out exactly where SGLang looks:
`$SGLANG_MOE_CONFIG_DIR/configs/triton_X_Y_Z/<file name>`. `--fix` writes them (safe: new files in a
directory the user owns), and so does the `moe-config` command."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from doctor.engines.run import EngineRun
from doctor.errors import InputError
from doctor.findings import Action, Safety
from doctor.kernels import fused_moe_smem, generate_safe_moe_config
from doctor.kernels.check import KernelCheck

MOE_CONFIG_ENV = "SGLANG_MOE_CONFIG_DIR"


@dataclass(frozen=True)
class MoeConfigFile:
    relative_path: str  # configs/triton_X_Y_Z/<file name>
    table: dict[str, dict[str, int]]
    worst_bytes: int
    limit: int

    def text(self) -> str:
        return json.dumps(self.table, indent=4) + "\n"


def safe_config_files(kernels: Sequence[KernelCheck], capability: tuple[int, int] | None,
                      only_overflowing: bool = True) -> list[MoeConfigFile]:
    if capability is None:
        return []
    files: dict[str, MoeConfigFile] = {}
    for check in kernels:
        if check.kernel != "fused_moe" or check.limit is None or (only_overflowing and check.fits):
            continue
        made = safe_config_file(check, capability)
        files.setdefault(made.relative_path, made)
    return list(files.values())


def safe_config_file(check: KernelCheck, capability: tuple[int, int]) -> MoeConfigFile:
    shape, details = check.shape, check.details
    dtype = shape["dtype"]
    table = generate_safe_moe_config(capability, shape["E"], shape["N"], shape["K"], dtype, topk=shape["top_k"],
                                     per_channel=shape["per_channel"], block_shape=shape["block_shape"],
                                     triton=details.get("triton_version"))
    sizes = [fused_moe_smem(capability, dtype, e["BLOCK_SIZE_M"], e["BLOCK_SIZE_N"], e["BLOCK_SIZE_K"],
                            e["GROUP_SIZE_M"], e["num_warps"], e["num_stages"], per_channel=shape["per_channel"],
                            block_shape=shape["block_shape"]) for e in table.values()]
    if max(sizes) > check.limit:
        raise InputError(f"generated MoE config needs {max(sizes)} B > {check.limit} B; refusing to write it")
    relative = f"configs/{details['triton_dir']}/{details['config_file']}"
    return MoeConfigFile(relative, table, max(sizes), check.limit)


def config_file_changes(run: EngineRun, kernels: Sequence[KernelCheck], fix_dir: Path) -> list[Action]:
    """New config files for every overflowing MoE GEMM, plus env.sh that points SGLang at them."""
    rule_id = "fused_moe"
    actions = []
    for made in safe_config_files(kernels, run.gpu.capability if run.gpu else None):
        path = fix_dir / made.relative_path
        actions.append(Action(rule_id, Safety.SAFE, f"smem-safe MoE config ({len(made.table)} entries, largest "
                              f"{made.worst_bytes} B), used through {MOE_CONFIG_ENV}={fix_dir}",
                              path=path, new_bytes=made.text().encode(), old_bytes=_current(path), mode=0o644,
                              env={MOE_CONFIG_ENV: str(fix_dir)}, kernel="fused_moe"))
    if actions:
        env_file = fix_dir / "env.sh"
        text = f"# written by sm120-doctor --fix\nexport {MOE_CONFIG_ENV}={fix_dir}\n"
        actions.append(Action(rule_id, Safety.SAFE, "environment for the launch (source it)", path=env_file,
                              new_bytes=text.encode(), old_bytes=_current(env_file), mode=0o644, kernel="fused_moe"))
    return actions


def _current(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None
