"""Compiled CUDA archs of the installed engine packages, read from their fatbins (doctor.binaries):
facts only — which GPU they run on is decided in the analysis, so profiles and snapshots work too."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from doctor.pipeline.facts import Library

# Library keys whose CUDA extensions `check` reads, besides the engines that ask for it
# (Engine.scan_binaries, passed in by the caller). flashinfer-cubin is left out on purpose: its
# ~16k standalone SM100 cubins take seconds to walk and never hold SM12x code.
SCANNED = ("sgl-kernel", "flashinfer-python", "flashinfer-jit-cache")
FIELDS = ("sass", "ptx", "lto", "format", "modules", "lto_only_modules", "kernel_free_modules", "rdc_ptx", "size",
          "error", "families")


def with_binary_facts(libraries: dict[str, Library], engines: tuple[str, ...] = ()) -> dict[str, Library]:
    """`engines`: the packages of the engines whose compiled extensions are scanned too."""
    out = dict(libraries)
    torch = out.get("torch")
    if torch is not None and torch.location and not torch.what_if:
        from doctor.binaries import torch_arch_list

        archs = torch_arch_list([Path(torch.location)])
        if archs is not None:
            details = {**torch.details, "arch_list": archs, "arch_list_source": "fatbin scan of torch/lib"}
            out["torch"] = dataclasses.replace(torch, details=details)
    by_site: dict[str, list[Library]] = {}
    for key in dict.fromkeys((*engines, *SCANNED)):
        library = out.get(key)
        if library is not None and library.location and not library.what_if:
            by_site.setdefault(library.location, []).append(library)
    if by_site:
        from doctor.binaries import scan_environment
    for site, members in by_site.items():
        names = [str(m.details.get("distribution", m.name)) for m in members]
        report = scan_environment(roots=[Path(site)], packages=names)
        skipped = _skipped_by_package(Path(site), report.skipped)
        for library in members:
            files = [_file_fact(entry, site) for entry in report.files if _owned(entry.package, library)]
            details = {**library.details, "cuda_binaries": files}
            passed_over = [entry for package, entry in skipped if _owned(package, library)]
            if passed_over:
                details["skipped_binaries"] = passed_over
            out[library.name] = dataclasses.replace(library, details=details)
    return out


def _skipped_by_package(site: Path, skipped: list[tuple[str, str]]) -> list[tuple[str, dict[str, str]]]:
    """(owning distribution, {path, why}) for each binary-looking path the scan did not open: a dangling or
    looping link, a special file. Its owner comes from the RECORDs, else its top-level folder."""
    if not skipped:
        return []
    from doctor.binaries.dists import DistIndex

    index = DistIndex.for_root(site)
    out = []
    for path, why in skipped:
        package, _ = index.owner(Path(path))
        relative = Path(path).relative_to(site) if Path(path).is_relative_to(site) else Path(path)
        out.append((package, {"path": str(relative), "why": why}))
    return out


def _owned(package: str, library: Library) -> bool:
    wanted = str(library.details.get("distribution", library.name)).lower().replace("_", "-")
    return package.lower().replace("_", "-") == wanted


def _file_fact(entry: object, site: str) -> dict[str, object]:
    info = entry.info  # type: ignore[attr-defined]
    fact = {name: getattr(info, name) for name in FIELDS}
    path = Path(info.path)
    fact["path"] = str(path.relative_to(site)) if path.is_relative_to(site) else str(path)
    return fact
