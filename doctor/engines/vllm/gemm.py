"""Which kernel vLLM runs for a model's dense (non-MoE) linear layers on SM12x, per release and quantization
scheme, from the candidates the wheel facts keep (doctor/data/vllm, section `gemm`, written by
tools/vllm_facts/gemm.py): the first candidate whose gate holds on this capability wins. A gate
that only the running system answers stays a condition in the answer, named by what decides it: the
compiled extension (`ops.cutlass_scaled_mm_supports_fp8`), an installed package (`has_flashinfer()`,
`has_deep_gemm()`), or the layer (shape, dtype). On/off environment variables (`VLLM_USE_DEEP_GEMM`) are set
from the user's environment, else the release's default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from doctor.engines.spi import EngineRun
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.evaluate import Capability

CAPABILITIES = {"12.0": Capability(12, 0), "12.1": Capability(12, 1)}
# the doctor's quantization scheme (doctor.pipeline.facts.Quantization.scheme) -> the data's scheme
SCHEMES = {"fp8-tensor": "fp8", "fp8-channel": "fp8", "fp8-block": "fp8-block", "int8-w8a8": "int8-w8a8",
           "int4-w4a16": "wna16", "gptq": "wna16", "awq": "awq", "nvfp4": "nvfp4", "mxfp4": "mxfp4"}
DENSE_ROLES = ("attention", "dense_mlp", "shared_experts")  # Quantization.quantized roles that are dense layers
# Online quantization of an unquantized checkpoint (`--quantization fp8_per_block`, vLLM 0.20.0 on): the wheels'
# `Fp8PerBlockOnlineLinearMethod` (quantization/online/fp8.py, 0.20.0-0.33.0) quantizes every linear layer the
# ignore list leaves and picks its kernel with `init_fp8_linear_kernel` on the (1, 128) activation and
# (128, 128) weight keys, the chain a block-FP8 checkpoint's layers walk.
ONLINE_SCHEMES = {"fp8_per_block": "fp8-block"}
UNQUANTIZED = ("bf16", "fp16", "fp32")  # checkpoint schemes online quantization applies to
BLOCK_N = 128  # the CUTLASS blockwise FP8 GEMM's weight-scale tile along N (vllm#47990, vllm#48587)
LAYER_FITS = " if the layer fits its can_implement"


@dataclass(frozen=True)
class Depends:
    """A gate only the running system answers: the alternatives under which it holds."""

    when: tuple[str, ...]


def truthy(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def resolve(answer: dict[str, Any], env: dict[str, Any]) -> Any:
    """The gate's value once the environment switches are set, or Depends on the questions left."""
    if "value" in answer:
        return answer["value"]
    cases = [c for c in answer["cases"] if all(_env_agrees(key, assumed, env) for key, assumed in c["when"].items())]
    if len({repr(c["value"]) for c in cases}) == 1:
        return cases[0]["value"]
    kinds = answer.get("asks", {})
    holds = simplify([{k: v for k, v in c["when"].items() if not k.startswith("envs.")}
                      for c in cases if c["value"] is True])
    alternatives = [" and ".join(f"{'' if assumed else 'not '}{key} [{kinds.get(key, 'runtime')}]"
                                 for key, assumed in when.items()) or "always" for when in holds]
    return Depends(tuple(dict.fromkeys(alternatives)))


def simplify(whens: list[dict[str, bool]]) -> list[dict[str, bool]]:
    """Merge alternatives that differ in one question only (it does not matter there)."""
    whens = [dict(w) for w in whens]
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(whens):
            for b in whens[i + 1:]:
                differ = [k for k in a if k in b and a[k] != b[k]]
                if a.keys() == b.keys() and len(differ) == 1:
                    whens = [w for w in whens if w is not a and w is not b] + \
                        [{k: v for k, v in a.items() if k != differ[0]}]
                    merged = True
                    break
            if merged:
                break
    return whens


def _env_agrees(key: str, assumed: bool, env: dict[str, Any]) -> bool:
    if not key.startswith("envs.") or key[5:] not in env or env[key[5:]] is None:
        return True
    return truthy(env[key[5:]]) == assumed


def choose(candidates: list[dict[str, Any]], label: str, env: dict[str, Any]) -> dict[str, Any]:
    """The chain vLLM walks on capability `label`: candidates that depend on the system, then the first that
    holds outright. `backend` is the first of the chain; `skipped` says why the others are passed over."""
    chain: list[dict[str, Any]] = []
    skipped: list[str] = []
    disabled = set(str(env.get("VLLM_DISABLED_KERNELS") or "").split(","))  # the kernel choosers honour it
    for candidate in candidates:
        if candidate["backend"] in disabled:
            skipped.append(f"{candidate['backend']}: disabled by VLLM_DISABLED_KERNELS")
            continue
        if label not in candidate:
            skipped.append(f"{candidate['backend']}: {candidate.get('answer', 'not read')}")
            continue
        verdict = resolve(candidate[label], env)
        fits = candidate.get(f"fits@{label}", True)
        where = {"file": candidate.get("file"), "line": candidate.get("line")}
        if verdict is False or fits is False:
            why = candidate[label].get("why") if verdict is False else \
                candidate.get(f"fits_why@{label}", "can_implement refuses this GPU")
            why = why or "gate False"
            skipped.append(f"{candidate['backend']}: {why}")
        elif verdict is True and fits == "layer":
            chain.append({"backend": candidate["backend"], "when": "the layer fits (can_implement)", **where})
        elif verdict is True:
            chain.append({"backend": candidate["backend"], "when": "always", **where})
            break
        elif isinstance(verdict, Depends):
            layer = " and the layer fits (can_implement)" if fits == "layer" else ""
            chain.append({"backend": candidate["backend"], "when": " or ".join(verdict.when) + layer, **where})
        else:
            chain.append({"backend": candidate["backend"], "when": f"not modelled ({verdict})", **where})
    if not chain:
        return {"backend": "none", "when": "no candidate holds", "chain": [], "skipped": skipped}
    return {"backend": chain[0]["backend"], "when": chain[0]["when"], "file": chain[0]["file"],
            "line": chain[0]["line"], "chain": chain, "skipped": skipped}


def scheme_of(scheme: str, method: str | None) -> str | None:
    """The data's scheme for a checkpoint; None for an unquantized one (F.linear on cuBLAS)."""
    if scheme == "mxfp4" and (method or "mxfp4") == "mxfp4":
        return "mxfp4-gpt-oss"
    if scheme == "nvfp4" and method == "compressed-tensors":
        return "nvfp4-ct"  # its own selection before 0.16; the data has no such scheme where it shares ModelOpt's
    return SCHEMES.get(scheme)


def describe(pick: dict[str, Any]) -> str:
    """`A if <cond>; else B` for a chain, with the backends after the first that holds outright (or whose
    only condition is the layer) named, not spelled out."""
    parts: list[str] = []
    rest: list[str] = []
    for link in pick["chain"]:
        if rest or (parts and parts[-1].endswith(LAYER_FITS)):
            rest.append(link["backend"])
        elif link["when"] == "always":
            parts.append(f"else {link['backend']}" if parts else link["backend"])
        elif link["when"] == "the layer fits (can_implement)":
            parts.append(f"{link['backend']}{LAYER_FITS}")
        else:
            parts.append(f"{link['backend']} if {link['when']}")
    text = "; ".join(parts) if parts else "no kernel: " + "; ".join(pick["skipped"])
    return text + (f" (then {', '.join(rest)})" if rest else "")


def linear_choice(facts: dict[str, Any], scheme: str, method: str | None, label: str,
                  user_env: dict[str, str]) -> dict[str, Any] | None:
    """The pick for this release, checkpoint and capability, with the user's environment applied."""
    key = scheme_of(scheme, method)
    schemes = facts.get("gemm", {}).get("schemes", {})
    key = "nvfp4" if key == "nvfp4-ct" and key not in schemes else key
    entry = schemes.get(key or "")
    if entry is None:
        return None
    env = {name: row.get("default") for name, row in facts["envs"]["table"].items()}
    env.update({k: v for k, v in user_env.items() if k.startswith("VLLM_")})
    pick = choose(entry["candidates"], label, env)
    return {**pick, "scheme": key, "selector": f"{entry['file']}:{entry['line']}", "how": entry["how"]}


@dataclass(frozen=True)
class LinearChoice:
    backend: str
    source: str
    note: str
    pick: dict[str, Any]
    online: bool = False  # the layers are quantized at load time (`--quantization fp8_per_block`)


def linear_backend(run: EngineRun) -> LinearChoice | None:
    """The dense GEMM kernel of a quantized model's linear layers on an SM12x GPU (None: unquantized, no GPU,
    or a GPU the data does not cover)."""
    model = run.facts.model
    if model is None or run.gpu is None:
        return None
    label = "{}.{}".format(*run.gpu.capability)
    facts = knowledge.facts_for(run.version)
    quant = model.quantization
    if quant.quantized and not any(role in quant.quantized for role in DENSE_ROLES):
        return None  # only the experts are quantized: the dense layers run unquantized
    online = ONLINE_SCHEMES.get(str(run.launch.get("quantization") or "")) if quant.scheme in UNQUANTIZED else None
    scheme, method = (online, None) if online else (quant.scheme, quant.method)
    pick = linear_choice(facts, scheme, method, label, dict(run.facts.env)) if label in CAPABILITIES else None
    if pick is None:
        return None
    where = f"{pick['how']}, {pick['selector']}"
    forced = run.launch.get("linear_backend")
    if forced and "--linear-backend" in facts["flags"]:
        return LinearChoice(str(forced), "--linear-backend", f"dense linear layers: --linear-backend {forced} "
                            f"(automatic choice on {label}: {describe(pick)})", pick, bool(online))
    how = f"{scheme}, quantized at load by --quantization {run.launch.get('quantization')}" if online else scheme
    note = f"dense linear layers ({how}, vLLM {facts['version']}, {label}): {describe(pick)} ({where})"
    return LinearChoice(pick["backend"], f"vLLM {facts['version']} {where}", note, pick, bool(online))


def narrow_block_layers(run: EngineRun, choice: LinearChoice | None) -> list[str]:
    """Layers that online block-FP8 quantization gives an output width per rank that is not a multiple of 128:
    the Gated DeltaNet `in_proj_ba` (Qwen3.5's [num_v_heads] * 2, Qwen3-Next's [num_v_heads * 2], split by TP:
    layers/mamba/gdn_linear_attn.py `create_ba_proj` in 0.20.0, gdn/qwen_gdn_linear_attn.py in 0.24.0-0.33.0).
    Only online quantization: a block-FP8 checkpoint states which layers it quantized."""
    model = run.facts.model
    state = model.recurrent_state if model is not None else None
    if choice is None or not choice.online or choice.pick.get("scheme") != "fp8-block" or state is None \
            or state.kind != "gdn" or run.tp < 1 or (2 * state.heads) % run.tp:
        return []
    width = 2 * state.heads // run.tp
    return [f"linear_attn.in_proj_ba (N = {width} per rank)"] if width % BLOCK_N else []
