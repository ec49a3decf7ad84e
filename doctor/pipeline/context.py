"""The flat-ish dictionary that rule conditions and message templates address by dotted path."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.buildargs import build_view, toolkit_view
from doctor.engines import registry
from doctor.engines.pin_check import pin_view
from doctor.engines.pins import releases
from doctor.hardware import smem_per_block_optin
from doctor.hardware.p2p import forced_p2p_signs, is_geforce
from doctor.jit_memory import jit_view
from doctor.launch import Launch
from doctor.pipeline.analysis import Analysis
from doctor.pipeline.facts import Facts, to_jsonable
from doctor.unified_memory import uma_view
from doctor.wheel_archs import version_facts

ARCH_SPECIFIC_SM12X = ("sm_120a", "sm_120f", "sm_121a", "sm_121f")


BASE_ROOTS = ("source", "gpu", "driver", "host", "lib", "model", "launch", "analysis", "kernels", "binaries",
              "plan", "env", "topology", "engine", "build", "cluster", "uma", "image", "recipe",
              "log", "pins")


def engine_root(name: str) -> str:
    """The context root of an engine's own view: its name with dots and dashes as underscores."""
    return name.replace(".", "_").replace("-", "_")


def context_roots() -> tuple[str, ...]:
    """The top-level keys of build_context; rule files may address nothing else."""
    return BASE_ROOTS + tuple(engine_root(name) for name in registry.engines())


def build_context(facts: Facts, analysis: Analysis, launch: Launch,
                  launch_file: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`launch_file`: the container image (an object with `view(capability)`) and build recipe (a mapping)
    `lint` read beside the launch; `image` and `recipe` are None otherwise. `diagnose` passes `log`: the rules
    whose signatures the log showed (`log.signatures`), which the rules that only explain a log line read."""
    image = (launch_file or {}).get("image")
    image_view = _image(image, facts, launch.get("kv_cache_dtype"))
    engine_views = _held_by_image(_engine_views(analysis), image_view)
    return {
        "source": to_jsonable(facts.source),
        "gpu": _gpu(facts),
        "driver": _driver(facts),
        "host": to_jsonable(facts.host),
        "lib": _libraries(facts),
        "model": to_jsonable(facts.model) if facts.model else None,
        "launch": _launch(launch, analysis),
        "analysis": analysis.to_dict(),
        "kernels": [k.to_dict() for k in analysis.kernels],
        "binaries": list(analysis.binaries),
        "plan": analysis.plan,
        "env": dict(facts.env),
        "topology": _topology(facts, analysis.tp, _int_value(launch.get("pp"), 1)),
        "engine": _engine(analysis),
        "build": {**_build(facts, launch_file), "jit": jit_view(facts, analysis.plan)},
        "cluster": None,  # doctor/cluster/view.py fills it when several nodes are checked as one deployment
        "uma": uma_view(facts, analysis.engine if analysis.run else None, launch.values,
                        _default_utilization(engine_views), launch.args, analysis.plan),
        "image": image_view,
        "recipe": _recipe(launch_file, _capability(facts)),
        "log": (launch_file or {}).get("log"),  # what `diagnose` read in the log (doctor/diagnose); None in check
        "pins": pin_view(facts.libraries, facts.env, analysis.run.library if analysis.run else None,
                         _capability(facts), image_view, analysis.backends),
        **engine_views,
    }


def _image(image: Any, facts: Facts, kv_cache_dtype: Any = None) -> dict[str, Any] | None:
    """`image.*`, with how the image's CUDA compares to the driver's (same major, newer minor) and whether the
    launch's KV-cache dtype is one a community build adds to its upstream release."""
    if image is None:
        return None
    view = image.view(_capability(facts))
    view["cuda_newer_minor"] = _newer_minor(view.get("cuda"), facts.driver.cuda_driver_version)
    carried = set(view.get("kv_cache_dtypes") or ())
    if "nvfp4" in carried:
        carried.add("fp4_e2m1")  # vLLM's launch reading of `--kv-cache-dtype nvfp4`
    view["carries_launch_kv_cache_dtype"] = bool(kv_cache_dtype) and kv_cache_dtype in carried
    return view


def _newer_minor(image_cuda: str | None, driver_cuda: str | None) -> bool | None:
    try:
        image, driver = Version(image_cuda).release[:2], Version(driver_cuda).release[:2]  # type: ignore[arg-type]
    except (InvalidVersion, TypeError):
        return None
    return image[0] == driver[0] and image > driver


def _recipe(launch_file: Mapping[str, Any] | None, capability: tuple[int, int] | None) -> dict[str, Any] | None:
    recipe = (launch_file or {}).get("recipe")
    return {**recipe, **toolkit_view(recipe, capability)} if recipe else None


def _build(facts: Facts, launch_file: Mapping[str, Any] | None) -> dict[str, Any]:
    """`build.*`: the arch lists the environment sets, and what the build's toolkit can compile of them. The
    toolkit is the recipe's build stage where `lint` read one; an image build without one has none known; else
    the nvcc the facts hold (this machine's, the snapshot's, a log's)."""
    capability = _capability(facts)
    view = build_view(dict(facts.env), capability)
    recipe = (launch_file or {}).get("recipe") or {}
    toolkit, source = recipe.get("toolkit"), recipe.get("toolkit_source")
    nvcc = facts.library("nvcc")
    if toolkit is None and not recipe.get("in_image") and nvcc is not None:
        toolkit, source = nvcc.version, f"nvcc {nvcc.version}" + (f" ({nvcc.location})" if nvcc.location else "")
    variables = {entry["name"]: entry["value"] for entry in view["lists"]}
    return {**view, "toolkit": toolkit, "toolkit_source": source,
            **toolkit_view({"variables": variables, "toolkit": toolkit}, capability)}


def _default_utilization(engine_views: dict[str, Any]) -> float | None:
    """The vLLM release's --gpu-memory-utilization default, from its own rule view (None without a vLLM run)."""
    view = engine_views.get("vllm")
    return view.get("default_gpu_memory_utilization") if isinstance(view, dict) else None


def _engine(analysis: Analysis) -> dict[str, Any] | None:
    run = analysis.run
    if run is None:
        return None
    version = run.library.version
    return {"name": analysis.engine, "version": version, "what_if": run.library.what_if,
            "unreleased_build": unreleased_build(str(analysis.engine), version)}


# A local label that only names the CUDA/CPU variant of a published wheel (vLLM's own index: 0.11.0+cu129).
_VARIANT_LABEL = re.compile(r"(cu\d+|cpu|rocm[\d.]*|xpu|tpu)")


def unreleased_build(engine: str, version: str | None) -> bool:
    """A development, pre-release, fork or vendor build (0.25.2.dev0, 0.21.1rc1, 0.13.0+faa43dbf.nv26.01) of an
    engine whose published releases the doctor knows: its code is not the wheel any table was read from."""
    if not version:
        return False
    try:
        parsed = Version(version)
    except InvalidVersion:
        parsed = None
    plain = parsed is not None and not (parsed.is_prerelease or parsed.is_devrelease) and (
        parsed.local is None or _VARIANT_LABEL.fullmatch(parsed.local) is not None)
    published = releases(engine)
    if plain:  # a final version: held back only where the table, which holds every PyPI release, lacks it
        return parsed.public not in published and _within(engine, parsed)  # type: ignore[union-attr]
    return bool(published) and version not in published


@cache
def _span(engine: str) -> tuple[Version, Version] | None:
    published = [Version(r) for r in releases(engine)]
    return (min(published), max(published)) if published else None


def _within(engine: str, version: Version) -> bool:
    """Inside the span of the engine's published releases: a final version there that is none of them (vLLM
    "0.21.1", a nightly's or a fork's number) is no release; beyond the span nothing is known about it."""
    span = _span(engine)
    return span is not None and span[0] < version < span[1]


def _engine_views(analysis: Analysis) -> dict[str, Any]:
    """Every engine's root is present; only the engine of this run fills its own."""
    views: dict[str, Any] = {engine_root(name): None for name in registry.engines()}
    run = analysis.run
    if run is not None and analysis.engine is not None:
        views[engine_root(analysis.engine)] = registry.get_for(run.library).rule_view(run)
    return views


def _held_by_image(views: dict[str, Any], image: dict[str, Any] | None) -> dict[str, Any]:
    """A container image carries its own build of vLLM (NGC's, a community one, the project's image): the audited
    PyPI wheel does not stand for it, so its kernel images are not checked (DSP060-DSP063), and DSP064 says so."""
    vllm = views.get("vllm")
    kernel = vllm.get("kernel_images") if isinstance(vllm, dict) else None
    if image is None or not kernel or kernel.get("status") != "derived":
        return views
    why = (f"not checked: the container's build is not PyPI's ({image['ref']} carries its own vLLM build; "
           f"DSP060-DSP063 judge the audited wheel {kernel['wheel']})")
    held = {"status": "not_derived", "why": why, "held_by_image": True, "release": kernel.get("release"),
            "none": None, "ptx_jit": None, "ptx_jit_always": None}
    return {**views, "vllm": {**vllm, "kernel_images": held}}


def _launch(launch: Launch, analysis: Analysis) -> dict[str, Any]:
    return launch_view(launch, analysis.tp)


def launch_view(launch: Launch, tp: int) -> dict[str, Any]:
    """The `launch` root: the parsed values (the doctor's spellings, what conditions compare), the argv, and
    `given`, the user's own spellings that templates print (doctor/pipeline/conditions.py: shown)."""
    backends = [launch.get(k) for k in ("attention_backend", "prefill_attention_backend", "decode_attention_backend")]
    return {**launch.values, "tp": tp, "args": list(launch.args), "flags": launch.flags(),
            "unknown": list(launch.unknown), "attention_backends": [b for b in backends if b],
            "given": dict(launch.given)}


def _gpu(facts: Facts) -> dict[str, Any]:
    if not facts.gpus:
        return {"count": 0}
    first = facts.gpus[0]
    major, minor = first.capability
    return {
        **to_jsonable(first),
        "count": len(facts.gpus),
        "capability_major": major,
        "capability_minor": minor,
        "capability": major + minor / 10,
        "mixed": len({(g.name, g.compute_capability) for g in facts.gpus}) > 1,
        "names": sorted({g.name for g in facts.gpus}),
        "displays": [g.index for g in facts.gpus if g.display_active],
        "geforce": is_geforce(first.name),
        "bar1_short": [g.index for g in facts.gpus if _bar1_short(g)],
        "bar1_mib": first.bar1_total_bytes // (1 << 20) if first.bar1_total_bytes else None,
        "smem_table": smem_per_block_optin((major, minor)),
        "smem_matches_table": _smem_matches(first.smem_per_block_optin, smem_per_block_optin((major, minor))),
    }


def _bar1_short(gpu: Any) -> bool:
    """BAR1 smaller than the framebuffer: PCIe BAR1 P2P, which maps the whole framebuffer, cannot reach it all."""
    return bool(gpu.bar1_total_bytes and gpu.memory_total_bytes and gpu.bar1_total_bytes < gpu.memory_total_bytes)


def _smem_matches(reported: int | None, table: int | None) -> bool | None:
    return None if reported is None or table is None else reported == table


def _driver(facts: Facts) -> dict[str, Any]:
    data = to_jsonable(facts.driver)
    version = facts.driver.driver_version
    if version and version.split(".")[0].isdigit():
        data["major"] = int(version.split(".")[0])
    # CUDA's minor-version compatibility runs a 12.9 runtime on a 12.8 driver; a newer major release does not
    data["cuda_major_below_torch"] = _cuda_major_below(facts.driver.cuda_driver_version, facts.library("torch"))
    return data


def _cuda_major_below(driver_cuda: str | None, torch: Any) -> bool | None:
    """Is the driver's CUDA major release older than the one torch was built with? None when either is unknown."""
    built = torch.details.get("cuda_version") if torch is not None else None
    try:
        return Version(driver_cuda).major < Version(built).major if driver_cuda and built else None
    except InvalidVersion:
        return None


def _capability(facts: Facts) -> tuple[int, int] | None:
    return facts.gpus[0].capability if facts.gpus else None


def _libraries(facts: Facts) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, library in facts.libraries.items():
        known = version_facts(name, library.version, _capability(facts), library.details)  # probed details win
        entry = {"version": library.version, "what_if": library.what_if, "location": library.location,
                 **known, **library.details}
        if _build_assumed(name, library, known):
            entry["build_assumed"] = known["arch_source"]
        archs = entry.get("arch_list")
        entry["archs_read"] = _archs_read(archs, entry.get("arch_source") or entry.get("arch_list_source"))
        if isinstance(archs, list):
            entry["has_sm12x_code"] = any(a.startswith(("sm_12", "compute_12")) for a in archs)
            entry["has_ptx"] = any(a.startswith("compute_") for a in archs)
        cuda_archs = library.details.get("cuda_archs")
        if isinstance(cuda_archs, list):
            entry["has_sm12x_sass"] = any(a.startswith("sm_12") for a in cuda_archs)
            entry["has_sm12x_arch_specific"] = any(a in ARCH_SPECIFIC_SM12X for a in cuda_archs)
            entry["has_ptx"] = any(a.startswith("compute_") for a in cuda_archs)
        out[name] = entry
        if "." in name:  # dotted paths cannot name `llama.cpp`: rules address it as lib.llama_cpp
            out[name.replace(".", "_")] = entry
    return out


def _archs_read(archs: Any, source: Any) -> str:
    """What a message says of a library's GPU archs: the list and where it was read, or that nothing was read."""
    if not isinstance(archs, list):
        return "has archs this doctor never audited"
    listed = ", ".join(archs) if archs else "no GPU code"
    return f"carries [{listed}] ({source})" if source else f"carries [{listed}]"


# Packages whose one version number names several builds: torch 2.10.0 from PyPI (a CPU build on aarch64),
# from download.pytorch.org (2.10.0+cu130 when pip lists it) or inside an NGC image (2.10.0a0+...).
SEVERAL_BUILDS = {"torch"}


def _build_assumed(name: str, library: Any, known: dict[str, Any]) -> bool:
    """A what-if version stated without its build label, whose build facts the doctor took from PyPI's wheel."""
    return (name in SEVERAL_BUILDS and library.what_if and "+" not in library.version and "arch_source" in known
            and not library.details.get("implied_by"))


def _topology(facts: Facts, tp: int, pp: int) -> dict[str, Any]:
    group = facts.link_index.sys_free_group(facts.gpus)  # doctor.topology: computed once per topology
    return {**facts.link_index.summary(facts.topology), "numa_group_size": group,
            "numa_groups": len(facts.gpus) // group if group else None,
            "tp_group": _tp_groups(facts, tp, pp),
            "forced_p2p": forced_p2p_signs(facts.gpus, facts.topology, facts.host.nvidia_registry_dwords)}


def _tp_groups(facts: Facts, tp: int, pp: int) -> dict[str, Any]:
    """The links the requested layout uses: the engines place rank = pp_rank x TP + tp_rank on GPUs in CUDA
    order, so TP group s is GPUs [s x TP, (s + 1) x TP); P2P counts every pair of the GPUs the layout uses."""
    order = [g.index for g in facts.gpus]
    used = order[:tp * pp]
    groups = [set(used[s * tp:(s + 1) * tp]) for s in range(pp)]
    pairs = {(min(link.a, link.b), max(link.a, link.b)): link for link in facts.topology if link.a != link.b}
    inside = [link for (a, b), link in pairs.items() if any(a in g and b in g for g in groups)]
    kinds = sorted({link.kind for link in inside})
    p2p_pairs = [link for (a, b), link in pairs.items() if a in used and b in used]
    return {"size": tp, "gpus": len(used), "complete": len(used) == tp * pp, "kinds": kinds, "links": len(inside),
            "full_nvlink": bool(inside) and all(k.startswith("NV") for k in kinds),
            "pcie_only": bool(inside) and not any(k.startswith("NV") for k in kinds),
            "p2p_pairs": len(p2p_pairs),
            "p2p_unsupported_pairs": sum(1 for link in p2p_pairs if link.p2p_read is False or link.p2p_write is False)}


def _int_value(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
