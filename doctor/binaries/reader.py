"""read_cuda_archs: the SASS, PTX and LTO-IR targets compiled into one file, and its kernel families.

Handles ELF shared objects and object files with fatbins anywhere in them (see locate.py), standalone
cubins (ELF with e_machine EM_CUDA, as flashinfer-cubin ships them) and raw fatbin files. Nothing is
ever loaded or executed.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct

from doctor.binaries import elf, fatbin
from doctor.binaries.archs import PTX, SASS, Arch
from doctor.binaries.collect import collect, collect_cubin
from doctor.binaries.info import BinaryInfo
from doctor.binaries.locate import OUTSIDE_SECTIONS as OUTSIDE
from doctor.binaries.locate import FatbinSite, locate_fatbins

COMPAT_SECTION = ".nv.compat"
# Read outright below this size (cheaper than mapping, measured); above it, mmap touches only the
# header pages of large libraries (libtorch_cuda.so: 1 GB, a few MB touched).
SMALL_FILE = 256 * 1024
_COMPAT_ISA_CLASS = 0x09  # .nv.compat attribute: 1 = arch-specific (`a`) cubin


def read_cuda_archs(path: str | os.PathLike, kernel_names: bool = True) -> BinaryInfo:
    """List the SASS, PTX and LTO-IR archs compiled into `path`. Never raises; problems go to `.error`.
    `kernel_names`: also read kernel names for per-family verdicts (decodes compressed cubins' name
    tables, so it costs more than the arch list alone). Only regular files are opened."""
    info = BinaryInfo(path=str(path))
    try:
        kind = _not_regular(path)
        if kind:
            info.error = f"not a regular file ({kind}): not opened"
            return info
        with open(path, "rb") as handle:
            info.size = os.fstat(handle.fileno()).st_size
            if info.size == 0:
                info.error = "empty file"
                return info
            if info.size <= SMALL_FILE:
                _read_into(info, handle.read(), kernel_names)
            else:
                with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
                    _read_into(info, buf, kernel_names)
    except (elf.ElfError, fatbin.FatbinError) as exc:
        info.error = str(exc)
    except OSError as exc:
        info.error = f"cannot read: {exc.strerror or exc}"
    except (struct.error, ValueError, IndexError) as exc:
        info.error = f"malformed: {type(exc).__name__}: {exc}"
    return info


def _not_regular(path: str | os.PathLike) -> str | None:
    """What `path` is when it is not a regular file (a FIFO would block open() forever)."""
    mode = os.stat(path).st_mode
    return None if stat.S_ISREG(mode) else special_kind(mode)


def special_kind(mode: int) -> str:
    """Name the kind of a file that is not a regular file, from its st_mode."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def _read_into(info: BinaryInfo, buf, kernel_names: bool) -> None:
    if buf[:4] == fatbin.FATBIN_MAGIC_BYTES:
        info.format = "fatbin"
        sites = [FatbinSite(offset, len(buf), OUTSIDE) for offset in fatbin.find_fatbins(buf, 0, len(buf))]
        collect(info, sites, buf, kernel_names)
        return
    header = elf.read_header(buf)
    if header.machine == elf.EM_CUDA:
        info.format = "cubin"
        collect_cubin(info, _standalone_cubin_arch(buf, header), buf, kernel_names)
        return
    sites, cuda_sections = locate_fatbins(buf, header)
    info.format = "elf" if cuda_sections or sites else "elf-no-cuda"
    linked = [s for s in sites if not s.relocatable]
    relocatable = [s for s in sites if s.relocatable]
    if sites:
        collect(info, linked or relocatable, buf, kernel_names)
    if linked and relocatable:
        info.rdc_ptx = _relocatable_ptx(buf, relocatable)


def _relocatable_ptx(buf, sites: list[FatbinSite]) -> list[str]:
    """PTX kept in `__nv_relfatbin` next to a device-linked image. cuobjdump does not list it and the
    runtime loads the linked image, so it is reported apart and not counted as JIT-able."""
    scratch = BinaryInfo(path="")
    collect(scratch, sites, buf, with_names=False)
    return scratch.ptx


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
