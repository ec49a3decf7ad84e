"""Bad input gives a one-line error per file, never an exception; the scan goes on past it."""

from __future__ import annotations

import os
import struct
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doctor.binaries import read_cuda_archs, scan_environment
from doctor.binaries.elf import read_header, sections
from doctor.binaries.fatbin import FATBIN_MAGIC_BYTES


def _fatbin_section(data: bytes) -> tuple[int, int]:
    sec = next(s for s in sections(data, read_header(data)) if s.name == ".nv_fatbin")
    return sec.offset, sec.size


def _one_line(error: str | None) -> bool:
    return error is not None and "\n" not in error and 0 < len(error) < 300


@pytest.fixture(scope="module")
def good(built: dict[str, Path]) -> bytes:
    return built["sm120_ptx"].read_bytes()


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_truncated_before_section_headers(good: bytes, tmp_path: Path) -> None:
    info = read_cuda_archs(_write(tmp_path, "cut.so", good[: len(good) // 2]))
    assert _one_line(info.error) and "truncated" in info.error
    assert info.sass == [] and info.ptx == []


def test_truncated_elf_header(good: bytes, tmp_path: Path) -> None:
    info = read_cuda_archs(_write(tmp_path, "head.so", good[:40]))
    assert _one_line(info.error) and "truncated ELF header" in info.error


def test_not_elf(tmp_path: Path) -> None:
    info = read_cuda_archs(_write(tmp_path, "text.so", b"/* GNU ld script */\nGROUP ( libc.so.6 )\n"))
    assert _one_line(info.error) and "not an ELF file" in info.error


def test_empty_and_missing_files(tmp_path: Path) -> None:
    assert read_cuda_archs(_write(tmp_path, "empty.so", b"")).error == "empty file"
    missing = read_cuda_archs(tmp_path / "nope.so")
    assert _one_line(missing.error) and missing.error.startswith("cannot read")
    assert _one_line(read_cuda_archs(tmp_path).error)  # a directory


def test_random_bytes(tmp_path: Path) -> None:
    info = read_cuda_archs(_write(tmp_path, "noise.so", os.urandom(4096)))
    assert _one_line(info.error)


def test_fatbin_with_bad_sizes(good: bytes, tmp_path: Path) -> None:
    offset, _ = _fatbin_section(good)
    data = bytearray(good)
    struct.pack_into("<Q", data, offset + 8, 1 << 40)  # first fatbin claims a terabyte
    info = read_cuda_archs(_write(tmp_path, "huge.so", bytes(data)))
    assert _one_line(info.error) and "runs past its section" in info.error


def test_bad_entry_header_keeps_what_was_read(good: bytes, tmp_path: Path) -> None:
    offset, size = _fatbin_section(good)
    starts = [i for i in range(offset, offset + size) if good.startswith(FATBIN_MAGIC_BYTES, i)]
    assert len(starts) == 2
    data = bytearray(good)
    struct.pack_into("<I", data, starts[1] + 16 + 4, 7)  # second fatbin: entry header size 7
    info = read_cuda_archs(_write(tmp_path, "entry.so", bytes(data)))
    assert _one_line(info.error) and "entry header size" in info.error
    assert info.sass == ["sm_120"]  # from the first fatbin, still reported ...
    assert (info.modules, info.kernel_free_modules) == (0, 1)  # ... the kernel-free one nvcc links in


def test_scan_lists_each_bad_file_and_continues(good: bytes, tmp_path: Path) -> None:
    _write(tmp_path, "a_cut.so", good[: len(good) // 3])
    _write(tmp_path, "b_text.so", b"not a library\n")
    _write(tmp_path, "c_noise.so", os.urandom(2048))
    _write(tmp_path, "d_good.so", good)
    _write(tmp_path, "e_empty.so.1", b"")
    _write(tmp_path, "notes.txt", b"ignored: not a binary name")
    report = scan_environment([tmp_path], None, (12, 0))
    by_name = {Path(f.path).name: f for f in report.files}
    assert sorted(by_name) == ["a_cut.so", "b_text.so", "c_noise.so", "d_good.so", "e_empty.so.1"]
    assert by_name["d_good.so"].verdict.verdict == "native"
    for name in ("a_cut.so", "b_text.so", "c_noise.so", "e_empty.so.1"):
        assert _one_line(by_name[name].info.error), name
        assert by_name[name].verdict.verdict == "none"
    assert len(report.failures) == 4


_REGIONS = st.sampled_from(["elf_header", "section_table", "fatbin", "wrappers", "anywhere"])


def _region(data: bytes, region: str) -> tuple[int, int]:
    header = read_header(data)
    if region == "elf_header":
        return 0, 64
    if region == "section_table":
        return header.shoff, header.shnum * header.shentsize
    names = {"fatbin": ".nv_fatbin", "wrappers": ".nvFatBinSegment"}
    if region in names:
        sec = next(s for s in sections(data, header) if s.name == names[region])
        return sec.offset, sec.size
    return 0, len(data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(region=_REGIONS, edits=st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 255)),
                                      min_size=1, max_size=12),
       cut=st.one_of(st.none(), st.integers(0, 1 << 30)))
def test_fuzzed_elf_never_raises(good: bytes, region: str, edits: list[tuple[int, int]],
                                 cut: int | None) -> None:
    start, length = _region(good, region)
    data = bytearray(good)
    for position, value in edits:
        data[start + position % max(length, 1)] = value
    if cut is not None:
        data = data[: cut % len(data)]
    with tempfile.NamedTemporaryFile(suffix=".so") as handle:
        handle.write(data)
        handle.flush()
        info = read_cuda_archs(handle.name)
    assert info.error is None or _one_line(info.error)
    assert isinstance(info.sass, list) and isinstance(info.ptx, list)


@settings(max_examples=200, deadline=None)
@given(payload=st.binary(min_size=0, max_size=2048))
def test_fuzzed_fatbin_file_never_raises(payload: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".fatbin") as handle:
        handle.write(FATBIN_MAGIC_BYTES + payload)
        handle.flush()
        info = read_cuda_archs(handle.name)
    assert info.error is None or _one_line(info.error)
