"""What vLLM itself decided for this model's shape class on this GPU, read from the derived dispatch tables
(doctor/data/derived/vllm/<release>.json, written offline by `python -m tools.engine_oracle vllm RELEASE`,
which runs the release's own selection on an emulated device). `check` only reads the tables: a release,
capability or shape class they do not hold is "not derived", never matched to a neighbour.

A table stands for its minor release (0.33.0 for 0.33.x) unless a patch release has its own table: patches
usually ship the same selection code, but not always (0.15.1)."""

from __future__ import annotations

import json
from typing import Any

from packaging.version import Version

from doctor.engines.derived_tables import capability_label, kv_class
from doctor.engines.derived_tables import table as engine_table
from doctor.engines.derived_tables import tabulated as engine_tabulated
from doctor.engines.spi import EngineRun
from doctor.engines.vllm import dependency
from doctor.engines.vllm.shape_class import shape_class, shape_key

ENGINE = "vllm"
SLOW_PATHS = ("Marlin", "MARLIN", "Naive", "NAIVE", "Emulation", "EMULATION")
# Formats with their own tensor-core kernels: Marlin or emulation for these is a fallback. For INT4 weights
# (AWQ, GPTQ, compressed-tensors W4A16) Marlin is the native kernel on every GPU, not a fallback.
NATIVE_FORMATS = ("fp8-block", "fp8-tensor", "fp8-channel", "nvfp4", "mxfp4")


def tabulated() -> tuple[str, ...]:
    return engine_tabulated(ENGINE)


def table(release: str) -> dict[str, Any]:
    return engine_table(ENGINE, release)


def table_release(version: Version) -> str | None:
    """The release's own table, else the newest tabulated patch of its minor not newer than it (0.15.1
    changed the NVFP4 MoE selection of 0.15.0: a patch can move a choice), else its minor's table."""
    same_minor = [r for r in tabulated() if Version(r).release[:2] == version.release[:2]]
    older = [r for r in same_minor if Version(r) <= version]
    return (older or same_minor or [None])[-1]


def kv_dtype(run: EngineRun) -> str:
    return kv_class(str(run.launch.get("kv_cache_dtype") or "auto"))


def forced_moe(run: EngineRun) -> str | None:
    chosen = run.launch.get("moe_backend")
    return str(chosen).lower().replace("-", "_") if chosen and str(chosen).lower() != "auto" else None


# The environment variables the grid varies (tools/engine_oracle/grid.py ENV_KEYS): an entry holds for a run
# whose values of these match its own, and no others.
ENV_KEYS = ("VLLM_USE_DEEP_GEMM", "VLLM_USE_FLASHINFER_MOE_FP4")


def grid_env(run: EngineRun) -> dict[str, str]:
    return {name: run.facts.env[name] for name in ENV_KEYS if name in run.facts.env}


def _matching(entries: list[dict[str, Any]], capability: str, shape: dict[str, Any], kv: str,
              moe: str | None = None, env: dict[str, str] | None = None, tp: int = 1) -> dict | None:
    return next((e for e in entries if e["capability"] == capability and e["shape"] == shape
                 and e["kv_cache_dtype"] == kv and e.get("moe_backend") == moe
                 and e.get("env", {}) == (env or {}) and e.get("tp", 1) == tp), None)


def tensor_parallel(run: EngineRun) -> int:
    return int(run.launch.get("tp") or 1)  # type: ignore[call-overload]


# The speculative method whose drafter the grid builds (tools/engine_oracle/grid.py SPECULATIVE_MTP)
GRID_DRAFTER = "mtp"


def _speculative(run: EngineRun) -> dict[str, Any]:
    """`--speculative-config JSON` as a dict ({} without one, or one that is not a JSON object)."""
    raw = run.launch.get("speculative_config")
    try:
        spec = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return spec if isinstance(spec, dict) else {}


def speculative_method(run: EngineRun) -> str | None:
    method = _speculative(run).get("method")
    return str(method) if method else None


def _speculative_moe(run: EngineRun) -> str | None:
    chosen = _speculative(run).get("moe_backend")
    return str(chosen).lower().replace("-", "_") if chosen and str(chosen).lower() != "auto" else None


def text_only(run: EngineRun) -> bool:
    """`--language-model-only`, or a `--limit-mm-per-prompt` of 0 for every modality: vLLM then turns the
    multimodal prefix attention off (`is_mm_prefix_lm(supports_multimodal=False)`, vllm/transformers_utils/
    model_arch_config_convertor.py at v0.28.0), which changes which attention backends are valid."""
    values = dict(run.launch.values)
    args = list(run.launch.args)
    for index, arg in enumerate(args):
        flag, _, inline = arg.partition("=")
        if flag.replace("_", "-") == "--language-model-only":
            values["language_model_only"] = True
        elif flag.replace("_", "-") == "--limit-mm-per-prompt":
            values["limit_mm_per_prompt"] = inline or (args[index + 1] if index + 1 < len(args) else "")
    if values.get("language_model_only"):
        return True
    limits = values.get("limit_mm_per_prompt")
    try:
        limits = json.loads(limits) if isinstance(limits, str) else limits
    except ValueError:
        return False
    return isinstance(limits, dict) and bool(limits) and all(v == 0 for v in limits.values())


def lookup(run: EngineRun, drafter: str | None = None) -> tuple[str | None, dict[str, Any] | None, str]:
    """(release of the table, its entry, why there is none); with `drafter`, the drafter's entry."""
    model = run.facts.model
    if model is None or run.gpu is None:
        return None, None, "no model or GPU"
    if model.vision is not None and text_only(run):
        return None, None, "text-only serving of a multimodal model (the grid asks multimodal models as they " \
                           "ship: vLLM's multimodal-prefix attention changes which backends are valid)"
    release = table_release(run.version)
    if release is None:
        return None, None, f"no derived table for vLLM {run.version.base_version} (tabulated: " \
                           f"{', '.join(tabulated()) or 'none'})"
    shape = shape_class(model, drafter)
    entries = table(release)["entries"]
    capability = capability_label(run.gpu.capability)
    if not any(e["capability"] == capability for e in entries):
        return release, None, f"capability {capability} not emulated for vLLM {release}"
    # the drafter takes the speculative config's own moe_backend, else (from 0.19.0) the target's --moe-backend:
    # either one set matches only a drafter entry asked with it (none yet: not derived)
    moe = (_speculative_moe(run) or forced_moe(run)) if drafter else forced_moe(run)
    # rank 0 of the run's own TP size where the grid asks it; else the one-rank entry, as every table before
    # the TP queries (the view names the TP size the entry was derived at)
    entry = _matching(entries, capability, shape, kv_dtype(run), moe, grid_env(run), tensor_parallel(run)) \
        or _matching(entries, capability, shape, kv_dtype(run), moe, grid_env(run))
    if entry is None:
        forced = f", --moe-backend {moe}" if moe else ""
        return release, None, f"shape class {shape_key(shape)} (KV {kv_dtype(run)}{forced}) not in the grid " \
                              f"of vLLM {release}"
    return release, entry, ""


def first_error(entry: dict[str, Any], kind: str = "rejection") -> dict[str, Any] | None:
    return next((error for error in entry["errors"] if error.get("kind") == kind), None)


def _elsewhere(entry: dict[str, Any], release: str, accept: Any) -> str | None:
    """The nearest other tabulated release whose entry for the same capability and shape passes `accept`."""
    others = sorted(tabulated(), key=lambda r: abs(Version(r).release[1] - Version(release).release[1]))
    for other in others:
        if other == release:
            continue
        found = _matching(table(other)["entries"], entry["capability"], entry["shape"], entry["kv_cache_dtype"],
                          entry.get("moe_backend"), entry.get("env"), entry.get("tp", 1))
        if found is not None and accept({**found, "release": other}):
            return other
    return None


JIT_LIBRARIES = {"deep_gemm": ("DeepGemm", "DEEPGEMM", "DEEP_GEMM")}


def _decision_names(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, name) of every kernel or backend the entry's layers hold."""
    moe = entry.get("moe") or {}
    names = [("MoE experts", str(n)) for n in (moe.get("backend"), moe.get("experts"),
                                                *(moe.get("kernels") or {}).values()) if n]
    names += [("linear layers", k) for group in entry.get("linear") or [] for k in group["kernels"].values()]
    return names


def _without_code(entry: dict[str, Any], release: str) -> dict[str, str] | None:
    """A picked kernel from a JIT library whose shipped sources have no implementation for this GPU's
    architecture family (DeepGEMM's `smNN_*.cuh`: sm120 serves 12.0 and 12.1)."""
    family = f"sm{entry['capability'].split('.')[0]}0"
    for library, markers in JIT_LIBRARIES.items():
        shipped = table(release).get("jit_archs", {}).get(library)
        if shipped is None or family in shipped["archs"]:
            continue
        for where, name in _decision_names(entry):
            if any(marker in name for marker in markers):
                return {"where": where, "choice": name, "library": library, "source": shipped["source"],
                        "archs": ", ".join(shipped["archs"]), "family": family,
                        "fix": _no_code_fix(entry, release, library, family)}
    return None


def _has_code(entry: dict[str, Any], release: str, library: str, family: str) -> bool:
    shipped = table(release).get("jit_archs", {}).get(library, {"archs": [family]})
    markers = JIT_LIBRARIES[library]
    picks = any(any(m in name for m in markers) for _, name in _decision_names(entry))
    return not entry["errors"] and (not picks or family in shipped["archs"])


def _no_code_fix(entry: dict[str, Any], release: str, library: str, family: str) -> str:
    """What the tables show works: the same release with vLLM's switch for the library off (an entry the grid
    asked with that environment), or the first newer release whose sources have the architecture."""
    fixes = []
    for other in table(release)["entries"]:
        if other["capability"] == entry["capability"] and other["shape"] == entry["shape"] and other.get("env") \
                and other.get("tp", 1) == entry.get("tp", 1) \
                and other["kv_cache_dtype"] == entry["kv_cache_dtype"] and not other.get("moe_backend") \
                and _has_code(other, release, library, family):
            setting = " ".join(f"{k}={v}" for k, v in other["env"].items())
            picked = ", ".join(sorted({n for _, n in _decision_names(other)})) or "other kernels"
            fixes.append(f"set {setting}: vLLM {release} then picks {picked} here")
    newer = [r for r in tabulated() if Version(r) > Version(release)]
    for other in newer:
        found = _matching(table(other)["entries"], entry["capability"], entry["shape"], entry["kv_cache_dtype"],
                          entry.get("moe_backend"), entry.get("env"), entry.get("tp", 1))
        if found is not None and _has_code(found, other, library, family):
            fixes.append(f"or upgrade to vLLM {other}, whose {library} has {family} sources")
            break
    return "; ".join(fixes) or f"no tabulated vLLM release or setting avoids {library} here"


def _rejection_fix(entry: dict[str, Any], release: str) -> str:
    """Without the forced MoE backend when vLLM's own pick builds; else the nearest release that builds."""
    if entry.get("moe_backend"):
        auto = _matching(table(release)["entries"], entry["capability"], entry["shape"], entry["kv_cache_dtype"],
                         tp=entry.get("tp", 1))
        if auto is not None and not auto["errors"]:
            picked = (auto.get("moe") or {}).get("backend") or "its own choice"
            return f"Drop --moe-backend {entry['moe_backend']}: vLLM {release} picks {picked} for this shape on " \
                   f"capability {entry['capability']} and builds it"
    if entry["kv_cache_dtype"] != "auto":
        for kv, spelled in (("fp8", "--kv-cache-dtype fp8"), ("auto", "no --kv-cache-dtype")):
            other = _matching(table(release)["entries"], entry["capability"], entry["shape"], kv,
                              entry.get("moe_backend"), entry.get("env"), entry.get("tp", 1))
            if kv != entry["kv_cache_dtype"] and other is not None and not other["errors"]:
                picked = (other.get("attention") or {}).get("backend") or "its own choice"
                return f"Use {spelled}: vLLM {release} builds this shape with it on capability " \
                       f"{entry['capability']} (attention {picked})"
    works = _elsewhere(entry, release, lambda e: not e["errors"])
    if works:
        return f"vLLM {works} builds this shape class with these flags on capability {entry['capability']}"
    return "No tabulated vLLM release builds this shape class with these flags on this GPU"


def _slow_path(entry: dict[str, Any]) -> dict[str, str] | None:
    if entry["shape"]["quant"] not in NATIVE_FORMATS or entry.get("moe_backend"):
        return None
    moe = entry.get("moe") or {}
    for name in (moe.get("backend"), moe.get("experts"), *(moe.get("kernels") or {}).values()):
        if name and any(word in name for word in SLOW_PATHS):
            return {"where": "MoE experts", "choice": str(name), "method": moe.get("method") or ""}
    for group in entry.get("linear") or []:
        for kernel in group["kernels"].values():
            if any(word in kernel for word in SLOW_PATHS):
                return {"where": "linear layers", "choice": kernel, "method": group["method"]}
    return None


def _forced_rejection(run: EngineRun, entry: dict[str, Any]) -> dict[str, Any] | None:
    forced = str(run.launch.get("attention_backend") or run.facts.env.get("VLLM_ATTENTION_BACKEND") or "").upper()
    attention = entry.get("attention") or {}
    reasons = (attention.get("if_forced") or {}).get(forced) or (attention.get("rejected") or {}).get(forced)
    if not forced or not reasons:
        return None
    return {"backend": forced, "reasons": "; ".join(reasons), "works": attention.get("backend") or ""}


def _drafter_view(run: EngineRun) -> dict[str, Any] | None:
    """The MTP drafter vLLM's spec-decode proposer builds for `--speculative-config` method mtp, from its own
    grid entry: status, and the drafter's own rejection or kernel without code. A model-specific MTP method
    name (`deepseek_mtp`, ...) is another query (older releases parse it their own way): not derived."""
    method = speculative_method(run)
    if method is None or not (method == GRID_DRAFTER or method.endswith("_mtp")):
        return None
    if method != GRID_DRAFTER:
        return {"status": "not_derived", "method": method,
                "why": f"the grid builds the drafter of --speculative-config method {GRID_DRAFTER}, not {method}"}
    release, entry, why = lookup(run, GRID_DRAFTER)
    stopped = first_error(entry, "emulation") if entry is not None else None
    if stopped is not None:
        why, entry = f"the emulation of vLLM {release}'s drafter stopped at {stopped['stage']}: {stopped['type']}", None
    if entry is None or release is None:
        return {"status": "not_derived", "method": method, "why": why, "release": release}
    drafter = {"status": "derived", "method": method, "release": release, "capability": entry["capability"],
               "shape": entry["shape_key"], "architecture": (entry.get("drafter") or {}).get("architecture"),
               "attention": (entry.get("attention") or {}).get("backend"), "moe": entry.get("moe"),
               "source": f"doctor/data/derived/vllm/{release}.json ({entry['grid']}, capability "
                         f"{entry['capability']})", "rejection": None, "no_code": None}
    error = first_error(entry)
    if error is not None:
        drafter["rejection"] = {**error, "message": error["message"].splitlines()[0][:1200],
                                "fix": _rejection_fix(entry, release)}
    else:
        drafter["no_code"] = _without_code(entry, release)
    return drafter


def view(run: EngineRun) -> dict[str, Any]:
    """What rules read under `vllm.derived`: `status` derived / not_derived, and for a derived entry the
    decisions, the engine's own rejection (`rejection`), a forced attention backend vLLM refuses
    (`forced_rejection`), a slow fallback (`fallback`), each with the release where the answer changes."""
    release, entry, why = lookup(run)
    if entry is not None and first_error(entry, "emulation") is not None:
        stopped = first_error(entry, "emulation")
        why, entry = f"the emulation of vLLM {release} stopped at {stopped['stage']}: {stopped['type']}", None
    drafter = _drafter_view(run)
    if entry is None:
        return {"status": "not_derived", "why": why, "release": release, "drafter": drafter,
                "dependency": dependency.view(run, table_release(run.version)),
                "import_clash": dependency.import_view(run, table_release(run.version))}
    assert release is not None
    attention = entry.get("attention") or {}
    out: dict[str, Any] = {
        "status": "derived", "release": release, "capability": entry["capability"], "shape": entry["shape_key"],
        "grid": entry["grid"], "attention": attention.get("backend"), "moe": entry.get("moe"),
        "source": f"doctor/data/derived/vllm/{release}.json ({entry['grid']}, capability {entry['capability']})",
        "tp": entry.get("tp", 1), "rejection": None, "forced_rejection": _forced_rejection(run, entry),
        "fallback": None, "no_code": None,
        "drafter": drafter, "dependency": dependency.view(run, release),
        "import_clash": dependency.import_view(run, release),
    }
    error = first_error(entry)
    if error is not None:
        out["rejection"] = {**error, "message": error["message"].splitlines()[0][:1200],
                            "fix": _rejection_fix(entry, release)}
    out["no_code"] = _without_code(entry, release) if error is None else None
    slow = _slow_path(entry)
    if slow is not None and error is None:
        faster = _elsewhere(entry, release, lambda e: not e["errors"] and _slow_path(e) is None)
        out["fallback"] = {**slow, "faster_in": faster or "",
                           "fix": f"vLLM {faster} picks a native path" if faster else
                           "no tabulated release picks another path for this shape on this GPU"}
    return out
