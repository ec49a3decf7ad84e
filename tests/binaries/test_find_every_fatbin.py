"""Fatbins no CUDA section points at (the cuFFT 12.0 layout), LTO-IR, compressed entries and lying
headers, on synthetic fatbins inside gcc-built shared objects: fast, no CUDA toolkit needed."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doctor.binaries import read_cuda_archs, verdict_for
from doctor.binaries.fatbin import read_if_well_formed
from tests.binaries.synthetic import (
    FLAG_OPAQUE_IR,
    KIND_LTO,
    KIND_PTX,
    entry,
    fatbin,
    ptx_text,
    shared_object_with_blob,
)

MARLIN = "_ZN6marlin6MarlinILi128EEEvPK4int4"
OTHER = "_Z12plain_kernelPf"


def _two_fatbins() -> bytes:
    first = fatbin(entry(KIND_PTX, 120, ptx_text(120, [MARLIN, OTHER])),
                   entry(KIND_LTO, 120, b"\x5a" * 40, FLAG_OPAQUE_IR))
    second = fatbin(entry(KIND_LTO, 75, b"\x33" * 24, FLAG_OPAQUE_IR))
    return first + b"\0" * 24 + second  # padding between fatbins, as in cuFFT's .ldata


@pytest.mark.parametrize("section", [".rodata", ".ldata_like", ".data"])
def test_finds_fatbins_outside_cuda_sections(tmp_path: Path, section: str) -> None:
    library = shared_object_with_blob(tmp_path, _two_fatbins(), section)
    info = read_cuda_archs(library)
    assert info.error is None
    assert info.format == "elf"
    assert (info.sass, info.ptx, info.lto) == ([], ["compute_120"], ["lto_75", "lto_120"])
    assert info.fatbin_sections == {section: 2}
    assert info.unreferenced_fatbins == 2
    assert info.modules == 2 and info.lto_only_modules == 1
    assert info.entry_counts == {"compute_120": 1, "lto_75": 1, "lto_120": 1}


def test_lto_ir_is_not_runnable_code(tmp_path: Path) -> None:
    blob = fatbin(entry(KIND_LTO, 120, b"\x5a" * 40, FLAG_OPAQUE_IR))
    info = read_cuda_archs(shared_object_with_blob(tmp_path, blob))
    assert info.lto == ["lto_120"] and info.has_device_code
    verdict = verdict_for(info, (12, 0))
    assert verdict.verdict == "none"
    assert "only LTO-IR (lto_120)" in verdict.reason
    assert "not loadable code" in verdict.reason and "no native code" in verdict.reason
    assert verdict.modules_without_image == 0  # a link input is not a module that fails to load


def test_lto_next_to_runnable_code_is_explained(tmp_path: Path) -> None:
    info = read_cuda_archs(shared_object_with_blob(tmp_path, _two_fatbins()))
    verdict = verdict_for(info, (12, 0))
    assert verdict.verdict == "ptx-jit"
    assert "2 LTO-IR images (lto_75, lto_120, 1 fatbins hold nothing else)" in verdict.reason


@pytest.mark.parametrize("codec", [None, "lz4", "zstd"])
def test_kernel_families_read_through_compression(tmp_path: Path, codec: str | None) -> None:
    blob = fatbin(entry(KIND_PTX, 80, ptx_text(80, [MARLIN, OTHER]), codec=codec))
    info = read_cuda_archs(shared_object_with_blob(tmp_path, blob))
    assert info.ptx == ["compute_80"] and info.compressed == (codec is not None)
    assert info.codecs == ({codec: 1} if codec else {})
    assert info.unread_entries == 0
    assert info.families == {"marlin": {"kernels": 1, "kernel_archs": [[["compute_80"], None, 1]]}}
    (family,) = verdict_for(info, (12, 0)).families
    assert (family.family, family.verdict, family.jit) == ("marlin", "ptx-jit", 1)


def test_kernel_names_can_be_skipped(tmp_path: Path) -> None:
    blob = fatbin(entry(KIND_PTX, 80, ptx_text(80, [MARLIN]), codec="zstd"))
    info = read_cuda_archs(shared_object_with_blob(tmp_path, blob), kernel_names=False)
    assert info.ptx == ["compute_80"] and info.families == {}


def test_corrupt_compressed_payload_is_counted_unread(tmp_path: Path) -> None:
    good = entry(KIND_PTX, 90, ptx_text(90, [MARLIN]), codec="zstd")
    broken = good[:64] + b"\xff" * (len(good) - 64)
    info = read_cuda_archs(shared_object_with_blob(tmp_path, fatbin(broken)))
    assert info.error is None and info.ptx == ["compute_90"]
    assert info.unread_entries == 1 and info.families == {}


def test_lying_sizes_are_not_fatbins(tmp_path: Path) -> None:
    """A magic followed by sizes that do not add up is stray bytes: skipped, never an error or over-read."""
    real = fatbin(entry(KIND_PTX, 120, ptx_text(120, [OTHER])))
    past_end = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 1 << 40)
    short_entry = fatbin(entry(KIND_PTX, 100, b"x" * 64))[:40]
    lying_entry = bytearray(fatbin(entry(KIND_PTX, 100, b"y" * 64)))
    struct.pack_into("<Q", lying_entry, 16 + 8, 1 << 33)  # entry payload size far past the fatbin
    packed_too_big = bytearray(fatbin(entry(KIND_PTX, 100, ptx_text(100, [OTHER]), codec="lz4")))
    struct.pack_into("<I", packed_too_big, 16 + 16, 1 << 31)  # compressed size larger than the payload
    blob = past_end + b"\0" * 8 + short_entry + b"\0" * 8 + bytes(lying_entry) + bytes(packed_too_big) + real
    info = read_cuda_archs(shared_object_with_blob(tmp_path, blob))
    assert info.error is None
    assert info.ptx == ["compute_120"] and info.unreferenced_fatbins == 1


def test_magic_at_the_very_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tail.so"
    library = shared_object_with_blob(tmp_path, fatbin(entry(KIND_PTX, 120, ptx_text(120, [OTHER]))))
    path.write_bytes(library.read_bytes() + struct.pack("<IH", 0xBA55ED50, 1))
    info = read_cuda_archs(path)
    assert info.error is None and info.ptx == ["compute_120"]


@settings(max_examples=300, deadline=None)
@given(data=st.binary(min_size=0, max_size=512), offset=st.integers(0, 600))
def test_read_if_well_formed_never_raises(data: bytes, offset: int) -> None:
    blob = struct.pack("<IHH", 0xBA55ED50, 1, 16) + data
    entries = read_if_well_formed(blob, offset % (len(blob) + 1))
    assert entries is None or all(e.data_offset + e.stored_size <= len(blob) for e in entries)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=16))
def test_fuzzed_embedded_fatbins_never_raise(tmp_path: Path, edits: list[tuple[int, int]]) -> None:
    base = _fuzz_base(tmp_path)
    data = bytearray(base["data"])
    start, length = base["blob"]
    for position, value in edits:
        data[start + position % length] = value
    with tempfile.NamedTemporaryFile(suffix=".so") as handle:
        handle.write(data)
        handle.flush()
        info = read_cuda_archs(handle.name)
    assert info.error is None or ("\n" not in info.error and len(info.error) < 300)


_FUZZ: dict[str, object] = {}


def _fuzz_base(tmp_path: Path) -> dict:
    if not _FUZZ:
        blob = _two_fatbins() + fatbin(entry(KIND_PTX, 86, ptx_text(86, [MARLIN]), codec="lz4"),
                                       entry(KIND_PTX, 89, ptx_text(89, [MARLIN]), codec="zstd"))
        data = shared_object_with_blob(tmp_path, blob).read_bytes()
        _FUZZ.update(data=data, blob=(data.find(blob[:64]), len(blob)))
    return _FUZZ


def test_without_codec_packages_archs_still_come_from_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from doctor.binaries import payload
    from doctor.cli import main

    monkeypatch.setattr(payload, "_lz4", lambda: None)
    monkeypatch.setattr(payload, "_zstd", lambda: None)
    blob = fatbin(entry(KIND_PTX, 80, ptx_text(80, [MARLIN]), codec="lz4"),
                  entry(KIND_PTX, 90, ptx_text(90, [MARLIN]), codec="zstd"))
    library = shared_object_with_blob(tmp_path, blob)
    info = read_cuda_archs(library)
    assert info.ptx == ["compute_80", "compute_90"] and info.codecs == {"lz4": 1, "zstd": 1}
    assert info.unread_entries == 2 and info.families == {}
    assert main(["binaries", str(library)]) == 0
    assert "2 compressed images were not decoded (lz4 and zstandard not installed" in capsys.readouterr().out
