"""What SGLang itself decided for this model's shape class on this GPU, read from the derived dispatch tables
(doctor/data/derived/sglang/<release>.json, written offline by `python -m tools.engine_oracle sglang RELEASE`,
which runs the release's own `prepare_server_args` and model construction on an emulated device). `check`
only reads the tables: a release, capability, shape class or forced choice they do not hold is "not
derived", never matched to a neighbour.

A table stands for its own release only: SGLang moves backends in every release, post releases included
(0.5.6.post2 defaults GQA models to trtllm_mha on SM12x and then refuses it, where 0.5.6 picks FlashInfer), so
0.5.9 never stands for 0.5.10 nor 0.5.10 for 0.5.10.post1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from packaging.version import Version

from doctor.engines.derived_tables import capability_label, kv_class, shape_class, shape_key, table, tabulated
from doctor.engines.spi import EngineRun

ENGINE = "sglang"
# The environment variables the grid varies (tools/engine_oracle/sglang_grid.py ENV_KEYS).
ENV_KEYS = ("SGLANG_ENABLE_JIT_DEEPGEMM",)
# The flags whose value selects a grid entry: a value the grid did not ask is "not derived".
FORCED = ("attention_backend", "prefill_attention_backend", "decode_attention_backend", "moe_runner_backend",
          "quantization", "fp8_gemm_backend")
JIT_LIBRARIES = {"deep_gemm": ("deepgemm", "deep_gemm", "DeepGemm", "DEEP_GEMM")}
SLOW_PATHS = ("marlin", "Marlin", "MARLIN")
# Formats with their own tensor-core kernels: Marlin for these is a fallback (for INT4 weights it is the native
# kernel on every GPU).
NATIVE_FORMATS = ("fp8-block", "fp8-tensor", "fp8-channel", "nvfp4", "mxfp4")


def table_release(version: Version) -> str | None:
    """The user's release if it has a table (a local version label aside), else None: not derived."""
    return next((r for r in tabulated(ENGINE) if Version(r) == Version(version.public)), None)


def _value(run: EngineRun, key: str) -> str | None:
    value = run.launch.get(key)
    if value is None or str(value).lower() in ("", "auto", "none"):
        return None
    return str(value).lower().replace("-", "_") if key != "quantization" else str(value).lower()


def forced(run: EngineRun) -> dict[str, str]:
    return {key: value for key in FORCED if (value := _value(run, key)) is not None}


def grid_env(run: EngineRun) -> dict[str, str]:
    return {name: run.facts.env[name] for name in ENV_KEYS if name in run.facts.env}


def kv_dtype(run: EngineRun) -> str:
    return kv_class(str(run.launch.get("kv_cache_dtype") or "auto"))


def matching(entries: list[dict[str, Any]], capability: str, shape: dict[str, Any], kv: str,
             chosen: dict[str, str], env: dict[str, str]) -> dict[str, Any] | None:
    return next((e for e in entries if e["capability"] == capability and e["shape"] == shape
                 and e["kv_cache_dtype"] == kv and e["forced"] == chosen and e["env"] == env), None)


def lookup(run: EngineRun) -> tuple[str | None, dict[str, Any] | None, str]:
    """(release of the table, its entry, why there is none)."""
    model = run.facts.model
    if model is None or run.gpu is None:
        return None, None, "no model or GPU"
    release = table_release(run.version)
    if release is None:
        return None, None, f"no derived table for SGLang {run.version} (tabulated: " \
                           f"{', '.join(tabulated(ENGINE)) or 'none'})"
    shape, capability = shape_class(model), capability_label(run.gpu.capability)
    entries = table(ENGINE, release)["entries"]
    if not any(e["capability"] == capability for e in entries):
        return release, None, f"capability {capability} not emulated for SGLang {release}"
    entry = matching(entries, capability, shape, kv_dtype(run), forced(run), grid_env(run))
    if entry is None:
        asked = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in forced(run).items())
        return release, None, f"shape class {shape_key(shape)} (KV {kv_dtype(run)}{', ' + asked if asked else ''}) " \
                              f"not in the grid of SGLang {release}"
    return release, entry, ""


def first_error(entry: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((e for e in entry["errors"] if e["kind"] == kind), None)


def _builds(entry: dict[str, Any]) -> bool:
    return not any(e["kind"] in ("rejection", "flag") for e in entry["errors"])


def elsewhere(entry: dict[str, Any], release: str, good: Callable[[str, dict[str, Any]], bool]) -> str | None:
    """The nearest tabulated release (newer ones first) whose entry for the same question is good."""
    mine = Version(release)
    others = sorted((r for r in tabulated(ENGINE) if r != release),
                    key=lambda r: (Version(r) < mine, abs(Version(r).release[2] - mine.release[2])))
    for other in others:
        found = matching(table(ENGINE, other)["entries"], entry["capability"], entry["shape"],
                         entry["kv_cache_dtype"], entry["forced"], entry["env"])
        if found is not None and good(other, found):
            return other
    return None


def _siblings(entry: dict[str, Any], release: str) -> list[dict[str, Any]]:
    """The same release, capability and shape class asked with other flags or environment."""
    return [e for e in table(ENGINE, release)["entries"] if e["capability"] == entry["capability"]
            and e["shape"] == entry["shape"] and e is not entry]


def _spelled(entry: dict[str, Any]) -> str:
    flags = [f"--{k.replace('_', '-')} {v}" for k, v in entry["forced"].items()]
    flags += ["--kv-cache-dtype fp8_e4m3"] if entry["kv_cache_dtype"] == "fp8" else []
    flags += [f"{k}={v}" for k, v in entry["env"].items()]
    return " ".join(flags) or "no backend flags"


def rejection_fix(entry: dict[str, Any], release: str) -> str:
    """What the tables show builds: the same release with the fewest changes to the user's choices (a forced
    value dropped, the format flag added, the KV dtype left auto), else the nearest release that builds."""
    options = [e for e in _siblings(entry, release) if _builds(e) and not e["env"] and without_code(e, release) is None]
    changed = sorted(options, key=lambda e: (len(set(e["forced"].items()) ^ set(entry["forced"].items()))
                                             + (e["kv_cache_dtype"] != entry["kv_cache_dtype"])))
    if changed:
        best = changed[0]
        return f"Launch with {_spelled(best)}: SGLang {release} accepts it for this shape class on capability " \
               f"{entry['capability']} ({picked(best)})"
    works = elsewhere(entry, release, lambda _, e: _builds(e))
    if works:
        return f"SGLang {works} accepts this shape class with these flags on capability {entry['capability']}"
    return "No tabulated SGLang release accepts this shape class with these flags on this GPU"


def _kernel_names(kernels: dict[str, str]) -> list[str]:
    """The kernels a method holds, without its on/off switches."""
    return [v for v in kernels.values() if v not in ("True", "False")]


def moe_runner(entry: dict[str, Any]) -> str | None:
    """The MoE runner the layers hold, else the one the server args resolved (a release whose model
    construction the emulation does not reach still logs and records its runner choice)."""
    moe = entry.get("moe") or {}
    chosen = [moe.get("runner_backend"), moe.get("runner"), (entry.get("server_args") or {}).get("moe_runner_backend")]
    return next((c for c in chosen if c and c != "auto"), None)


def _decision_names(entry: dict[str, Any]) -> list[tuple[str, str]]:
    moe = entry.get("moe") or {}
    names = [("MoE experts", str(n)) for n in (moe_runner(entry), moe.get("fused_func"),
                                               *_kernel_names(moe.get("kernels") or {})) if n]
    names += [("linear layers", k) for group in entry.get("linear") or [] for k in _kernel_names(group["kernels"])]
    return names


def picked(entry: dict[str, Any]) -> str:
    """What the entry runs, in a few words: the attention backend, the MoE runner, the block-FP8 GEMM."""
    gemm = sorted({k for group in entry.get("linear") or [] for name, k in group["kernels"].items()
                   if name == "w8a8_block_fp8_linear"})
    parts = [f"attention {(entry.get('attention') or {}).get('backend')}"]
    runner = moe_runner(entry)
    parts += [f"MoE runner {runner}"] if runner else []
    parts += [f"block-FP8 GEMM {', '.join(gemm)}"] if gemm else []
    return ", ".join(parts)


def _picks(entry: dict[str, Any], library: str) -> tuple[str, str] | None:
    markers = JIT_LIBRARIES[library]
    return next(((where, name) for where, name in _decision_names(entry) if any(m in name for m in markers)), None)


def _has_code(entry: dict[str, Any], release: str, library: str, family: str) -> bool:
    shipped = table(ENGINE, release).get("jit_archs", {}).get(library, {"archs": [family]})
    return _builds(entry) and (_picks(entry, library) is None or family in shipped["archs"])


# Capabilities whose machines are aarch64 only (GB10, DGX Spark): the kernel packages installed there (sgl-kernel's
# aarch64 wheels) are not the x86_64 set a table was built from, so which JIT library is importable is not known.
AARCH64_ONLY = ("12.1",)


def without_code(entry: dict[str, Any], release: str) -> dict[str, str] | None:
    """A picked kernel from a JIT library whose shipped sources have no implementation for this GPU's
    architecture family (DeepGEMM's `smNN_*.cuh`: sm120 serves 12.0 and 12.1); claimed only where the table's
    wheel set is the one that GPU's machines install."""
    platform = table(ENGINE, release).get("pinned", {}).get("platform", "x86_64")
    if entry["capability"] in AARCH64_ONLY and platform != "aarch64":
        return None
    family = f"sm{entry['capability'].split('.')[0]}0"
    for library in JIT_LIBRARIES:
        shipped = table(ENGINE, release).get("jit_archs", {}).get(library)
        choice = _picks(entry, library)
        if shipped is None or family in shipped["archs"] or choice is None:
            continue
        return {"where": choice[0], "choice": choice[1], "library": library, "source": shipped["source"],
                "archs": ", ".join(shipped["archs"]), "family": family,
                "fix": _no_code_fix(entry, release, library, family)}
    return None


def _one_step(entry: dict[str, Any], other: dict[str, Any]) -> bool:
    """The user's launch plus one grid environment variable or one explicit GEMM backend."""
    added = set(other["forced"].items()) - set(entry["forced"].items())
    kept = set(entry["forced"].items()) <= set(other["forced"].items())
    gemm_only = {k for k, _ in added} <= {"fp8_gemm_backend"}
    return other["kv_cache_dtype"] == entry["kv_cache_dtype"] and kept and gemm_only and \
        bool(added or other["env"]) and not (added and other["env"])


def _no_code_fix(entry: dict[str, Any], release: str, library: str, family: str) -> str:
    fixes = []
    for other in _siblings(entry, release):
        if _one_step(entry, other) and _has_code(other, release, library, family) and _picks(other, library) is None:
            fixes.append(f"{_spelled(other)}: SGLang {release} then runs {picked(other)}")
    # the grid's own order of alternatives (Triton first), two at most: the table says what each picks, not
    # whether that kernel has code for this GPU (another finding says so)
    fixes = fixes[:2]
    newer = elsewhere(entry, release, lambda other, e: _has_code(e, other, library, family))
    if newer and Version(newer) > Version(release):
        fixes.append(f"or upgrade to SGLang {newer}")
    return "; ".join(fixes) or f"no tabulated SGLang release or setting avoids {library} here"


def slow_path(entry: dict[str, Any]) -> dict[str, str] | None:
    """A Marlin kernel for a format with native tensor-core kernels, not asked for by the user."""
    if entry["shape"]["quant"] not in NATIVE_FORMATS or "moe_runner_backend" in entry["forced"]:
        return None
    for where, name in _decision_names(entry):
        if any(word in name for word in SLOW_PATHS):
            return {"where": where, "choice": name}
    return None


def _known_path(entry: dict[str, Any]) -> bool:
    """The entry names what its layers run (built, or a runner the server args resolved): a release that is
    silent about its choice is never offered as the faster one."""
    return bool(entry.get("moe") or entry.get("linear") or moe_runner(entry))


def view(run: EngineRun) -> dict[str, Any]:
    """What rules read under `sglang.derived`: `status` derived / not_derived, and for a derived entry the
    decisions (attention prefill/decode, MoE runner, GEMM runners, disabled features), SGLang's own rejection
    (`rejection`), a JIT kernel without code for the GPU (`no_code`) and a slow fallback (`fallback`), each
    with the fix the tables show."""
    release, entry, why = lookup(run)
    stopped = first_error(entry, "emulation") if entry is not None else None
    if entry is not None and stopped is not None and stopped["stage"] == "server_args":
        why, entry = f"the emulation of SGLang {release} stopped at server_args: {stopped['type']}", None
    if entry is None or release is None:
        return {"status": "not_derived", "why": why, "release": release}
    attention = entry.get("attention") or {}
    resolved = entry.get("resolved") or {}
    out: dict[str, Any] = {
        "status": "derived", "release": release, "capability": entry["capability"], "shape": entry["shape_key"],
        "grid": entry["grid"], "attention": attention.get("backend"), "prefill": attention.get("prefill"),
        "decode": attention.get("decode"), "moe_runner": resolved.get("moe_runner_backend"),
        "fp8_gemm": resolved.get("fp8_gemm_runner_backend"), "features": entry.get("features") or {},
        "source": f"doctor/data/derived/sglang/{release}.json ({entry['grid']}, capability {entry['capability']})",
        "rejection": None, "no_code": None, "fallback": None,
        # server args derived, the model's construction not: its kernels are not in this entry
        "partial": f"model construction stopped at {stopped['stage']}: {stopped['type']}" if stopped else None,
    }
    error = first_error(entry, "rejection")
    if error is not None:
        first_line = (error["message"].strip().splitlines() or [f"(no message; raised at {error['where']})"])[0]
        out["rejection"] = {**error, "message": first_line[:1200],
                            "fix": rejection_fix(entry, release)}
        return out
    out["no_code"] = without_code(entry, release)
    slow = slow_path(entry)
    if slow is not None:
        faster = elsewhere(entry, release, lambda _, e: _builds(e) and _known_path(e) and slow_path(e) is None)
        other = matching(table(ENGINE, faster)["entries"], entry["capability"], entry["shape"],
                         entry["kv_cache_dtype"], entry["forced"], entry["env"]) if faster else None
        out["fallback"] = {**slow, "fix": f"SGLang {faster} runs {picked(other)} for this shape on this GPU"
                           if other else "no tabulated release picks another path for this shape on this GPU"}
    return out
