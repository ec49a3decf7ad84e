"""CUDA fatbin container: headers, and where each entry's payload lies (decoding is in payload.py).

Layout (little-endian), as emitted by nvcc/fatbinary and checked against CUDA 13.0 output and the
fatbins of the CUDA 13.0 math libraries (cuFFT 12.0, cuBLAS 13.0):

fatbin header, 16 bytes: magic 0xBA55ED50 (u32), version (u16), header size (u16), payload size (u64).
The payload is a run of entries; each entry header (64 bytes or more) is:

    0  kind u16 (1 = PTX, 2 = ELF cubin, 8 = LTO-IR)    2  version u16
    4  header size u32 (64 or more)                     8  payload size u64 (padded to 8)
    16 compressed size u32                              20 (unknown) u32
    24 ISA/ELF minor u16, major u16                     28 arch u32 (major*10 + minor: 90, 120, 121)
    32 name offset u32, name length u32                 40 flags u64
    48 zero u64 (a hash on LTO-IR entries)              56 uncompressed size u64

Flags seen: 0x1 64-bit, 0x10 Linux host, 0x2000 LZ4-compressed (an LZ4 block), 0x8000 zstd-compressed
(a zstd frame), 0x10000 on every LTO-IR entry (its payload then decodes as neither), 0x100000
arch-specific target (`sm_90a`, `compute_120a`, `lto_90a`), 0x200000 family target (`sm_120f`).
Entries of CUDA >= 12.9 for newer archs carry 0x1000000 and extra compatibility bytes in a longer header;
LTO-IR entries keep their compile options (`-ftz=0 -prec_div=1 ...`) in theirs.

`.nvFatBinSegment` holds 24-byte wrappers {magic 0x466243B1 u32, version u32, fatbin address u64,
unused u64} pointing at the fatbins, normally in `.nv_fatbin`; `__nv_relfatbin` holds the fatbins of
relocatable device code in object files. Libraries may also carry fatbins that neither points at
(cuFFT 12.0 keeps ~24,000 in `.ldata` and registers them itself), which only a scan for the magic finds.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from doctor.binaries.archs import LTO, PTX, SASS, Arch

FATBIN_MAGIC = 0xBA55ED50
FATBIN_MAGIC_BYTES = struct.pack("<I", FATBIN_MAGIC)
WRAPPER_MAGIC = 0x466243B1

KIND_PTX = 1
KIND_ELF = 2
KIND_LTO = 8
_KINDS = {KIND_PTX: PTX, KIND_ELF: SASS, KIND_LTO: LTO}
FATBIN_VERSION = 1

FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000
FLAG_OPAQUE_IR = 0x10000
FLAG_ARCH_SPECIFIC = 0x100000
FLAG_FAMILY = 0x200000

# ELF e_flags of a cubin: ABI v1 (e_ident[8] < 8) keeps the SM in bits 0-7, `a` in 0x800;
# ABI v2 (CUDA >= 12.8 for new archs) keeps the SM in bits 8-15, `a` in 0x8.
CUBIN_ABI_V2 = 8
EF_ACCEL_V1 = 0x800
EF_ACCEL_V2 = 0x8

_FATBIN_HEADER = struct.Struct("<IHHQ")
_ENTRY_HEADER = struct.Struct("<HHIQIIHHIIIQQQ")
ENTRY_MIN_SIZE = 64
_WRAPPER = struct.Struct("<IIQQ")


class FatbinError(ValueError):
    """A fatbin header or entry does not add up; the message is one line."""


class Entry(NamedTuple):
    """One image. `data_offset`/`stored_size`: its payload as stored; `size`: once decompressed.
    (A NamedTuple: cuFFT alone has 24,000 entries, and frozen dataclasses are slow to build.)"""

    arch: Arch | None  # None for kinds this reader does not know
    kind_code: int
    codec: str | None  # "lz4", "zstd", or None when stored plain
    offset: int
    data_offset: int = 0
    stored_size: int = 0
    size: int = 0
    opaque: bool = False  # LTO-IR payloads (flag 0x10000) decode as neither LZ4 nor zstd

    @property
    def compressed(self) -> bool:
        return self.codec is not None


def find_fatbins(buf, start: int, end: int) -> Iterator[int]:
    """Offsets of fatbin headers in [start, end), skipping the padding between them."""
    pos = start
    while pos + _FATBIN_HEADER.size <= end:
        found = buf.find(FATBIN_MAGIC_BYTES, pos, end)
        if found < 0:
            return
        _, _, header_size, size = _FATBIN_HEADER.unpack_from(buf, found)
        yield found
        pos = found + max(header_size, _FATBIN_HEADER.size) + size


def fatbin_end(buf, offset: int) -> int:
    """Where the fatbin whose header is at `offset` claims to end (unchecked: read_fatbin checks)."""
    _, _, header_size, size = _FATBIN_HEADER.unpack_from(buf, offset)
    return offset + max(header_size, _FATBIN_HEADER.size) + size


def read_if_well_formed(buf, offset: int) -> list[Entry] | None:
    """The entries of the fatbin at `offset` if a real one is there, not four bytes that happen to match
    the magic: every entry must parse and end exactly where the header says, inside the buffer, with at
    least one image. None otherwise."""
    if offset + _FATBIN_HEADER.size > len(buf):
        return None
    _, version, header_size, _ = _FATBIN_HEADER.unpack_from(buf, offset)
    if version != FATBIN_VERSION or header_size != _FATBIN_HEADER.size:
        return None
    try:
        return read_fatbin(buf, offset, len(buf)) or None
    except FatbinError:
        return None


def read_fatbin(buf, offset: int, limit: int) -> list[Entry]:
    """Entries of the fatbin at `offset`; its payload must end at or before `limit`."""
    if offset + _FATBIN_HEADER.size > limit:
        raise FatbinError(f"fatbin header at {offset:#x} is cut off")
    magic, _, header_size, size = _FATBIN_HEADER.unpack_from(buf, offset)
    if magic != FATBIN_MAGIC:
        raise FatbinError(f"bad fatbin magic {magic:#x} at {offset:#x}")
    if header_size < _FATBIN_HEADER.size:
        raise FatbinError(f"bad fatbin header size {header_size} at {offset:#x}")
    pos, end = offset + header_size, offset + header_size + size
    if end > limit:
        raise FatbinError(f"fatbin at {offset:#x} claims {size} bytes, runs past its section")
    entries = []
    while pos < end:
        entry, pos = _read_entry(buf, pos, end)
        entries.append(entry)
    return entries


def _read_entry(buf, pos: int, end: int) -> tuple[Entry, int]:
    if pos + ENTRY_MIN_SIZE > end:
        raise FatbinError(f"fatbin entry header at {pos:#x} is cut off")
    kind, _, header_size, size, packed, _, _, _, number, _, _, flags, _, unpacked = _ENTRY_HEADER.unpack_from(buf, pos)
    if header_size < ENTRY_MIN_SIZE:
        raise FatbinError(f"bad fatbin entry header size {header_size} at {pos:#x}")
    data_offset = pos + header_size
    next_pos = data_offset + size
    if next_pos > end:
        raise FatbinError(f"fatbin entry at {pos:#x} ({size} bytes) runs past its fatbin")
    arch, codec = _describe(kind, number, flags)
    if codec is None:
        packed = unpacked = size
        if kind == KIND_ELF and arch is not None and not arch.variant and cubin_variant(buf, data_offset, size):
            arch = _describe_arch(number, "a", SASS)
    elif packed > size:
        raise FatbinError(f"fatbin entry at {pos:#x} claims {packed} compressed bytes in a {size}-byte payload")
    if kind in _KINDS and arch is None:
        raise FatbinError(f"implausible arch {number} in fatbin entry at {pos:#x}")
    return Entry(arch, kind, codec, pos, data_offset, packed, unpacked, bool(flags & FLAG_OPAQUE_IR)), next_pos


@lru_cache(maxsize=4096)
def _describe(kind: int, number: int, flags: int) -> tuple[Arch | None, str | None]:
    """(arch, codec) from an entry header's fields; arch None for unknown kinds or implausible numbers."""
    codec = "lz4" if flags & FLAG_LZ4 else "zstd" if flags & FLAG_ZSTD else None
    if kind not in _KINDS or not 10 <= number <= 999:
        return None, codec
    return _describe_arch(number, _flag_variant(flags), _KINDS[kind]), codec


@lru_cache(maxsize=1024)
def _describe_arch(number: int, variant: str, kind: str) -> Arch:
    return Arch(number, variant, kind)


def _flag_variant(flags: int) -> str:
    if flags & FLAG_ARCH_SPECIFIC:
        return "a"
    if flags & FLAG_FAMILY:
        return "f"
    return ""


def cubin_variant(buf, offset: int, size: int) -> str:
    """`a` if an embedded cubin's ELF e_flags mark it arch-specific, else ""."""
    if size < 0x34 or buf[offset:offset + 4] != b"\x7fELF":
        return ""
    abi_version = buf[offset + 8]
    (flags,) = struct.unpack_from("<I", buf, offset + 0x30)
    return "a" if flags & (EF_ACCEL_V2 if abi_version >= CUBIN_ABI_V2 else EF_ACCEL_V1) else ""


def wrapper_targets(buf, start: int, end: int) -> Iterator[int]:
    """Fatbin addresses (virtual) named by the wrappers in a `.nvFatBinSegment` section."""
    for pos in range(start, end - _WRAPPER.size + 1, _WRAPPER.size):
        magic, _, address, _ = _WRAPPER.unpack_from(buf, pos)
        if magic == WRAPPER_MAGIC and address:
            yield address
