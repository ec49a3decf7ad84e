"""read_cuda_archs: the SASS and PTX targets compiled into one file, from its headers alone.

Handles ELF shared objects and object files with fatbins (`.nv_fatbin`, `__nv_relfatbin` of objects
built with -rdc, or any section a `.nvFatBinSegment` wrapper points into), standalone cubins (ELF with
e_machine EM_CUDA, as flashinfer-cubin ships them) and raw fatbin files. Nothing is ever loaded.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections import Counter
from dataclasses import dataclass, field

from doctor.binaries import elf, fatbin
from doctor.binaries.archs import PTX, SASS, Arch, sort_tokens

RELOCATABLE_SECTION = "__nv_relfatbin"
FATBIN_SECTIONS = (".nv_fatbin", RELOCATABLE_SECTION)
WRAPPER_SECTION = ".nvFatBinSegment"
COMPAT_SECTION = ".nv.compat"
# Read outright below this size (cheaper than mapping, measured); above it, mmap touches only the
# header pages of large libraries (libtorch_cuda.so: 1 GB, a few MB touched).
SMALL_FILE = 256 * 1024
_COMPAT_ISA_CLASS = 0x09  # .nv.compat attribute: 1 = arch-specific (`a`) cubin


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

    @property
    def has_device_code(self) -> bool:
        return bool(self.sass or self.ptx)

    @property
    def archs(self) -> list[Arch]:
        return [Arch.parse(t) for t in [*self.sass, *self.ptx]]

    def to_dict(self) -> dict:
        return {
            "path": self.path, "sass": self.sass, "ptx": self.ptx, "size": self.size,
            "error": self.error, "format": self.format, "modules": self.modules,
            "entries": self.entries, "compressed_entries": self.compressed, "rdc_ptx": self.rdc_ptx,
        }


def read_cuda_archs(path: str | os.PathLike) -> BinaryInfo:
    """List the SASS and PTX archs compiled into `path`. Never raises; problems go to `.error`."""
    info = BinaryInfo(path=str(path))
    try:
        with open(path, "rb") as handle:
            info.size = os.fstat(handle.fileno()).st_size
            if info.size == 0:
                info.error = "empty file"
                return info
            if info.size <= SMALL_FILE:
                _read_into(info, handle.read())
            else:
                with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
                    _read_into(info, buf)
    except (elf.ElfError, fatbin.FatbinError) as exc:
        info.error = str(exc)
    except OSError as exc:
        info.error = f"cannot read: {exc.strerror or exc}"
    except (struct.error, ValueError, IndexError) as exc:
        info.error = f"malformed: {type(exc).__name__}: {exc}"
    return info


def _read_into(info: BinaryInfo, buf) -> None:
    if buf[:4] == fatbin.FATBIN_MAGIC_BYTES:
        info.format = "fatbin"
        _collect(info, _fatbins_in(buf, 0, len(buf)), buf)
        return
    header = elf.read_header(buf)
    if header.machine == elf.EM_CUDA:
        info.format = "cubin"
        arch = _standalone_cubin_arch(buf, header)
        info.sass = [arch.token]
        info.modules = info.entries = 1
        info.module_archs = [([arch.token], 1)]
        return
    offsets = _fatbin_offsets(buf, header)
    info.format = "elf" if offsets is not None else "elf-no-cuda"
    if offsets:
        linked, relocatable = offsets
        _collect(info, linked or relocatable, buf)
        if linked and relocatable:
            info.rdc_ptx = _relocatable_ptx(buf, relocatable)


def _fatbin_offsets(buf, header: elf.ElfHeader) -> tuple[dict[int, int], dict[int, int]] | None:
    """Fatbin offset -> end limit, for the loadable fatbins and for the relocatable (`-rdc`) ones;
    None when the file has no CUDA sections."""
    found: dict[int, int] = {}
    relocatable: dict[int, int] = {}
    wanted = elf.find_sections(buf, header, (*FATBIN_SECTIONS, WRAPPER_SECTION))
    if not wanted:
        return None
    containers = [s for s in wanted if s.name in FATBIN_SECTIONS]
    for sec in containers:
        _require_in_file(buf, sec)
        target = relocatable if sec.name == RELOCATABLE_SECTION else found
        target.update(_fatbins_in(buf, sec.offset, sec.offset + sec.size))
    for sec in (s for s in wanted if s.name == WRAPPER_SECTION):
        _require_in_file(buf, sec)
        addresses = fatbin.wrapper_targets(buf, sec.offset, sec.offset + sec.size)
        outside = [a for a in addresses if not any(c.addr <= a < c.addr + c.size for c in containers)]
        if outside:
            _follow_wrappers(buf, header, outside, found)
    return found, relocatable


def _relocatable_ptx(buf, offsets: dict[int, int]) -> list[str]:
    """PTX kept in `__nv_relfatbin` next to a device-linked image. cuobjdump does not list it and the
    runtime loads the linked image, so it is reported apart and not counted as JIT-able."""
    scratch = BinaryInfo(path="")
    _collect(scratch, offsets, buf)
    return scratch.ptx


def _follow_wrappers(buf, header: elf.ElfHeader, addresses: list[int], found: dict[int, int]) -> None:
    """Fatbins that wrappers place outside the usual sections (some toolchains use .rodata)."""
    sections = elf.sections(buf, header)
    for address in addresses:
        offset = elf.vaddr_to_offset(sections, address)
        if offset is None or offset in found or _inside_any(found, offset) is not None:
            continue
        if buf[offset:offset + 4] == fatbin.FATBIN_MAGIC_BYTES:
            found[offset] = _section_end(sections, offset)


def _fatbins_in(buf, start: int, end: int) -> dict[int, int]:
    return dict.fromkeys(fatbin.find_fatbins(buf, start, end), end)


def _inside_any(found: dict[int, int], offset: int) -> int | None:
    return next((start for start, end in found.items() if start <= offset < end), None)


def _section_end(sections: list[elf.Section], offset: int) -> int:
    for sec in sections:
        if sec.type != elf.SHT_NOBITS and sec.offset <= offset < sec.offset + sec.size:
            return sec.offset + sec.size
    return offset


def _require_in_file(buf, sec: elf.Section) -> None:
    if not elf.section_bytes_ok(buf, sec):
        raise elf.ElfError(f"truncated: section {sec.name} ends at {sec.offset + sec.size:#x}, "
                           f"file has {len(buf)} bytes")


def _collect(info: BinaryInfo, offsets: dict[int, int], buf) -> None:
    """Read every fatbin; keep what was read before an error, and report the first error."""
    sass: set[str] = set()
    ptx: set[str] = set()
    per_module: Counter[frozenset[str]] = Counter()
    for offset, limit in sorted(offsets.items()):
        try:
            entries = fatbin.read_fatbin(buf, offset, limit)
        except fatbin.FatbinError as exc:
            info.error = info.error or str(exc)
            continue
        tokens = set()
        for entry in entries:
            info.entries += entry.arch is not None
            info.compressed += entry.compressed
            if entry.arch is not None:
                tokens.add(entry.arch.token)
                (sass if entry.arch.kind == SASS else ptx).add(entry.arch.token)
        if tokens:  # an empty fatbin (no loadable image) is not a kernel module
            info.modules += 1
            per_module[frozenset(tokens)] += 1
    info.sass = sort_tokens(sass)
    info.ptx = sort_tokens(ptx)
    info.module_archs = [(sort_tokens(key), count) for key, count in per_module.most_common()]


def _standalone_cubin_arch(buf, header: elf.ElfHeader) -> Arch:
    if header.abiversion >= fatbin.CUBIN_ABI_V2:
        number, accel = (header.flags >> 8) & 0xFF, header.flags & fatbin.EF_ACCEL_V2
    else:
        number, accel = header.flags & 0xFF, header.flags & fatbin.EF_ACCEL_V1
    if not 10 <= number <= 255:
        raise elf.ElfError(f"cubin e_flags {header.flags:#x} name no SM")
    specific = bool(accel) or _compat_isa_class(buf, header) == 1
    return Arch(number, "a" if specific else "", SASS)


def _compat_isa_class(buf, header: elf.ElfHeader) -> int | None:
    """The ISA class attribute of a cubin's `.nv.compat` section (CUDA 13 marks `a` cubins there)."""
    sec = next(iter(elf.find_sections(buf, header, (COMPAT_SECTION,))), None)
    if sec is None or not elf.section_bytes_ok(buf, sec):
        return None
    pos, end = sec.offset, sec.offset + sec.size
    while pos + 4 <= end:
        fmt, attr, value = buf[pos], buf[pos + 1], struct.unpack_from("<H", buf, pos + 2)[0]
        if fmt == 0:
            return None
        if attr == _COMPAT_ISA_CLASS and fmt != 4:
            return value
        pos += 4 + (value if fmt == 4 else 0)
    return None


__all__ = ["PTX", "SASS", "BinaryInfo", "read_cuda_archs"]
