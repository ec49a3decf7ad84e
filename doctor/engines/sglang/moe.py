"""SGLang's fused-MoE Triton config files: names, lookup order and default configs per version.

Mirrors `fused_moe_triton_config.py` (get_config_file_name, get_moe_configs, get_default_config)
as released on PyPI; the version boundaries are read from the released sglang wheels.
Nothing here imports torch, triton or sglang.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from packaging.version import Version

# Tuned batch sizes in SGLang's shipped JSONs and its tuning script.
FIXED_FALLBACK = ("3.4.0", "3.3.1", "3.2.0", "3.1.0")  # <= 0.5.11, newest first
_UNQUANTISED = (None, "", "bf16", "fp16", "bfloat16", "float16", "auto")

_DIR_OLD = "sglang/srt/layers/moe/fused_moe_triton"
_DIR_NEW = "sglang/srt/layers/moe/moe_runner/triton_utils"  # from 0.5.11


def _v(version: str | Version) -> Version:
    return version if isinstance(version, Version) else Version(str(version))


def dtype_selector(dtype: str | None) -> str | None:
    """get_config_dtype_str: None for bf16/fp16 (omitted from the file name)."""
    return None if dtype in _UNQUANTISED else dtype


def config_file_name(E: int, N: int, device_name: str, dtype: str | None,
                     block_shape: list[int] | tuple[int, ...] | None = None,
                     per_channel: bool = False, down: bool = False) -> str:
    """File name exactly as `get_config_file_name` builds it.

    device_name is `torch.cuda.get_device_name()`; only its spaces become '_'. block_shape is
    printed as a Python list, with a space, and dropped when any element is 0 (wna16 passes
    [0, group]).
    """
    device = device_name.replace(" ", "_")
    selected = dtype_selector(dtype)
    name = f"E={E},N={N},device_name={device}"
    if selected:
        name += f",dtype={selected}"
    if block_shape and all(block_shape):
        name += f",block_shape={list(block_shape)}"
    if per_channel:
        name += ",per_channel_quant=True"
    return name + ("_down" if down else "") + ".json"


def triton_dir_name(triton_version: str) -> str:
    return "triton_" + triton_version.replace(".", "_")


def package_config_dir(sglang_dir: str | os.PathLike[str], version: str) -> Path:
    """Directory holding `configs/` inside an installed sglang (moved in 0.5.11)."""
    root = Path(sglang_dir)
    if root.name == "sglang" and not (root / "sglang").exists():
        root = root.parent
    return root / (_DIR_NEW if _v(version) >= Version("0.5.11") else _DIR_OLD)


def config_dir(sglang_dir: str | os.PathLike[str], version: str,
               env: Mapping[str, str] | None = None) -> Path:
    """SGLANG_MOE_CONFIG_DIR if set, else the package directory."""
    env = os.environ if env is None else env
    override = env.get("SGLANG_MOE_CONFIG_DIR")
    return Path(override) if override else package_config_dir(sglang_dir, version)


def triton_search_order(version: str, triton_version: str, configs_root: Path) -> list[str]:
    """Triton versions whose `configs/triton_*` dirs SGLang tries, in order.

    <= 0.5.11: the running version, then a fixed list (3.5.1 and 3.3.0 are not in it).
    >= 0.5.12: the running version, then every triton_* dir on disk, newest first.
    """
    if _v(version) < Version("0.5.12"):
        fallbacks = list(FIXED_FALLBACK)
    else:
        found = [d.name[len("triton_"):].replace("_", ".") for d in _listdir(configs_root)
                 if d.name.startswith("triton_")]
        fallbacks = sorted(found, key=lambda s: tuple(int(x) for x in s.split(".")), reverse=True)
    return [triton_version] + [v for v in fallbacks if v != triton_version]


def _listdir(path: Path) -> list[Path]:
    return sorted(path.iterdir()) if path.is_dir() else []


def find_config_file(sglang_dir: str | os.PathLike[str], version: str, triton_version: str, E: int,
                     N: int, device_name: str, dtype: str | None,
                     block_shape: list[int] | tuple[int, ...] | None = None,
                     per_channel: bool = False, down: bool = False,
                     env: Mapping[str, str] | None = None) -> Path | None:
    """The tuned-config JSON SGLang `version` would load, or None when it uses defaults.

    For down=True a missing `_down` file means the down GEMM reuses the up config (0.5.8
    through `down_config or config`, from 0.5.16 explicitly); this returns the up file then.
    """
    root = config_dir(sglang_dir, version, env) / "configs"
    names = [config_file_name(E, N, device_name, dtype, block_shape, per_channel, down)]
    if down:
        names.append(config_file_name(E, N, device_name, dtype, block_shape, per_channel, False))
    for name in names:
        for tv in triton_search_order(version, triton_version, root):
            candidate = root / triton_dir_name(tv) / name
            if candidate.is_file():
                return candidate
    return None


def default_config(version: str, M: int, E: int, N: int, K: int, topk: int, dtype: str | None,
                   block_shape: list[int] | tuple[int, ...] | None = None, low_smem: bool = False,
                   is_marlin: bool = False, deterministic: bool = False,
                   hip: bool = False) -> dict[str, int]:
    """`get_default_config` of SGLang `version` (CUDA unless hip=True).

    low_smem: the device's opt-in smem per block is < 128 KiB (all SM12x, SM86/89). Only
    0.5.14+ acts on it, with a smaller fp8 default.
    """
    del N, K, topk
    if deterministic:
        return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
    if dtype == "fp8_w8a8" and block_shape:
        return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": block_shape[0], "BLOCK_SIZE_K": block_shape[1],
                "GROUP_SIZE_M": 32, "num_warps": 4, "num_stages": 2 if hip else 3}
    if dtype == "fp8_w8a8":
        if low_smem and _v(version) >= Version("0.5.14"):
            if M > E:
                return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 256,
                        "GROUP_SIZE_M": 64, "num_warps": 4, "num_stages": 2}
            return {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 1,
                    "num_warps": 4, "num_stages": 4}
        if M <= E:
            return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1,
                    "num_warps": 4, "num_stages": 2 if hip else 4}
        return {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 32,
                "num_warps": 8, "num_stages": 2 if hip else 4}
    if M <= E or (is_marlin and M <= 32):
        return {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1}
    return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
