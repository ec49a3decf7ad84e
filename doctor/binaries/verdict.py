"""verdict_for: will the GPU run a file's kernels natively, through PTX JIT, or not at all?"""

from __future__ import annotations

from dataclasses import dataclass

from doctor.binaries.archs import PTX, SASS, Arch, capability_name, ptx_jits, runs, sass_runs
from doctor.binaries.reader import BinaryInfo

NATIVE = "native"
PTX_JIT = "ptx-jit"
NONE = "none"
_RANK = {NATIVE: 0, PTX_JIT: 1, NONE: 2}

JIT_COST = ("the driver JIT-compiles it at first launch (seconds to minutes per kernel module, "
            "cached in ~/.nv/ComputeCache up to CUDA_CACHE_MAXSIZE)")


@dataclass(frozen=True)
class Verdict:
    """`deliberate`: verdict is none, but every image is an `a`/`f` build for other GPUs, i.e. the
    library targets named hardware on purpose (FA3 for sm_90a, say) and engines gate it by capability.
    `modules_without_image`: fatbins (kernel modules) with nothing the GPU can run, even when the
    file as a whole can run: kernels of those modules fail with "no kernel image is available"."""

    verdict: str
    reason: str
    deliberate: bool = False
    modules_without_image: int = 0

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "reason": self.reason, "deliberate": self.deliberate,
                "modules_without_image": self.modules_without_image}


def worst(verdicts) -> str:
    return max(verdicts, key=_RANK.__getitem__, default=NATIVE)


def verdict_for(info: BinaryInfo, capability: tuple[int, int]) -> Verdict:
    target = capability_name(capability)
    archs = info.archs
    if not archs:
        why = info.error or "no CUDA device code found"
        return Verdict(NONE, f"{why}; nothing can run on {target}")
    sass = [a for a in archs if a.kind == SASS]
    ptx = [a for a in archs if a.kind == PTX]
    missing = _modules_without_image(info, capability)
    native = [a for a in sass if sass_runs(a, capability)]
    if native:
        return Verdict(NATIVE, _native_reason(_best(native, capability), capability) + _suffix(missing, info),
                       modules_without_image=missing)
    jit = [a for a in ptx if ptx_jits(a, capability)]
    if jit:
        best = max(jit)
        reason = f"no SASS for {target}; {best.token} PTX is there and {JIT_COST}"
        if best.number < capability[0] * 10 + capability[1]:
            reason += f"; the code is {best.token}-level, without newer-arch features"
        return Verdict(PTX_JIT, reason + _suffix(missing, info), modules_without_image=missing)
    other_major = all(a.major != capability[0] for a in archs)
    # A standalone cubin is picked by its loader for the GPU it names, so one for another major is
    # as deliberate as an `a`/`f` build (cubin e_flags cannot tell `f` from plain; cuobjdump can't either).
    standalone = info.format == "cubin" and other_major
    deliberate = standalone or (other_major and all(a.variant in ("a", "f") for a in archs))
    reason = _none_reason(sass, ptx, capability)
    rdc = [t for t in info.rdc_ptx if ptx_jits(Arch.parse(t), capability)]
    if rdc:
        reason += f"; relocatable (-rdc) PTX {', '.join(rdc)} is kept too, but only JIT linking could use it"
    if standalone:
        reason += "; a standalone cubin, loaded only on the GPU it was built for"
    return Verdict(NONE, reason, deliberate=deliberate, modules_without_image=info.modules)


def _best(native: list[Arch], capability: tuple[int, int]) -> Arch:
    exact = [a for a in native if (a.major, a.minor) == capability]
    return max(exact or native, key=lambda a: (a.number, a.variant == "a", a.variant == "f"))


def _native_reason(arch: Arch, capability: tuple[int, int]) -> str:
    target = capability_name(capability)
    if (arch.major, arch.minor) == capability:
        kind = {"a": "arch-specific ", "f": "family "}.get(arch.variant, "")
        return f"{kind}SASS {arch.token} matches {target}"
    if arch.variant == "f":
        return f"family SASS {arch.token} runs on {target} (same family {arch.major}.x)"
    return f"SASS {arch.token} runs on {target} (binary compatible within major {arch.major})"


def _none_reason(sass: list[Arch], ptx: list[Arch], capability: tuple[int, int]) -> str:
    target = capability_name(capability)
    parts = []
    if sass:
        parts.append(f"SASS {_names(sass)} cannot run on {target}")
        same_major = [a for a in sass if a.major == capability[0]]
        locked = [a for a in same_major if a.variant == "a" and a.minor < capability[1]]
        newer = [a for a in same_major if a.minor > capability[1]]
        if locked:
            parts.append(f"{_names(locked)} is arch-specific and not forward compatible")
        if newer:
            parts.append(f"{_names(newer)} is built for a newer GPU of the {capability[0]}.x family")
    if ptx:
        parts.append(f"PTX {_names(ptx)} cannot be JIT-compiled for {target}")
        if any(a.variant == "a" for a in ptx):
            parts.append("arch-specific PTX (compute_XXXa) JITs only for its own GPU")
    else:
        parts.append("no PTX to JIT")
    return "; ".join(parts)


def _names(archs: list[Arch]) -> str:
    return ", ".join(a.token for a in sorted(archs, key=lambda a: (a.number, a.variant)))


def _modules_without_image(info: BinaryInfo, capability: tuple[int, int]) -> int:
    return sum(count for tokens, count in info.module_archs
               if not any(runs(Arch.parse(t), capability) for t in tokens))


def _suffix(missing: int, info: BinaryInfo) -> str:
    if not missing:
        return ""
    return f" ({missing} of {info.modules} kernel modules have no image for this GPU)"
