"""CUDA arch lists a build reads from its environment, parsed into the targets nvcc will emit.

Source builds (torch extensions, engine kernels, FlashInfer's JIT, llama.cpp with CMake) take their
targets from TORCH_CUDA_ARCH_LIST (`8.0;9.0+PTX;12.0a`), CMAKE_CUDA_ARCHITECTURES / CUDAARCHS
(`86;120a-real;121a-virtual;native`) or FLASHINFER_CUDA_ARCH_LIST (`12.0f 12.1a`). A Dockerfile's build
argument is the same text: pass it as the variable. Rules read `build.lists` (one entry per variable set):
the targets, whether any of them runs on the GPU, and whether an SM12x target lacks the `a`/`f` suffix that
block-scaled FP4/MXFP4 MMA instructions need.
"""

from __future__ import annotations

import re
from typing import Any

from doctor.binaries.archs import PTX, SASS, Arch, runs

TORCH_STYLE = ("TORCH_CUDA_ARCH_LIST", "FLASHINFER_CUDA_ARCH_LIST")
CMAKE_STYLE = ("CMAKE_CUDA_ARCHITECTURES", "CUDAARCHS")
NVCC_STYLE = ("CUDA_ARCH",)  # a Makefile's nvcc `-arch` value: `sm_120a`, `compute_120` (antirez/ds4)
ARCH_VARIABLES = TORCH_STYLE + CMAKE_STYLE + NVCC_STYLE

_TORCH_TOKEN = re.compile(r"^(\d{1,2})\.(\d)([af]?)(\+ptx)?$", re.IGNORECASE)
_CMAKE_TOKEN = re.compile(r"^(\d{2,3})([af]?)(-real|-virtual)?$", re.IGNORECASE)
_NVCC_TOKEN = re.compile(r"^(sm|compute)_(\d{2,3})([af]?)$", re.IGNORECASE)


def build_view(env: dict[str, str], capability: tuple[int, int] | None) -> dict[str, Any]:
    """`build.*` for the rules: every arch-list variable that is set, parsed against the GPU."""
    lists = [_one(name, env[name], capability) for name in ARCH_VARIABLES if env.get(name, "").strip()]
    return {"lists": lists, "variables": [entry["name"] for entry in lists]}


def _one(name: str, value: str, capability: tuple[int, int] | None) -> dict[str, Any]:
    targets, unknown, native = parse_arch_list(name, value, capability)
    sm12x = [a for a in targets if a.major == 12]
    return {
        "name": name,
        "value": value,
        "targets": [a.token for a in targets],
        "unknown": unknown,
        "native": native,
        "sm12x": bool(sm12x),
        "plain_sm12x": any(a.kind == SASS and a.variant == "" for a in sm12x),
        "runs_here": None if capability is None else any(runs(a, capability) for a in targets),
        "suggested": suggested_value(name, value, capability),
    }


def parse_arch_list(name: str, value: str, capability: tuple[int, int] | None) -> tuple[list[Arch], list[str], bool]:
    """(targets, tokens not understood, whether `native` was asked for). `native` and CMake's `all`/
    `all-major` stand for plain targets of this GPU, which is what they compile to."""
    targets: list[Arch] = []
    unknown: list[str] = []
    native = False
    for token in (t for t in re.split(r"[;,\s]+", value.strip()) if t):
        lowered = token.lower()
        if lowered in ("native", "all", "all-major"):
            native = True
            if capability is not None:
                targets.append(Arch(capability[0] * 10 + capability[1]))
            continue
        parsed = _token(name, token)
        if parsed is None:
            unknown.append(token)
        targets += parsed or []
    return targets, unknown, native


def _torch_token(token: str) -> list[Arch] | None:
    match = _TORCH_TOKEN.match(token)
    if not match:
        return None
    number, variant = int(match.group(1)) * 10 + int(match.group(2)), match.group(3).lower()
    archs = [Arch(number, variant, SASS)]
    if match.group(4):
        archs.append(Arch(number, variant, PTX))
    return archs


def _token(name: str, token: str) -> list[Arch] | None:
    if name in TORCH_STYLE:
        return _torch_token(token)
    return _nvcc_token(token) if name in NVCC_STYLE else _cmake_token(token)


def _nvcc_token(token: str) -> list[Arch] | None:
    """`-arch=sm_120a` emits SASS for sm_120a plus its PTX; `compute_120` emits PTX only."""
    match = _NVCC_TOKEN.match(token)
    if not match:
        return None
    number, variant = int(match.group(2)), match.group(3).lower()
    ptx = Arch(number, variant, PTX)
    return [ptx] if match.group(1).lower() == "compute" else [Arch(number, variant, SASS), ptx]


def _cmake_token(token: str) -> list[Arch] | None:
    match = _CMAKE_TOKEN.match(token)
    if not match:
        return None
    number, variant, kind = int(match.group(1)), match.group(2).lower(), (match.group(3) or "").lower()
    archs = [] if kind == "-virtual" else [Arch(number, variant, SASS)]
    return archs + ([] if kind == "-real" else [Arch(number, variant, PTX)])


def suggested_value(name: str, value: str, capability: tuple[int, int] | None) -> str | None:
    """The list with this GPU's arch-specific target added, in the variable's own spelling."""
    if capability is None or capability[0] != 12:
        return None
    major, minor = capability
    if name in CMAKE_STYLE:
        target, separator = f"{major}{minor}a-real", ";"
    elif name in NVCC_STYLE:
        target, separator = f"sm_{major}{minor}a", " "
    elif name == "FLASHINFER_CUDA_ARCH_LIST":
        target, separator = (f"{major}.{minor}f" if minor == 0 else f"{major}.{minor}a"), " "
    else:
        target, separator = f"{major}.{minor}a", ";"
    kept = [t for t in re.split(r"[;,\s]+", value.strip()) if t and t.lower() not in ("native", "all", "all-major")]
    kept = [t for t in kept if not _is_plain_sm12x(name, t) and t != target]  # the target once, last
    return separator.join([*kept, target])


def _is_plain_sm12x(name: str, token: str) -> bool:
    parsed = _token(name, token) or []
    return any(a.major == 12 and a.variant == "" for a in parsed)


# The first CUDA toolkit whose ptxas accepts a target, and the last one for targets CUDA 13.0 dropped. Measured
# with `ptxas --gpu-name` of the nvidia-cuda-nvcc-cu12 wheels 12.6.85, 12.8.93, 12.9.86 and nvcc 13.0.88
# (tests/lint/test_toolkit_targets.py): 12.8 knows sm_100/101/120 (+a); 12.9 adds sm_103, sm_121 and every
# `f` target; 13.0 no longer knows sm_50 to sm_72.
_FIRST_TOOLKIT = {100: "12.8", 101: "12.8", 103: "12.9", 110: "13.0", 120: "12.8", 121: "12.9"}
_FAMILY_FIRST_TOOLKIT = "12.9"
_OLDEST_IN_CUDA13 = 75


def toolkit_view(recipe: dict[str, Any], capability: tuple[int, int] | None) -> dict[str, Any]:
    """`recipe.*` facts on what the build's toolkit can compile of its arch lists."""
    toolkit = recipe.get("toolkit")
    targets = [(name, arch) for name, value in (recipe.get("variables") or {}).items()
               for arch in parse_arch_list(name, value, capability)[0]]
    too_new = sorted({a.token for name, a in targets
                      if name in CMAKE_STYLE + NVCC_STYLE and a.major == 12 and _unknown_to(toolkit, a)})
    skipped = sorted({a.token for name, a in targets
                      if name in TORCH_STYLE and a.major == 12 and _unknown_to(toolkit, a)})
    dropped = sorted({a.token for name, a in targets
                      if name in CMAKE_STYLE + NVCC_STYLE and _dropped_by(toolkit, a)})
    needed = [first for _, a in targets if a.major == 12 and (first := _first_toolkit(a))]
    return {"sm12x_targets": sorted({a.token for _, a in targets if a.major == 12}),
            "toolkit_rejects_sm12x": too_new, "toolkit_unknown_sm12x": skipped, "toolkit_rejects_old": dropped,
            "toolkit_needed": max(needed, key=_release) if needed else None}


def toolkit_knows(toolkit: str, token: str) -> bool | None:
    """Does this CUDA toolkit's ptxas accept the target (`sm_121a`)? None for a target the table does not hold."""
    arch = Arch.parse(token)
    if _first_toolkit(arch) is None and arch.number >= _OLDEST_IN_CUDA13:
        return None
    return not (_unknown_to(toolkit, arch) or _dropped_by(toolkit, arch))


def _first_toolkit(arch: Arch) -> str | None:
    first = _FIRST_TOOLKIT.get(arch.number)
    if arch.variant == "f" and first is not None:
        return max(first, _FAMILY_FIRST_TOOLKIT, key=_release)
    return first


def _unknown_to(toolkit: str | None, arch: Arch) -> bool:
    first = _first_toolkit(arch)
    return bool(toolkit and first) and _release(toolkit) < _release(first)  # type: ignore[arg-type]


def _dropped_by(toolkit: str | None, arch: Arch) -> bool:
    return bool(toolkit) and _release(toolkit) >= (13, 0) and arch.number < _OLDEST_IN_CUDA13  # type: ignore[arg-type]


def _release(version: str) -> tuple[int, int]:
    parts = [int(p) for p in re.findall(r"\d+", version)[:2]]
    major, minor = [*parts, 0, 0][:2]
    return major, minor
