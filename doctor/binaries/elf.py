"""Minimal ELF64 little-endian reader: the header and the section header table, nothing more.

Works on a buffer (an mmap or bytes) and only touches the bytes it needs, so probing a large
shared object costs a few page reads.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

ELF_MAGIC = b"\x7fELF"
EM_CUDA = 190
SHT_NOBITS = 8

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_NAME_OFFSET = struct.Struct("<I")
_NAME_ONLY = struct.Struct("<I60x")


class ElfError(ValueError):
    """The buffer is not a readable ELF64 little-endian file; the message is one line."""


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    addr: int
    offset: int
    size: int


@dataclass(frozen=True)
class ElfHeader:
    osabi: int
    abiversion: int
    type: int
    machine: int
    flags: int
    shoff: int
    shentsize: int
    shnum: int
    shstrndx: int


def read_header(buf) -> ElfHeader:
    if len(buf) < 4 or buf[:4] != ELF_MAGIC:
        raise ElfError(f"not an ELF file (starts with {bytes(buf[:4])!r})")
    if len(buf) < _EHDR.size:
        raise ElfError(f"truncated ELF header ({len(buf)} bytes)")
    ident = buf[:16]
    if ident[4] != 2 or ident[5] != 1:
        raise ElfError(f"unsupported ELF class/encoding ({ident[4]}/{ident[5]}); only ELF64 little-endian")
    fields = _EHDR.unpack_from(buf, 0)
    _, e_type, machine, _, _, _, shoff, flags, _, _, _, shentsize, shnum, shstrndx = fields
    return ElfHeader(ident[7], ident[8], e_type, machine, flags, shoff, shentsize, shnum, shstrndx)


def _section_header(buf, header: ElfHeader, index: int) -> tuple:
    return _SHDR.unpack_from(buf, header.shoff + index * header.shentsize)


def _table(buf, header: ElfHeader) -> tuple[int, int]:
    """(section count, name-table index), checked to lie inside the file."""
    if header.shentsize < _SHDR.size:
        raise ElfError(f"bad section header entry size {header.shentsize}")
    size = len(buf)
    if header.shoff + _SHDR.size > size:
        raise ElfError(f"truncated: section headers at {header.shoff:#x} lie past the end ({size} bytes)")
    shnum, shstrndx = header.shnum, header.shstrndx
    if shnum == 0 or shstrndx == 0xFFFF:
        # Extended numbering: the real values live in section 0.
        first = _section_header(buf, header, 0)
        shnum = shnum or first[5]
        shstrndx = first[6] if shstrndx == 0xFFFF else shstrndx
    end = header.shoff + shnum * header.shentsize
    if end > size:
        raise ElfError(f"truncated: {shnum} section headers end at {end:#x}, file has {size} bytes")
    if not 0 <= shstrndx < shnum:
        raise ElfError(f"bad section name table index {shstrndx}")
    return shnum, shstrndx


def _names(buf, header: ElfHeader, shstrndx: int) -> bytes:
    raw = _section_header(buf, header, shstrndx)
    str_off, str_size = raw[4], raw[5]
    if str_off + str_size > len(buf):
        raise ElfError("truncated: section name table lies past the end of the file")
    return bytes(buf[str_off:str_off + str_size])


def section_name_table(buf, header: ElfHeader) -> bytes:
    """The bytes of the section name table (`.shstrtab`); b"" when the file has no section table."""
    if header.shoff == 0:
        return b""
    _, shstrndx = _table(buf, header)
    return _names(buf, header, shstrndx)


def sections(buf, header: ElfHeader | None = None) -> list[Section]:
    """All sections with their names. Raises ElfError if the table or its names run past the end."""
    header = header or read_header(buf)
    if header.shoff == 0:
        return []
    shnum, shstrndx = _table(buf, header)
    names = _names(buf, header, shstrndx)
    raw = [_section_header(buf, header, i) for i in range(shnum)]
    return [Section(_name(names, r[0]), r[1], r[3], r[4], r[5]) for r in raw]


def find_sections(buf, header: ElfHeader, wanted: tuple[str, ...]) -> list[Section]:
    """Only the sections named in `wanted`: cheaper than `sections` on files with many sections."""
    if header.shoff == 0:
        return []
    shnum, shstrndx = _table(buf, header)
    names = _names(buf, header, shstrndx)
    targets: dict[int, str] = {}
    for name in wanted:
        key = name.encode() + b"\0"
        pos = names.find(key)
        while pos >= 0:  # a name can also end a longer one (".rela.nvFatBinSegment")
            targets[pos] = name
            pos = names.find(key, pos + 1)
    found = []
    table_end = header.shoff + shnum * header.shentsize
    table = memoryview(buf)[header.shoff:table_end] if header.shentsize == _SHDR.size else None
    if table is not None:  # the usual case: one C-level pass over the name offsets
        offsets = (n for (n,) in _NAME_ONLY.iter_unpack(table))
    else:
        step = header.shentsize
        offsets = (_NAME_OFFSET.unpack_from(buf, header.shoff + i * step)[0] for i in range(shnum))
    for index, name_offset in enumerate(offsets):
        if name_offset in targets:
            r = _SHDR.unpack_from(buf, header.shoff + index * header.shentsize)
            found.append(Section(targets[name_offset], r[1], r[3], r[4], r[5]))
    if table is not None:
        table.release()
    return found


def _name(names: bytes, offset: int) -> str:
    if offset >= len(names):
        return ""
    end = names.find(b"\0", offset)
    return names[offset:end if end >= 0 else len(names)].decode("latin-1")


def section_bytes_ok(buf, section: Section) -> bool:
    return section.type != SHT_NOBITS and section.offset + section.size <= len(buf)


def vaddr_to_offset(sections_: list[Section], vaddr: int) -> int | None:
    """Map a virtual address to a file offset through the section table (allocated sections only)."""
    for sec in _allocated(sections_):
        if sec.addr <= vaddr < sec.addr + sec.size:
            return sec.offset + (vaddr - sec.addr)
    return None


def _allocated(sections_: list[Section]) -> Iterator[Section]:
    return (s for s in sections_ if s.addr and s.type != SHT_NOBITS)
