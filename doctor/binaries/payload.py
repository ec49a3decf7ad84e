"""The bytes of one fatbin entry, decompressed where the codec is known and its library is installed.

nvcc stores an entry plain, as an LZ4 block (flag 0x2000, CUDA 12 default) or as a zstd frame (flag
0x8000, CUDA 13 default for PTX and `--compress-mode=size`). Decoding uses the codecs' own Python
bindings, `lz4` and `zstandard` (the `binaries` extra); without them the entry's arch and kind still
come from its header, only the kernel names inside stay unread. LTO-IR payloads (flag 0x10000) are
stored in a form neither codec reads, so they are never decoded.
"""

from __future__ import annotations

from functools import lru_cache

from doctor.binaries.fatbin import Entry

# A lying "uncompressed size" must not make us allocate gigabytes: no real cubin comes near this.
MAX_DECODED = 1 << 30
_CHUNK = 1 << 16


class PayloadError(ValueError):
    """The payload cannot be decoded; the message is one line."""


@lru_cache(maxsize=1)
def _lz4():
    try:
        import lz4.block
    except ImportError:
        return None
    return lz4.block


@lru_cache(maxsize=1)
def _zstd():
    try:
        import zstandard
    except ImportError:
        return None
    return zstandard.ZstdDecompressor()


def can_decode(entry: Entry) -> bool:
    if entry.opaque:
        return False
    if entry.codec is None:
        return True
    return (_lz4() if entry.codec == "lz4" else _zstd()) is not None


def missing_codecs() -> list[str]:
    """Python packages that would let more compressed entries be read."""
    return [name for name, module in (("lz4", _lz4()), ("zstandard", _zstd())) if module is None]


def decode(buf, entry: Entry) -> bytes:
    """The whole payload (a copy: it may outlive a mapped `buf`). Raises PayloadError when it cannot be
    decoded (see can_decode)."""
    if not can_decode(entry):
        raise PayloadError(f"cannot decode the {entry.codec or 'opaque'} entry at {entry.offset:#x}")
    if entry.codec is None:
        return bytes(buf[entry.data_offset:entry.data_offset + entry.stored_size])
    if not 0 < entry.size <= MAX_DECODED:
        raise PayloadError(f"implausible uncompressed size {entry.size} in the entry at {entry.offset:#x}")
    stored = memoryview(buf)[entry.data_offset:entry.data_offset + entry.stored_size]
    try:
        if entry.codec == "lz4":
            return _lz4().decompress(stored, uncompressed_size=entry.size)
        return _zstd().decompress(stored, max_output_size=entry.size)
    except Exception as exc:  # each codec raises its own error types; any of them means "corrupt"
        raise PayloadError(f"corrupt {entry.codec} entry at {entry.offset:#x}: {exc}") from None
    finally:
        stored.release()


def decode_prefix(buf, entry: Entry, done) -> bytes:
    """Decode only as much as `done(prefix)` needs: zstd streams allow it, saving most of the work when
    the wanted bytes sit at the start (a cubin's section name table does). LZ4 blocks (and plain
    payloads) are decoded whole; the LZ4 binding has no partial decoding."""
    if entry.codec != "zstd" or not can_decode(entry):
        return decode(buf, entry)
    stored = memoryview(buf)[entry.data_offset:entry.data_offset + entry.stored_size]
    out = bytearray()
    try:
        with _zstd().stream_reader(stored, read_size=_CHUNK) as reader:
            while len(out) < min(entry.size, MAX_DECODED):
                chunk = reader.read(min(len(out) or _CHUNK, MAX_DECODED - len(out)))
                if not chunk:
                    break
                out += chunk
                if done(out):
                    break
    except Exception as exc:
        raise PayloadError(f"corrupt zstd entry at {entry.offset:#x}: {exc}") from None
    finally:
        stored.release()
    return bytes(out)
