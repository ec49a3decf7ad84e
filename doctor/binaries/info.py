"""BinaryInfo: what one CUDA binary carries, as the reader (reader.py, collect.py) fills it in."""

from __future__ import annotations

from dataclasses import dataclass, field

from doctor.binaries.archs import Arch


@dataclass
class BinaryInfo:
    """What one file carries. `modules` counts fatbins (roughly one per compiled .cu file)."""

    path: str
    sass: list[str] = field(default_factory=list)
    ptx: list[str] = field(default_factory=list)
    size: int = 0
    error: str | None = None
    format: str = "unknown"  # "elf" (fatbins inside), "cubin", "fatbin", "elf-no-cuda", "unknown"
    modules: int = 0
    entries: int = 0
    compressed: int = 0
    module_archs: list[tuple[list[str], int]] = field(default_factory=list)
    rdc_ptx: list[str] = field(default_factory=list)
    lto: list[str] = field(default_factory=list)
    lto_only_modules: int = 0  # fatbins holding LTO-IR and nothing else
    kernel_free_modules: int = 0  # fatbins whose images name no kernel (known only when names are read)
    entry_counts: dict[str, int] = field(default_factory=dict)  # arch token -> images
    fatbin_sections: dict[str, int] = field(default_factory=dict)  # section -> fatbins found in it
    unreferenced_fatbins: int = 0  # found only by the magic scan (no CUDA section points at them)
    codecs: dict[str, int] = field(default_factory=dict)  # "lz4"/"zstd" -> compressed images
    unread_entries: int = 0  # SASS/PTX images whose kernel names could not be read
    families: dict[str, dict] = field(default_factory=dict)  # see families.FamilyIndex.to_dict
    kernel_archs: list[tuple[list[str], int]] = field(default_factory=list)  # kernels grouped by their images

    @property
    def has_device_code(self) -> bool:
        return bool(self.sass or self.ptx or self.lto)

    @property
    def archs(self) -> list[Arch]:
        return [Arch.parse(t) for t in [*self.sass, *self.ptx, *self.lto]]

    def to_dict(self) -> dict:
        return {
            "path": self.path, "sass": self.sass, "ptx": self.ptx, "lto": self.lto, "size": self.size,
            "error": self.error, "format": self.format, "modules": self.modules,
            "lto_only_modules": self.lto_only_modules, "kernel_free_modules": self.kernel_free_modules,
            "entries": self.entries,
            "entry_counts": self.entry_counts, "compressed_entries": self.compressed, "codecs": self.codecs,
            "fatbin_sections": self.fatbin_sections, "unreferenced_fatbins": self.unreferenced_fatbins,
            "rdc_ptx": self.rdc_ptx, "unread_entries": self.unread_entries, "families": self.families,
            "kernels": sum(count for _, count in self.kernel_archs),
        }
