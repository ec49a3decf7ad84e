"""The kernels vLLM picks for this model, checked against the images its released wheel carries for this GPU.

The derived dispatch tables (doctor/engines/vllm/derived.py) say which backend and kernel class the release's own
selection picks for the shape class on the capability; doctor/binaries/family_archs.py says, from the same release's
wheel, whether that kernel family has SASS for the GPU, only PTX the driver compiles at first use, no image the
GPU can run, or images whose body is compiled out for it (an `enable_smXX...` arch gate: a trap). Only kernels
that live in vLLM's own extensions are judged; FlashInfer, Triton and DeepGEMM picks are other libraries.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from doctor.binaries.family_archs import audited_versions, family_wheel, images, platform_for, verdict, wheel_families
from doctor.binaries.family_verdict import FamilyVerdict
from doctor.binaries.levels import NATIVE, NONE, PTX_JIT
from doctor.engines.spi import EngineRun
from doctor.engines.vllm import derived

# Marlin's activation type follows the model's dtype unless vLLM is told to quantize activations for it
# (vllm/envs.py VLLM_MARLIN_INPUT_DTYPE=fp8|int8, W4A8, from 0.12.0); the grid never sets it.
MARLIN_INPUT_ENV = "VLLM_MARLIN_INPUT_DTYPE"
# Picked names (vLLM's backend enums and kernel classes) -> the kernel family in vLLM's own extensions.
MOE_FAMILIES = (("MARLIN", "marlin_moe"), ("Marlin", "marlin_moe"), ("VLLM_CUTLASS", "cutlass_moe_mm"),
                ("CUTLASSBLOCKSCALEDGROUPEDGEMM", "cutlass_moe_mm"), ("CutlassExperts", "cutlass_moe_mm"),
                ("CutlassBatchedExperts", "cutlass_moe_mm"))
LINEAR_FAMILIES = (("Marlin", "marlin"), ("Machete", "machete"), ("CutlassFP8ScaledMM", "cutlass_scaled_mm"),
                   ("CutlassFp8BlockScaledMM", "cutlass_scaled_mm"), ("CutlassScaledMM", "cutlass_scaled_mm"),
                   ("CutlassInt8ScaledMM", "cutlass_scaled_mm"))
ATTENTION_FAMILIES = {"FLASH_ATTN": "flash_attention", "FLASH_ATTN_MLA": "flash_attention",
                      "FLASHMLA": "flash_mla", "FLASHMLA_SPARSE": "flash_mla", "CUTLASS_MLA": "cutlass_mla"}
OTHER_LIBRARIES = ("FLASHINFER", "FlashInfer", "TRTLLM", "TrtLlm", "DEEPGEMM", "DeepGemm")
VARIANT_FAMILIES = ("marlin", "marlin_moe")
# Families whose host code picks the kernel by the GPU's arch (cutlass_scaled_mm's and cutlass_moe_mm's entry
# points dispatch on the SM version): a JIT-able image of another arch's kernel (the c2x sm89 kernels' compute_89
# PTX) says nothing about the kernel launched on 12.x, so only "no kernel runs at all" is judged for them.
ARCH_DISPATCHED = ("cutlass_scaled_mm", "cutlass_moe_mm")


def _match(name: str, table: tuple[tuple[str, str], ...]) -> str | None:
    if any(other in name for other in OTHER_LIBRARIES):
        return None
    return next((family for marker, family in table if marker in name), None)


def picks(entry: dict[str, Any], forced_attention: str = "", forced_linear: bool = False) -> list[dict[str, str]]:
    """Every pick of the entry that runs a kernel family of vLLM's own extensions: where, the name, the family.
    A forced attention backend replaces the table's own pick (the table says which ones the release accepts:
    derived.py's forced_rejection); a forced linear backend leaves the linear layers unjudged."""
    found = []
    attention = forced_attention or (entry.get("attention") or {}).get("backend")
    if attention in ATTENTION_FAMILIES:  # a refused forced backend ("REFUSED") runs no attention kernel here
        found.append({"where": "attention", "choice": attention, "family": ATTENTION_FAMILIES[attention]})
    moe = entry.get("moe") or {}
    for name in (moe.get("backend"), moe.get("experts"), *(moe.get("kernels") or {}).values()):
        family = _match(str(name), MOE_FAMILIES) if name else None
        if family:
            found.append({"where": "MoE experts", "choice": str(name), "family": family})
            break
    for group in [] if forced_linear else entry.get("linear") or []:
        for name in (*group["kernels"].values(), group["method"]):
            family = _match(str(name), LINEAR_FAMILIES)
            if family:
                found.append({"where": "linear layers", "choice": str(name), "family": family})
                break
    return found


def _variant(family: str, run: EngineRun) -> str | None:
    """Marlin kernels by activation: 16-bit unless VLLM_MARLIN_INPUT_DTYPE asks for fp8/int8 activations."""
    if family not in VARIANT_FAMILIES:
        return None
    return "a8" if str(run.facts.env.get(MARLIN_INPUT_ENV) or "").lower() in ("fp8", "int8") else "a16"


def level(found: FamilyVerdict) -> str:
    """native / ptx_jit / none (no image the GPU runs) / gated (images whose body is compiled out: a trap)."""
    if found.verdict == NONE:
        return "gated" if found.gated else "none"
    return "ptx_jit" if found.verdict == PTX_JIT else "native"


def view(run: EngineRun) -> dict[str, Any]:
    """What rules read under `vllm.kernel_images`: `status` derived / not_derived, the judged picks, and the first
    pick of each bad level (`none`, also for an arch-gated trap; `ptx_jit`; `ptx_jit_always`) with its images,
    `native_in` (the first audited later release with SASS for it) and fixes."""
    release, entry, wheel, why = _sources(run)
    if entry is None or wheel is None or release is None or run.gpu is None:
        return {"status": "not_derived", "why": why, "none": None, "ptx_jit": None, "ptx_jit_always": None}
    families = wheel_families(wheel)
    out: dict[str, Any] = {
        "status": "derived", "release": release, "wheel": wheel["wheel"], "capability": entry["capability"],
        "shape": entry["shape_key"], "source": f"doctor/data/derived/vllm/{release}.json ({entry['grid']}, "
                                               f"capability {entry['capability']})",
        "wheel_source": f"{wheel['wheel']} (sha256 {wheel['sha256'][:12]}), doctor/data/wheel_archs.json",
        "picks": [], "none": None, "ptx_jit": None, "ptx_jit_always": None,
    }
    for pick in picks(entry, _forced_attention(run, entry), bool(run.launch.get("linear_backend"))):
        judged = _judge(run, pick, families)
        if judged is None:
            continue
        out["picks"].append(judged)
        if judged["level"] == "native" or (judged["level"] == "ptx_jit" and pick["family"] in ARCH_DISPATCHED):
            continue
        native_in = _newer_release(run, judged, run.gpu.capability)
        # PTX in this release and in every audited later one is how vLLM ships the family (FlashAttention 2's
        # `8.0+PTX`): a note; PTX where a later release has SASS is a build gap the project closed: a warning
        key = "ptx_jit_always" if judged["level"] == "ptx_jit" and native_in is None else judged["level"]
        key = "none" if key == "gated" else key  # both leave the GPU without a kernel that does the work
        if out[key] is None:
            out[key] = {**judged, "native_in": native_in or "", "also": "",
                        "fix": _fix(entry, release, judged, families, native_in, run)}
        else:  # another pick at the same level: named in the first one's finding
            out[key]["also"] += f"; also {judged['family']} ({judged['choice']}) for the {judged['where']}"
    return out


def _sources(run: EngineRun) -> tuple[str | None, dict[str, Any] | None, dict[str, Any] | None, str]:
    """(table release, derived entry, audited wheel, why one is missing): an entry only where the release builds
    the deployment (no rejection, a complete emulation), a wheel only for the PyPI build of the release."""
    release, entry, why = derived.lookup(run)
    if entry is not None and derived.first_error(entry, "emulation") is not None:
        entry, why = None, f"the emulation of vLLM {release} stopped before its dispatch was complete"
    if entry is not None and derived.first_error(entry) is not None:
        entry, why = None, f"vLLM {release} refuses this deployment before it launches a kernel"
    if entry is None or run.gpu is None:
        return release, None, None, why
    other_build = _other_build(run)
    if other_build:
        return release, entry, None, other_build
    wheel = family_wheel("vllm", run.version.base_version, run.gpu.capability)
    if wheel is None:
        why = f"no audited {platform_for(run.gpu.capability)} wheel of vLLM {run.version.base_version} with " \
              f"kernel families (doctor/data/wheel_archs.json; tools/wheel_archs.py --target vllm==VERSION adds one)"
    return release, entry, wheel, why


def _forced_attention(run: EngineRun, entry: dict[str, Any]) -> str:
    """The attention backend the launch forces, where the release accepts it for this shape (a refused one is
    derived.py's forced_rejection, and no kernel of it launches); "" when none is forced."""
    forced = str(run.launch.get("attention_backend") or run.facts.env.get("VLLM_ATTENTION_BACKEND") or "").upper()
    attention = entry.get("attention") or {}
    if forced and (forced in (attention.get("valid") or []) or (attention.get("if_forced") or {}).get(forced) == []):
        return forced
    return "REFUSED" if forced else ""


def _judge(run: EngineRun, pick: dict[str, str], families: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The pick with its family's level on the GPU and the images behind it; None when the wheel lacks it."""
    variant = _variant(pick["family"], run)
    found = verdict(families, pick["family"], run.gpu.capability, variant) if run.gpu is not None else None
    if found is None:
        return None
    return {**pick, "variant": variant or "", "level": level(found), "reason": found.reason,
            "images": images(families, pick["family"], variant), "files": ", ".join(families[pick["family"]]["files"])}


def _other_build(run: EngineRun) -> str | None:
    """Why the PyPI wheel does not stand for the run's build: a local or dev version is another build, and an
    install whose binaries the probe read is judged from those (BIN003)."""
    if run.version.local or run.version.is_devrelease or run.version.is_prerelease:
        return f"vLLM {run.version} is not the PyPI build (its compiled archs are its own)"
    if run.library.details.get("cuda_binaries"):
        return "the installed vLLM's own binaries were read (BIN003 judges them)"
    return None


def _fix(entry: dict[str, Any], release: str, pick: dict[str, str], families: dict[str, dict[str, Any]],
         native_in: str | None, run: EngineRun) -> str:
    kernels = f" ({pick['variant']} kernels)" if pick["variant"] else ""
    upgrade = f"upgrade to vLLM {native_in}, the first audited release whose wheel has SASS for capability " \
              f"{entry['capability']} in {pick['family']}{kernels}" if native_in else None
    fixes = [f for f in (upgrade, _other_backend(run, entry, release, pick, families)) if f]
    return "; or ".join(fixes) or f"no audited vLLM release has SASS for capability {entry['capability']} in " \
                                  f"{pick['family']}, and the tables hold no other backend for this shape"


def _newer_release(run: EngineRun, pick: dict[str, str], capability: tuple[int, int]) -> str | None:
    """The first audited newer release whose wheel runs the family natively on this GPU."""
    for version in (v for v in audited_versions("vllm", capability) if Version(v) > run.version):
        wheel = family_wheel("vllm", version, capability)
        found = verdict(wheel_families(wheel), pick["family"], capability, pick["variant"] or None) if wheel else None
        if found is not None and found.verdict == NATIVE:
            return version
    return None


def _runs_natively(run: EngineRun, entry: dict[str, Any], families: dict[str, dict[str, Any]]) -> bool:
    """Every judged pick of the entry has SASS for the GPU (picks of other libraries are not judged here)."""
    capability = run.gpu.capability if run.gpu is not None else (0, 0)
    found = [verdict(families, p["family"], capability, _variant(p["family"], run)) for p in picks(entry)]
    return all(f is None or f.verdict == NATIVE for f in found)


def _other_backend(run: EngineRun, entry: dict[str, Any], release: str, pick: dict[str, str],
                   families: dict[str, dict[str, Any]]) -> str | None:
    """A backend flag the table shows moves this shape off the family: another valid attention backend, or a
    --moe-backend entry of the grid that builds with kernels the wheel has SASS for."""
    if pick["where"] == "attention":
        valid = [b for b in (entry.get("attention") or {}).get("valid") or []
                 if ATTENTION_FAMILIES.get(b) != pick["family"] and b not in ("FLEX_ATTENTION", "TORCH_SDPA")]
        return f"--attention-backend {' or '.join(valid)} (valid for this shape in vLLM {release}'s own " \
               f"selection) moves attention off {pick['family']}" if valid else None
    if pick["where"] == "MoE experts":
        for other in derived.table(release)["entries"]:
            if other["capability"] == entry["capability"] and other["shape"] == entry["shape"] \
                    and other.get("moe_backend") and not other["errors"] \
                    and other["kv_cache_dtype"] == entry["kv_cache_dtype"] \
                    and other.get("tp", 1) == entry.get("tp", 1) and _runs_natively(run, other, families):
                chosen = (other.get("moe") or {}).get("backend") or other["moe_backend"]
                return f"--moe-backend {other['moe_backend']}: vLLM {release} then builds this shape with " \
                       f"{chosen} on capability {entry['capability']}"
    return None
