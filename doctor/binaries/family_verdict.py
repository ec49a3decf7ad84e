"""family_verdicts: per kernel family, can the GPU run it natively, through PTX JIT, or not at all?

A family is usable when at least one of its kernels has a usable image: engines pick the kernel for the
GPU at run time (vLLM's cutlass_scaled_mm picks its `enable_sm120_family` kernels on SM12x), so the
others not running there is by design. An image is usable when the GPU can run it (archs.py) and the
kernel's arch gate, if any, keeps its body for that image's arch (families.arch_gate).
"""

from __future__ import annotations

from dataclasses import dataclass

from doctor.binaries.archs import PTX, SASS, Arch, capability_name, ptx_jits, runs, sass_runs
from doctor.binaries.families import WHAT
from doctor.binaries.levels import NATIVE, NONE, PTX_JIT


@dataclass(frozen=True)
class FamilyVerdict:
    """`kernels`: how many the file holds; `native`/`jit`: how many have an image of that kind for the GPU;
    `gated`: kernels with an image the GPU could run whose body is compiled out for it (a trap)."""

    family: str
    verdict: str
    reason: str
    kernels: int
    native: int = 0
    jit: int = 0
    gated: int = 0
    deliberate: bool = False

    def to_dict(self) -> dict:
        return {"family": self.family, "what": WHAT.get(self.family, ""), "verdict": self.verdict,
                "reason": self.reason, "kernels": self.kernels, "native": self.native, "ptx_jit": self.jit,
                "gated_out": self.gated, "deliberate": self.deliberate}


def family_verdicts(families: dict[str, dict], capability: tuple[int, int]) -> tuple[FamilyVerdict, ...]:
    out = []
    for family, data in sorted((families or {}).items()):
        try:
            out.append(_verdict(family, data, capability))
        except (KeyError, TypeError, ValueError):
            continue  # a hand-edited facts file: skip the family rather than fail the audit
    return tuple(out)


def _verdict(family: str, data: dict, capability: tuple[int, int]) -> FamilyVerdict:
    target = capability_name(capability)
    native = jit = gated = total = 0
    archs: set[Arch] = set()
    for tokens, gate, count in data["kernel_archs"]:
        images = [a for a in (Arch.parse(t) for t in tokens) if a.kind in (SASS, PTX)]
        archs.update(images)
        total += count
        body = [a for a in images if gate is None or gate[0] <= a.number < gate[1]]
        if any(a.kind == SASS and sass_runs(a, capability) for a in body):
            native += count
        elif any(a.kind == PTX and ptx_jits(a, capability) for a in body):
            jit += count
        elif any(runs(a, capability) for a in images):
            gated += count
    names = ", ".join(a.token for a in sorted(archs, key=lambda a: (a.kind != SASS, a.number, a.variant)))
    gated_note = (f"; {gated} kernels have an image for {target} whose body is compiled out there "
                  f"(arch-gated: they trap)") if gated else ""
    if native:
        reason = f"{native} of {total} kernels have SASS for {target}"
        return FamilyVerdict(family, NATIVE, reason + gated_note, total, native, jit, gated)
    if jit:
        reason = f"no SASS for {target}; {jit} of {total} kernels through PTX JIT at first launch"
        return FamilyVerdict(family, PTX_JIT, reason + gated_note, total, native, jit, gated)
    deliberate = bool(archs) and all(a.major != capability[0] and a.variant in ("a", "f") for a in archs)
    reason = f"none of its {total} kernels can run on {target} (images: {names or 'none'})"
    if deliberate:
        reason += "; built for other GPUs on purpose"
    return FamilyVerdict(family, NONE, reason + gated_note, total, 0, 0, gated, deliberate)
