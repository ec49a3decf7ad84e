"""Read members of a wheel on PyPI with HTTP range requests, without downloading the wheel: the zip's central
directory from its end records, then one member's compressed bytes (all of them, or the first `limit`)."""

from __future__ import annotations

import struct
import urllib.request
import zlib


def get(url: str, start: int | None = None, end: int | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    if start is not None:
        request.add_header("Range", f"bytes={start}-{end}")
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def central_directory(url: str, size: int) -> dict[str, tuple[int, int, int]]:
    """name -> (local header offset, compressed size, method), from the zip's end records."""
    tail = get(url, max(0, size - 65536), size - 1)
    eocd = tail.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack("<II", tail[eocd + 12:eocd + 20])
    if cd_offset == 0xFFFFFFFF:  # zip64
        locator = tail.rfind(b"PK\x06\x06")
        cd_size, cd_offset = struct.unpack("<QQ", tail[locator + 40:locator + 56])
    directory = get(url, cd_offset, cd_offset + cd_size - 1)
    entries: dict[str, tuple[int, int, int]] = {}
    pos = 0
    while directory[pos:pos + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", directory[pos + 10:pos + 12])
        csize, = struct.unpack("<I", directory[pos + 20:pos + 24])
        name_len, extra_len, comment_len = struct.unpack("<HHH", directory[pos + 28:pos + 34])
        offset, = struct.unpack("<I", directory[pos + 42:pos + 46])
        name = directory[pos + 46:pos + 46 + name_len].decode("utf-8")
        entries[name] = (offset, csize, method)
        pos += 46 + name_len + extra_len + comment_len
    return entries


def read_member(url: str, entry: tuple[int, int, int], limit: int | None = None) -> bytes:
    """The member's bytes (inflated), or those of its first `limit` compressed bytes."""
    offset, csize, method = entry
    header = get(url, offset, offset + 29)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    start = offset + 30 + name_len + extra_len
    raw = get(url, start, start + min(csize, limit or csize) - 1)
    return zlib.decompressobj(-15).decompress(raw) if method == 8 else raw
