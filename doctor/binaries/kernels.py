"""Kernel (entry function) names inside one image: a cubin's section names, a PTX module's `.entry`s.

A cubin gives each kernel a `.nv.info.<mangled name>` section (device functions get none), so the
section name table alone names the kernels: no symbol table walk. ptxas and nvlink write that table
first, at 0x40, and the symbol string table (which starts with the same ".shstrtab" name) right after
it, so a compressed cubin only needs decoding up to there.
"""

from __future__ import annotations

import re

from doctor.binaries import elf, payload
from doctor.binaries.archs import PTX, SASS
from doctor.binaries.fatbin import Entry

_KERNEL_SECTION = b"\0.nv.info."
_PTX_ENTRY = b".entry"
_PTX_NAME = re.compile(rb"\s+([A-Za-z_$%][\w$]*)")
_TABLE_START = 0x40
_TABLE_MARK = b"\0.shstrtab\0"


def names_in_entry(buf, entry: Entry) -> set[str] | None:
    """Kernel names of one SASS or PTX entry; None when its payload cannot be read."""
    if entry.arch is None or not payload.can_decode(entry):
        return None
    try:
        if entry.arch.kind == SASS:
            return _cubin_entry_names(buf, entry)
        if entry.arch.kind == PTX:
            return ptx_kernel_names(payload.decode(buf, entry))
    except (payload.PayloadError, elf.ElfError, ValueError, IndexError):
        return None
    return None


def cubin_kernel_names(cubin) -> set[str]:
    """Kernel names of a whole cubin (bytes, or a buffer that starts with one). Raises ElfError."""
    return _names(_section_name_table(cubin))


def ptx_kernel_names(text: bytes) -> set[str]:
    """`.entry NAME` declarations (bytes.find, not a regex over the whole text: PTX runs to megabytes)."""
    names = set()
    pos = text.find(_PTX_ENTRY)
    while pos >= 0:
        match = _PTX_NAME.match(text, pos + len(_PTX_ENTRY))
        if match:
            names.add(match.group(1).decode("latin-1"))
        pos = text.find(_PTX_ENTRY, pos + len(_PTX_ENTRY))
    return names


def _cubin_entry_names(buf, entry: Entry) -> set[str]:
    if entry.codec is None:
        with memoryview(buf)[entry.data_offset:entry.data_offset + entry.stored_size] as view:
            return cubin_kernel_names(view)
    prefix = payload.decode_prefix(buf, entry, _past_name_table)
    if len(prefix) < entry.size and _past_name_table(prefix):
        return _names(prefix[_TABLE_START:prefix.find(_TABLE_MARK, _TABLE_START + 1)])
    return cubin_kernel_names(prefix)


def _past_name_table(prefix) -> bool:
    """Has decoding gone past the section name table? Only for the layout ptxas/nvlink write."""
    return (prefix[_TABLE_START:_TABLE_START + len(_TABLE_MARK)] == _TABLE_MARK
            and prefix.find(_TABLE_MARK, _TABLE_START + 1) >= 0)


def _section_name_table(cubin) -> bytes:
    header = elf.read_header(cubin)
    return elf.section_name_table(cubin, header)


def _names(table: bytes) -> set[str]:
    names = set()
    pos = table.find(_KERNEL_SECTION)
    while pos >= 0:
        start = pos + len(_KERNEL_SECTION)
        end = table.find(b"\0", start)
        names.add(bytes(table[start:end if end >= 0 else len(table)]).decode("latin-1"))
        pos = table.find(_KERNEL_SECTION, start) if end >= 0 else -1
    return names
