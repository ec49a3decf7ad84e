"""Which Triton kernels SGLang will launch for a model on a GPU, with which launch configs, and how
much shared memory each needs (doctor.kernels). Installed source is read where SGLang is installed;
a what-if version uses the per-version knowledge read from the released wheels."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.pysource import SourceShapeError, evaluate_assignment
from doctor.engines.sglang import moe
from doctor.engines.sglang import source as sglang_source
from doctor.engines.sglang.attention import attention_kernel_revision, extend_paths, extend_tiles
from doctor.hardware import smem_per_block_optin
from doctor.kernels import decode_attention_smem, extend_attention_smem, fused_moe_smem, prefill_attention_smem
from doctor.kernels.check import KernelCheck
from doctor.kernels.moe_tuned import launch_config, load_configs
from doctor.pipeline.facts import Facts, Gpu, Model
from doctor.versions import release

# The Triton that the torch pinned by SGLang's wheel requires (Requires-Dist torch==: 2.8.0 up to 0.5.5.post3,
# 2.9.1 from 0.5.6, 2.11.0 from 0.5.11, 2.13.0 from 0.5.18, 2.14.1 from 0.5.22; each torch's own triton pin);
# used when no Triton is installed.
TRITON_PINS = ((Version("0.5.22"), "3.8.0"), (Version("0.5.18"), "3.7.1"), (Version("0.5.11"), "3.6.0"),
               (Version("0.5.6"), "3.5.1"), (Version("0.0"), "3.4.0"))
# SM12x tuned MoE configs each release's wheel ships (first release, triton dir, file), for what-if versions that
# are not installed; tests/tools/test_sglang_facts_data.py checks this against every wheel read by
# tools/sglang_facts.py.
_MAXQ = "device_name=NVIDIA_RTX_PRO_6000_Blackwell_Max-Q_Workstation_Edition"
_SERVER = "device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition"
SHIPPED_SM12X = (
    (Version("0.5.1"), "triton_3_4_0", f"E=129,N=352,{_MAXQ},dtype=fp8_w8a8.json"),
    (Version("0.5.1"), "triton_3_4_0", f"E=161,N=384,{_MAXQ},dtype=fp8_w8a8.json"),
    (Version("0.5.8"), "triton_3_5_1", f"E=161,N=192,{_MAXQ},dtype=fp8_w8a8,per_channel_quant=True.json"),
    (Version("0.5.8"), "triton_3_5_1", f"E=161,N=192,{_MAXQ}.json"),
    (Version("0.5.13"), "triton_3_6_0", f"E=256,N=512,{_SERVER}.json"),
    (Version("0.5.13"), "triton_3_6_0", f"E=256,N=512,{_SERVER}_down.json"),
    (Version("0.5.14"), "triton_3_6_0", "E=128,N=768,device_name=NVIDIA_GB10,dtype=fp8_w8a8.json"),
)
MOE_DTYPES = {"bf16": None, "fp16": None, "fp8-channel": "fp8_w8a8", "fp8-tensor": "fp8_w8a8",
              "fp8-block": "fp8_w8a8", "int8-w8a8": "int8_w8a8", "int8-w8a16": "int8_w8a16"}
NOT_TRITON_MOE = {"int4-w4a16": "Marlin (CompressedTensorsWNA16MarlinMoEMethod)", "nvfp4": "CUTLASS/FlashInfer FP4",
                  "mxfp4": "the MXFP4 runner of this version", "awq": "Marlin", "gptq": "Marlin"}


@dataclass(frozen=True)
class Target:
    """The GPU, release and launch a kernel plan is made for."""

    facts: Facts
    gpu: Gpu
    version: Version
    site: Path | None  # installed SGLang's site-packages, None for a what-if version
    launch: Mapping[str, Any]
    tp: int

    @property
    def model(self) -> Model:
        assert self.facts.model is not None
        return self.facts.model


def target_for(facts: Facts, gpu: Gpu, version: Version, launch: Mapping[str, Any], tp: int) -> Target:
    library = facts.library("sglang")
    site = Path(library.location) if library and library.location and not library.what_if else None
    return Target(facts, gpu, version, site, launch, tp)


def kv_dtype(target: Target) -> str:
    chosen = str(target.launch.get("kv_cache_dtype") or target.model.quantization.kv_cache_dtype or "")
    return "fp8" if chosen.startswith("fp8") else "bf16"


def _check(target: Target, kernel: str, path: str, when: str, shape: dict[str, Any], config: dict[str, Any],
           nbytes: int, details: dict[str, Any]) -> KernelCheck:
    return KernelCheck(kernel=kernel, engine="sglang", path=path, when=when, shape=shape, config=config,
                       bytes=nbytes, limit=target.gpu.smem_per_block_optin, method="analytic", details=details)


# --- attention ---------------------------------------------------------------------------------

def extend_kernels(target: Target) -> list[KernelCheck]:
    source_file = None
    if target.site is not None:
        candidate = sglang_source.extend_attention_file(target.site, target.version)
        source_file = candidate if candidate.is_file() else None
    out = []
    for path in extend_paths(target.model, target.tp):
        tiles, tiles_from = _extend_tiles(source_file, target, path.lq, path.lv)
        dtype = kv_dtype(target)
        needed = extend_attention_smem(target.gpu.capability, path.lq, path.lv, tiles.block_m, tiles.block_n,
                                       tiles.num_warps, tiles.num_stages, kv_dtype=dtype, kv_group=path.kv_group,
                                       triton=_triton_version(target),
                                       revision=attention_kernel_revision(target.version))
        out.append(_check(target, "extend_attention", path.name, path.when,
                           {"lq": path.lq, "lv": path.lv, "kv_group": path.kv_group, "kv_dtype": dtype},
                           {"block_m": tiles.block_m, "block_n": tiles.block_n, "num_warps": tiles.num_warps,
                            "num_stages": tiles.num_stages}, needed, {"tiles_from": tiles_from}))
    return out


def _extend_tiles(source_file: Path | None, target: Target, lq: int, lv: int) -> tuple[Any, str]:
    cc, version = target.gpu.capability, target.version
    if source_file is not None:
        try:
            return sglang_source.extend_tiles_from_source(source_file, cc, lq, lv), f"installed source {source_file}"
        except SourceShapeError as exc:
            why = f"SGLang {version} knowledge (installed source not readable: {exc})"
            return extend_tiles(version, cc, lq, lv), why
    return extend_tiles(version, cc, lq, lv), f"SGLang {version} knowledge"


def decode_kernels(target: Target) -> list[KernelCheck]:
    """Stage-1 decode kernel: BLOCK_N 32, BLOCK_H 16, 4 warps, 2 stages (grouped); MHA BLOCK 64."""
    att = target.model.attention
    dtype = kv_dtype(target)
    if att.kind == "mla":
        lk, lv, grouped = (att.kv_lora_rank or 0) + (att.qk_rope_head_dim or 0), att.kv_lora_rank or 0, True
    else:
        lk = lv = att.head_dim
        grouped = att.num_heads // max(att.num_kv_heads, 1) > 1
    block_n, block_h = (32, 16) if grouped else (64, 1)
    needed = decode_attention_smem(target.gpu.capability, lk, lv, block_n, block_h, 4, 2, kv_dtype=dtype,
                                   grouped=grouped, triton=_triton_version(target),
                                   revision=attention_kernel_revision(target.version))
    name = "decode-grouped" if grouped else "decode-mha"
    return [_check(target, "decode_attention", name, "every decode step", {"lk": lk, "lv": lv, "kv_dtype": dtype},
                    {"block_n": block_n, "block_h": block_h, "num_warps": 4, "num_stages": 2}, needed,
                    {"tiles_from": "SGLang decode_attention.py (no capability branch in any release)"})]


def vision_kernels(target: Target) -> list[KernelCheck]:
    vision = target.model.vision
    if vision is None:
        return []
    block, block_from = _prefill_block(target)
    warps = 4 if vision.head_dim <= 64 else 8
    needed = prefill_attention_smem(target.gpu.capability, vision.head_dim, block, warps, 1, "bf16",
                                    triton=_triton_version(target))
    return [_check(target, "prefill_attention", "vision-tower", "every image or video in a request (vision encoder)",
                    {"head_dim": vision.head_dim, "dtype": "bf16"},
                    {"block_m": block, "block_n": block, "num_warps": warps, "num_stages": 1}, needed,
                    {"tiles_from": block_from})]


def _prefill_block(target: Target) -> tuple[int, str]:
    if target.site is not None:
        path = sglang_source.prefill_attention_file(target.site, target.version)
        if path.is_file():
            try:
                block = evaluate_assignment(path, "context_attention_fwd", "BLOCK",
                                            sglang_source.gpu_env(target.gpu.capability))
                return int(block), f"installed source {path}"
            except (SourceShapeError, TypeError, ValueError):
                pass
    return (128 if target.gpu.capability[0] > 8 else 64), f"SGLang {target.version} knowledge"


def default_mm_backend(version: Version, capability: tuple[int, int]) -> str:
    if capability[0] == 9:
        return "fa3"
    if capability[0] == 10 and release(version) >= Version("0.5.23"):
        return "fa4"
    return "triton_attn"


# --- fused MoE ---------------------------------------------------------------------------------

def moe_kernels(target: Target) -> tuple[list[KernelCheck], list[str]]:
    model = target.model
    if model.moe is None:
        return [], []
    experts = model.quantization.for_experts()
    scheme = experts.scheme
    if scheme not in MOE_DTYPES:
        runner = NOT_TRITON_MOE.get(scheme, "a non-Triton runner")
        return [], [f"MoE experts ({scheme}) run on {runner}, not the Triton fused_moe kernel"]
    dtype = MOE_DTYPES[scheme]
    ep = int(target.launch.get("ep") or 1)
    fused = _fused_shared_experts(model, ep, bool(target.launch.get("disable_shared_experts_fusion")))
    E = model.moe.routed_experts // ep + fused
    N = model.moe.intermediate_size // max(target.tp // ep, 1)
    K = model.hidden_size
    per_channel = scheme == "fp8-channel"
    block = list(experts.block_shape) if scheme == "fp8-block" and experts.block_shape else None
    shape = {"E": E, "N": N, "K": K, "dtype": dtype or "bf16", "per_channel": per_channel, "block_shape": block,
             "top_k": model.moe.top_k}
    lookup = _config_lookup(target, E, N, dtype, block, per_channel)
    if lookup["config_path"] and Path(lookup["config_path"]).is_file():
        return [_tuned_check(target, shape, lookup)], []
    # SGLang reads the device's limit; unknown in the facts, the compute capability's table value predicts it
    device_limit = target.gpu.smem_per_block_optin or smem_per_block_optin(target.gpu.capability)
    low_smem = device_limit is not None and device_limit < 128 * 1024
    checks = []
    for m_range, M in (("M <= E (decode, small batches)", E), ("M > E (prefill, large batches)", E + 1)):
        config = launch_config(moe.default_config(str(target.version), M, E, N, K, model.moe.top_k, dtype,
                                                      block, low_smem=low_smem))
        needed = _moe_bytes(target, shape, config)
        checks.append(_check(target, "fused_moe", f"default config, {m_range.split(' (')[0]}", m_range,
                              {**shape, "m_range": m_range}, config, needed, {**lookup, "source": "default"}))
    return checks, []


def _fused_shared_experts(model: Model, ep: int, disabled: bool) -> int:
    assert model.moe is not None
    if disabled or ep != 1 or model.moe.shared_experts == 0:
        return 0
    if model.family == "glm4_moe":
        return 1
    if (model.architecture == "DeepseekV3ForCausalLM" and model.moe.routed_experts == 256
            and model.moe.shared_experts == 1):
        return 1
    return 0


def _triton_version(target: Target) -> str:
    triton = target.facts.library("triton")
    if triton is not None:
        return triton.version.split("+")[0]
    return next(pin for floor, pin in TRITON_PINS if release(target.version) >= floor)


def _config_lookup(target: Target, E: int, N: int, dtype: str | None, block: list[int] | None,
                   per_channel: bool) -> dict[str, Any]:
    device = target.gpu.name
    triton = _triton_version(target)
    name = moe.config_file_name(E, N, device, dtype, block, per_channel)
    suffix = name.split(device.replace(" ", "_"), 1)[1]  # ",dtype=...json": same E, N and dtype, any device
    env = target.facts.env
    lookup: dict[str, Any] = {"config_file": name, "triton_dir": moe.triton_dir_name(triton),
                              "triton_version": triton, "config_path": None}
    if target.site is not None or env.get("SGLANG_MOE_CONFIG_DIR"):
        site = target.site or Path("/nonexistent")
        found = moe.find_config_file(site, str(target.version), triton, E, N, device, dtype, block, per_channel,
                                     env=env)
        lookup["config_path"] = str(found) if found else None
        lookup["lookup_from"] = "installed SGLang" if target.site else "SGLANG_MOE_CONFIG_DIR"
        root = moe.config_dir(site, str(target.version), env) / "configs"
        lookup["other_devices"] = sorted({p.name for p in root.glob(f"triton_*/E={E},N={N},device_name=*")
                                          if p.name != name and p.name.endswith(suffix)})
    else:
        lookup["lookup_from"] = f"SGLang {target.version} knowledge (not installed)"
        lookup["other_devices"] = sorted(f for floor, _, f in SHIPPED_SM12X if release(target.version) >= floor
                                         and f.startswith(f"E={E},N={N},") and f.endswith(suffix) and f != name)
    return lookup


def _tuned_check(target: Target, shape: dict[str, Any], lookup: dict[str, Any]) -> KernelCheck:
    entries = load_configs(lookup["config_path"])
    sized = [(M, launch_config(cfg)) for M, cfg in sorted(entries.items())]
    bytes_by_m = {M: _moe_bytes(target, shape, cfg) for M, cfg in sized}
    worst_m = max(bytes_by_m, key=bytes_by_m.get)
    limit = target.gpu.smem_per_block_optin
    details = {**lookup, "source": "file", "entries": len(sized),
               "overflowing_batch_sizes": None if limit is None else [M for M, b in bytes_by_m.items() if b > limit]}
    return _check(target, "fused_moe", "tuned config file", "every MoE layer (worst entry shown)",
                   {**shape, "m_range": f"M={worst_m} (worst of {len(sized)} entries)"},
                   dict(sized)[worst_m], bytes_by_m[worst_m], details)


def _moe_bytes(target: Target, shape: dict[str, Any], config: dict[str, int]) -> int:
    return fused_moe_smem(target.gpu.capability, shape["dtype"], config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"],
                          config["BLOCK_SIZE_K"], config["GROUP_SIZE_M"], config["num_warps"], config["num_stages"],
                          per_channel=shape["per_channel"], block_shape=shape["block_shape"],
                          triton=_triton_version(target))
