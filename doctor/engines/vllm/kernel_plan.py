"""The Triton kernels vLLM launches for a run, sized by the kernel library (doctor.kernels):

- the fused-MoE kernel when the experts run on Triton: the tuned table vLLM would load (its file name, its
  lookup order) with every entry sized, or else the release's default config at each tuned batch size;
- TRITON_MLA's grouped decode kernel (`_decode_grouped_att_m_fwd`: BLOCK_N 32, BLOCK_H 16, 4 warps, 2 stages
  on CUDA, the tiles the other engine's kernel of the same origin uses);
- TRITON_ATTN's unified attention kernels (the 2D kernel, the 3D split-KV kernel and its reduction) at the
  launches of the release (doctor.engines.vllm.unified_attention), for each attention-layer kind of the model
  (full, sliding window).

MLA prefill (FlashAttention varlen) is not sized: it is not a Triton kernel; the analysis says so in a note."""

from __future__ import annotations

from typing import Any

from doctor.engines.run import EngineRun
from doctor.engines.vllm import knowledge
from doctor.engines.vllm import moe as vllm_moe
from doctor.engines.vllm import unified_attention as ua
from doctor.engines.vllm.backends import TRITON_MOE_DTYPE
from doctor.engines.vllm.evaluate import NotStatic
from doctor.kernels import decode_attention_smem, fused_moe_smem
from doctor.kernels.check import KernelCheck
from doctor.kernels.unified_attention_smem import segments_reduce_smem, unified_attention_smem

DECODE_TILES = {"block_n": 32, "block_h": 16, "num_warps": 4, "num_stages": 2}


def _check(run: EngineRun, kernel: str, path: str, when: str, shape: dict[str, Any], config: dict[str, Any],
           nbytes: int, details: dict[str, Any]) -> KernelCheck:
    limit = run.gpu.smem_per_block_optin or 0 if run.gpu else 0
    return KernelCheck(kernel=kernel, engine="vllm", path=path, when=when, shape=shape, config=config, bytes=nbytes,
                       limit=limit, method="analytic", details=details)


def moe_shape(run: EngineRun) -> dict[str, Any]:
    """E, N, K as vLLM names the config file: N is the experts' intermediate size per rank."""
    model = run.facts.model
    assert model is not None and model.moe is not None
    experts = model.quantization.for_experts()
    scheme = experts.scheme
    ep = int(run.launch.get("ep") or 1)  # type: ignore[call-overload]
    expert_tp = 1 if ep > 1 else run.tp
    block = list(experts.block_shape) if scheme == "fp8-block" and experts.block_shape else None
    return {"E": model.moe.routed_experts // ep, "N": model.moe.intermediate_size // max(expert_tp, 1),
            "K": model.hidden_size, "dtype": TRITON_MOE_DTYPE.get(scheme), "block_shape": block,
            "per_channel": scheme == "fp8-channel", "top_k": model.moe.top_k}


def moe_kernels(run: EngineRun) -> tuple[list[KernelCheck], list[str]]:
    assert run.gpu is not None
    facts = knowledge.facts_for(run.version)
    shape = moe_shape(run)
    try:
        name = vllm_moe.config_file_name(facts, shape["E"], shape["N"], run.gpu.name, shape["dtype"],
                                         shape["block_shape"])
    except NotStatic as exc:
        return [], [f"vLLM {facts['version']}: the config file name could not be derived ({exc})"]
    where, table, how = vllm_moe.find_tuned(facts, name, run.facts.env, run.site)
    lookup = {"config_file": name, "config_path": where or None, "lookup_from": how,
              "other_devices": vllm_moe.other_devices(facts, name), "triton_dir": None,
              "function": facts["moe"]["functions"].get("get_moe_configs", {}).get("line")}
    if where and table is None:
        return [], [f"fused MoE: vLLM loads {where} ({how}); its entries are not in the doctor's data"]
    if table:
        return [_tuned(run, shape, table, lookup)], []
    return _defaults(run, facts, shape, lookup), []


def triton_for(run: EngineRun) -> str:
    """The Triton that compiles the kernels: the installed one, else the one the release's torch pins."""
    installed = run.facts.library("triton")
    return installed.version.split("+")[0] if installed and not installed.what_if else ua.pinned_triton(run.version)


def _size(run: EngineRun, shape: dict[str, Any], config: dict[str, int]) -> int:
    assert run.gpu is not None
    return fused_moe_smem(run.gpu.capability, shape["dtype"] or "bf16", config["BLOCK_SIZE_M"],
                          config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"], config["GROUP_SIZE_M"], config["num_warps"],
                          config["num_stages"], per_channel=shape["per_channel"], block_shape=shape["block_shape"],
                          triton=triton_for(run),
                          b_scale_vector=True)  # vLLM's fused_moe_kernel reads block scales as a BLOCK_N vector


def _tuned(run: EngineRun, shape: dict[str, Any], table: dict[int, dict[str, Any]], lookup: dict[str, Any]
           ) -> KernelCheck:
    sized = {M: vllm_moe.launch_config(cfg) for M, cfg in sorted(table.items())}
    nbytes = {M: _size(run, shape, cfg) for M, cfg in sized.items()}
    worst = max(nbytes, key=lambda m: nbytes[m])
    limit = run.gpu.smem_per_block_optin or 0 if run.gpu else 0
    details = {**lookup, "source": "file", "entries": len(sized),
               "overflowing_batch_sizes": [M for M, b in nbytes.items() if b > limit]}
    return _check(run, "fused_moe", "tuned config file", "every MoE layer (worst entry shown)",
                  {**shape, "m_range": f"M={worst} (worst of {len(sized)} entries)"}, sized[worst], nbytes[worst],
                  details)


def _defaults(run: EngineRun, facts: dict[str, Any], shape: dict[str, Any], lookup: dict[str, Any]
              ) -> list[KernelCheck]:
    """The release's default config at each tuned batch size, one check per distinct config."""
    by_config: dict[tuple[tuple[str, int], ...], list[int]] = {}
    for M in vllm_moe.TUNED_BATCH_SIZES:
        config = vllm_moe.launch_config(vllm_moe.default_config(
            facts, M, shape["E"], shape["N"], shape["K"], shape["top_k"], shape["dtype"], shape["block_shape"]))
        by_config.setdefault(tuple(sorted(config.items())), []).append(M)
    line = facts["moe"]["functions"]["get_default_config"]["line"]
    checks = []
    for items, batch in by_config.items():
        config = dict(items)
        m_range = f"M={batch[0]}" if len(batch) == 1 else f"M={batch[0]}..{batch[-1]}"
        checks.append(_check(run, "fused_moe", f"default config, {m_range}", f"batches of {m_range} tokens",
                             {**shape, "m_range": m_range}, config, _size(run, shape, config),
                             {**lookup, "source": "default", "batch_sizes": batch,
                              "default_from": f"vllm/model_executor/layers/fused_moe/fused_moe.py:{line} "
                                              f"get_default_config (vLLM {facts['version']})"}))
    return checks


def mla_decode_kernels(run: EngineRun) -> list[KernelCheck]:
    model = run.facts.model
    assert model is not None and run.gpu is not None
    att = model.attention
    lk, lv = (att.kv_lora_rank or 0) + (att.qk_rope_head_dim or 0), att.kv_lora_rank or 0
    dtype = "fp8" if str(run.launch.get("kv_cache_dtype") or "").startswith("fp8") else "bf16"
    t = DECODE_TILES
    revision = decode_kernel_revision(run.version)
    nbytes = decode_attention_smem(run.gpu.capability, lk, lv, t["block_n"], t["block_h"], t["num_warps"],
                                   t["num_stages"], kv_dtype=dtype, grouped=True, revision=revision,
                                   triton=triton_for(run))
    return [_check(run, "decode_attention", "TRITON_MLA decode (grouped)", "every decode step",
                   {"lk": lk, "lv": lv, "kv_dtype": dtype}, dict(t), nbytes,
                   {"tiles_from": "vllm triton_decode_attention.py _decode_grouped_att_m_fwd (CUDA branch)",
                    "kernel_revision": revision})]


def decode_kernel_revision(version: Any) -> int:
    """Which source of the Triton MLA decode kernel a vLLM release ships (doctor.kernels.attention_smem
    LATEST_REVISION), read from each wheel's triton_decode_attention.py: up to 0.17 the first form
    (K upcast to q's dtype, V loaded: 1); 0.18 and 0.19 K and V dequantised with their scales (4); from 0.20
    V read as the dequantised K transposed (IS_MLA: 3). With an fp8 KV cache the last needs 102,400 bytes at
    vLLM's tiles, over SM12x's 101,376."""
    from packaging.version import Version

    from doctor.versions import release

    plain = release(version)
    if plain >= Version("0.20"):
        return 3
    return 4 if plain >= Version("0.18") else 1


_UA_PATHS = {"2d": ("unified attention 2D", "prefill and large batches"),
             "3d": ("unified attention 3D (split KV)", "small decode batches"),
             "reduce": ("reduce_segments", "after every 3D launch")}


def unified_attention_kernels(run: EngineRun) -> tuple[list[KernelCheck], list[str]]:
    """TRITON_ATTN's kernels for each attention-layer kind of the model, at the release's launches, and a note for
    each launch the closed form refuses."""
    model = run.facts.model
    assert model is not None and run.gpu is not None
    att = model.attention
    heads, kv_heads = max(att.num_heads // run.tp, 1), max(att.num_kv_heads // run.tp, 1)
    kv = "fp8" if str(run.launch.get("kv_cache_dtype") or "").startswith("fp8") else "bf16"
    triton = triton_for(run)
    revision = ua.kernel_revision(run.version)
    windows = [0] if not att.sliding_window or att.sliding_window_layers < model.num_layers else []
    windows += [att.sliding_window] if att.sliding_window else []
    checks: list[KernelCheck] = []
    notes: list[str] = []
    seen: set[tuple] = set()
    for window in windows:
        for launch in ua.launches(run.version, att.head_dim, heads // kv_heads, kv, window, run.gpu.capability):
            key = (launch["kernel"], launch.get("segments")) if launch["kernel"] == "reduce" else tuple(launch.items())
            if key in seen:
                continue
            seen.add(key)
            try:
                checks.append(_unified_check(run, launch, bool(att.sinks), triton, revision))
            except ValueError as exc:
                notes.append(f"TRITON_ATTN {_UA_PATHS[launch['kernel']][0]} (window {window}) not sized: {exc}")
    return checks, notes


def _unified_check(run: EngineRun, launch: dict[str, Any], sinks: bool, triton: str, revision: int) -> KernelCheck:
    assert run.gpu is not None
    kernel, cc = launch["kernel"], run.gpu.capability
    path, when = _UA_PATHS[kernel]
    config = {"BLOCK_M": launch["block_m"], "TILE_SIZE": launch["tile"], "num_warps": launch["num_warps"],
              "num_stages": launch["num_stages"]}
    shape = {"head_size": launch["head_size"], "q_per_kv": launch["q_per_kv"], "kv_dtype": launch["kv"]}
    if kernel == "reduce":
        config = {"NUM_SEGMENTS_PER_SEQ": launch["segments"], "num_warps": launch["num_warps"]}
        nbytes = segments_reduce_smem(cc, launch["head_size"], launch["segments"], launch["num_warps"], triton)
    else:
        shape |= {"sliding_window": launch["window"], "sinks": sinks}
        nbytes = unified_attention_smem(cc, launch["head_size"], launch["block_m"], launch["tile"],
                                        launch["num_warps"], launch["num_stages"], launch["kv"], kernel == "3d",
                                        launch["window"], sinks, triton=triton, revision=revision)
    if launch["window"] and kernel != "reduce":
        when = f"{when}, sliding-window layers"
    return _check(run, "unified_attention", path, when, shape, config, nbytes,
                  {"kernel_revision": revision, "triton": triton, "launch": launch,
                   "launch_from": "vllm/v1/attention/ops/triton_unified_attention.py unified_attention"})
