"""Fatbins built byte by byte, as nvcc lays them out (see doctor/binaries/fatbin.py), for fast tests that
need no CUDA toolkit: PTX images (plain, LZ4, zstd), LTO-IR images, and a gcc-built shared object that
carries such a fatbin as plain data, the way cuFFT does."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF, KIND_LTO = 1, 2, 8
FLAG_BASE = 0x11  # 64-bit, Linux host
FLAG_LZ4, FLAG_ZSTD, FLAG_OPAQUE_IR = 0x2000, 0x8000, 0x10000
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")


def ptx_text(arch: int, kernels: list[str]) -> bytes:
    body = "".join(f".visible .entry {name}(\n    .param .u64 p0\n)\n{{\n    ret;\n}}\n" for name in kernels)
    return f".version 9.0\n.target sm_{arch}\n.address_size 64\n\n{body}".encode()


def entry(kind: int, arch: int, payload: bytes, flags: int = 0, codec: str | None = None) -> bytes:
    """One entry: header (64 bytes) + payload padded to 8, compressed with `codec` if given."""
    raw_size = len(payload)
    stored, packed = payload, 0
    if codec == "lz4":
        import lz4.block

        stored = lz4.block.compress(payload, store_size=False)
        flags |= FLAG_LZ4
    elif codec == "zstd":
        import zstandard

        stored = zstandard.ZstdCompressor().compress(payload)
        flags |= FLAG_ZSTD
    if codec:
        packed = len(stored)
    padded = stored + b"\0" * (-len(stored) % 8)
    header = _ENTRY.pack(kind, 0x101, 64, len(padded), packed, 64, 0, 9, arch, 0, 0, FLAG_BASE | flags, 0,
                         raw_size if codec else 0)
    return header + padded


def fatbin(*entries: bytes) -> bytes:
    payload = b"".join(entries)
    return struct.pack("<IHHQ", MAGIC, 1, 16, len(payload)) + payload


def shared_object_with_blob(tmp_path: Path, blob: bytes, section: str = ".rodata", name: str = "libblob.so") -> Path:
    """A gcc-built .so holding `blob` in `section` (8-byte aligned), with no CUDA sections at all."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not found: cannot build the test shared object")
    data = tmp_path / f"{name}.bin"
    data.write_bytes(blob)
    source = tmp_path / f"{name}.c"
    source.write_text(
        f'__asm__(".section {section},\\"a\\"\\n.balign 8\\n.globl blob_start\\nblob_start:\\n'
        f'.incbin \\"{data}\\"\\n.previous\\n");\n'
        "int answer(void) { return 42; }\n")
    target = tmp_path / name
    subprocess.run([gcc, "-shared", "-fPIC", "-o", str(target), str(source)], check=True, timeout=120,
                   capture_output=True)
    return target
