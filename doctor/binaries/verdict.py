"""verdict_for: will the GPU run a file's kernels natively, through PTX JIT, or not at all? Per file and
per kernel family (families.py)."""

from __future__ import annotations

from dataclasses import dataclass

from doctor.binaries.archs import LTO, PTX, SASS, Arch, capability_name, ptx_jits, runs, sass_runs, sort_tokens
from doctor.binaries.family_verdict import FamilyVerdict, family_verdicts
from doctor.binaries.info import BinaryInfo
from doctor.binaries.levels import NATIVE, NONE, PTX_JIT, RANK, worst

__all__ = ["NATIVE", "NONE", "PTX_JIT", "FamilyVerdict", "Verdict", "verdict_for", "worst"]


JIT_COST = ("the driver JIT-compiles it at first launch (seconds to minutes per kernel module, "
            "cached in ~/.nv/ComputeCache up to CUDA_CACHE_MAXSIZE)")
LTO_MEANING = ("LTO-IR is NVVM IR kept for link-time optimization, not loadable code: only a link (nvlink "
               "at build time, or nvJitLink at run time when the library JIT-links it itself) makes SASS "
               "of it, so by itself it gives no native code")


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
    families: tuple[FamilyVerdict, ...] = ()

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "reason": self.reason, "deliberate": self.deliberate,
                "modules_without_image": self.modules_without_image,
                "families": [f.to_dict() for f in self.families]}


def verdict_for(info: BinaryInfo, capability: tuple[int, int]) -> Verdict:
    families = family_verdicts(info.families, capability)
    verdict = _file_verdict(info, capability)
    notes = _lto_note(info) + _family_note(families, verdict.verdict)
    return Verdict(verdict.verdict, verdict.reason + notes, verdict.deliberate, verdict.modules_without_image,
                   families)


def _file_verdict(info: BinaryInfo, capability: tuple[int, int]) -> Verdict:
    target = capability_name(capability)
    archs = _module_archs(info)
    if not archs and info.kernel_free_modules and not info.error:
        return Verdict(NATIVE, f"holds no kernels: its {info.kernel_free_modules} fatbins ({', '.join(info.sass)}) "
                               f"are empty device-link modules, so nothing needs an image for {target}")
    if not archs:
        why = info.error or "no CUDA device code found"
        return Verdict(NONE, f"{why}; nothing can run on {target}")
    sass = [a for a in archs if a.kind == SASS]
    ptx = [a for a in archs if a.kind == PTX]
    missing = _modules_without_image(info, capability)
    kernels_missing = _kernels_without_image(info, capability)
    native = [a for a in sass if sass_runs(a, capability)]
    if native:
        return Verdict(NATIVE, _native_reason(_best(native, capability), capability)
                       + _suffix(missing, kernels_missing, info), modules_without_image=missing)
    jit = [a for a in ptx if ptx_jits(a, capability)]
    if jit:
        best = max(jit)
        reason = f"no SASS for {target}; {best.token} PTX is there and {JIT_COST}"
        if best.number < capability[0] * 10 + capability[1]:
            reason += f"; the code is {best.token}-level, without newer-arch features"
        return Verdict(PTX_JIT, reason + _suffix(missing, kernels_missing, info), modules_without_image=missing)
    if not sass and not ptx:
        return Verdict(NONE, f"only LTO-IR ({_names([a for a in archs if a.kind == LTO])}), nothing loadable "
                             f"for {target}", modules_without_image=info.modules - info.lto_only_modules)
    other_major = all(a.major != capability[0] for a in [*sass, *ptx])
    # A standalone cubin is picked by its loader for the GPU it names, so one for another major is
    # as deliberate as an `a`/`f` build (cubin e_flags cannot tell `f` from plain; cuobjdump can't either).
    standalone = info.format == "cubin" and other_major
    deliberate = standalone or (other_major and all(a.variant in ("a", "f") for a in [*sass, *ptx]))
    reason = _none_reason(sass, ptx, capability)
    rdc = [t for t in info.rdc_ptx if ptx_jits(Arch.parse(t), capability)]
    if rdc:
        reason += f"; relocatable (-rdc) PTX {', '.join(rdc)} is kept too, but only JIT linking could use it"
    if standalone:
        reason += "; a standalone cubin, loaded only on the GPU it was built for"
    return Verdict(NONE, reason, deliberate=deliberate, modules_without_image=info.modules - info.lto_only_modules)


def _module_archs(info: BinaryInfo) -> list[Arch]:
    """The archs of the modules that hold kernels; every arch when modules were not told apart (facts
    from a probe carry no module_archs)."""
    if not info.module_archs:
        return [] if info.kernel_free_modules and not info.modules else info.archs
    tokens = {t for module, _ in info.module_archs for t in module}
    return [Arch.parse(t) for t in sort_tokens(tokens)]


def _lto_note(info: BinaryInfo) -> str:
    if not info.lto:
        return ""
    count = sum(info.entry_counts.get(t, 0) for t in info.lto) or len(info.lto)
    only = f", {info.lto_only_modules} fatbins hold nothing else" if info.lto_only_modules else ""
    return f"; also {count} LTO-IR images ({', '.join(info.lto)}{only}): {LTO_MEANING}"


def _family_note(families: tuple[FamilyVerdict, ...], file_verdict: str) -> str:
    """Families worse off than the file as a whole: the file verdict alone would hide them."""
    worse = [f for f in families if RANK[f.verdict] > RANK[file_verdict] and not f.deliberate]
    if not worse:
        return ""
    return "; kernel families " + ", ".join(f"{f.family} {f.verdict}" for f in worse)


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
    """Kernel modules with nothing the GPU can run; fatbins of LTO-IR alone are link inputs, not modules
    to load, and are not counted."""
    count = 0
    for tokens, n in info.module_archs:
        archs = [Arch.parse(t) for t in tokens]
        if not all(a.kind == LTO for a in archs) and not any(runs(a, capability) for a in archs):
            count += n
    return count


def _kernels_without_image(info: BinaryInfo, capability: tuple[int, int]) -> int | None:
    """Kernels with no image the GPU can run, anywhere in the file; None when names were not read."""
    if not info.kernel_archs:
        return None
    return sum(count for tokens, count in info.kernel_archs
               if not any(runs(Arch.parse(t), capability) for t in tokens))


def _suffix(missing: int, kernels_missing: int | None, info: BinaryInfo) -> str:
    """Kernels the GPU cannot run, by name when the names were read: libraries that build one fatbin per
    arch (cuFFT) have many modules without this GPU's image by design, yet every kernel has one."""
    if kernels_missing is not None:
        if not kernels_missing:
            return ""
        total = sum(count for _, count in info.kernel_archs)
        return (f" ({kernels_missing} of {total} kernels have no image for this GPU: fine for arch-specific "
                f"variants the library picks at run time, an error for any it launches here)")
    if not missing:
        return ""
    return f" ({missing} of {info.modules - info.lto_only_modules} kernel modules have no image for this GPU)"
