"""Read a log in bounded memory and linear time: blocks of whole lines, ANSI colours and NULs dropped, a pasted
issue's markdown read as its logs (doctor/diagnose/markdown.py), one RE2
scan per block for the lines any parser or signature cares about, only those decoded (invalid UTF-8 replaced)
and cut at MAX_LINE characters. A line longer than a block is read as pieces, never held whole."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from doctor.diagnose.markdown import normalise
from doctor.errors import InputError

BLOCK = 1 << 20  # bytes read at a time
MAX_CARRY = 4 << 20  # an unfinished line longer than this is scanned as it stands
MAX_LINE = 65536  # characters kept of a line (an engine's one-line argument dump runs to ~10k)
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]")
_CARET_ANSI = re.compile(rb"\^\[\[[0-9;]*m")  # a colour code pasted as text (`^[[1;36m(EngineCore_2 pid=304)^[[0;0m`)
_GZIP = b"\x1f\x8b"

OnLine = Callable[[int, str], None]  # (1-based line number, the line)


@dataclass
class ScanStats:
    bytes: int = 0
    lines: int = 0
    cut_lines: int = 0  # lines longer than MAX_LINE, kept in part
    last: tuple[int, str] | None = None  # the last non-blank line (a pasted message's own line, a traceback's end)


def open_log(stream: BinaryIO, name: str) -> BinaryIO:
    """The stream, gunzipped where it starts like gzip; refuse binary data with one line."""
    head = _peek(stream)
    if head.startswith(_GZIP):
        stream = gzip.GzipFile(fileobj=stream)  # type: ignore[assignment]
        try:
            head = _peek(stream)
        except (OSError, EOFError) as exc:
            raise InputError(f"{name}: not a readable gzip file ({exc})") from exc
    if _looks_binary(head):
        raise InputError(f"{name}: binary data, not a text log (give the engine's log, a traceback or "
                         "collect_env output)")
    return stream


def _peek(stream: BinaryIO) -> bytes:
    if hasattr(stream, "peek"):
        return stream.peek(4096)[:4096]
    raise InputError("cannot read the log stream")


def _looks_binary(head: bytes) -> bool:
    if not head:
        return False
    sample = head[:4096]
    controls = sum(1 for b in sample if b < 9 or 13 < b < 27 or 27 < b < 32)  # NUL included; ESC is colour
    invalid = sample.decode("utf-8", "replace").count("\ufffd")
    return controls > len(sample) // 20 or invalid > len(sample) // 10


def scan(stream: BinaryIO, trigger: Callable[[], Any], on_line: OnLine) -> ScanStats:
    """Call `on_line` for every line where `trigger()` (an RE2 pattern over bytes; it may change after a line)
    matches."""
    stats = ScanStats()
    carry = b""
    line_base = 0  # newlines before the data being scanned
    while True:
        block = stream.read(BLOCK)
        stats.bytes += len(block)
        if not block:
            if carry:
                _scan_block(carry, line_base, trigger, on_line, stats)
                line_base += 1
            break
        data = carry + block if carry else block
        cut = data.rfind(b"\n")
        if cut < 0:
            if len(data) > MAX_CARRY:  # one giant line: scan what is here, the line goes on
                _scan_block(data, line_base, trigger, on_line, stats)
                carry = b""
            else:
                carry = data
            continue
        line_base += _scan_block(data[: cut + 1], line_base, trigger, on_line, stats)
        carry = data[cut + 1:]
    stats.lines = line_base
    return stats


def _last_line(data: bytes, line_base: int, stats: ScanStats) -> None:
    end = len(data)
    while end and data[end - 1] in b" \t\r\n":
        end -= 1
    if end:
        start = data.rfind(b"\n", 0, end) + 1
        text = data[start: min(end, start + MAX_LINE)].decode("utf-8", "replace")
        stats.last = (line_base + data.count(b"\n", 0, start) + 1, text)


def _scan_block(data: bytes, line_base: int, trigger: Callable[[], Any], on_line: OnLine, stats: ScanStats) -> int:
    """Scan whole lines; returns how many newlines `data` holds (its line count)."""
    newlines = data.count(b"\n")
    if b"\x1b" in data:
        data = _ANSI.sub(b"", data)
    if b"^[[" in data:
        data = _CARET_ANSI.sub(b"", data)
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
    data = normalise(data)
    _last_line(data, line_base, stats)
    counted_to, line = 0, line_base
    pos = 0
    while True:
        match = trigger().search(data, pos)
        if match is None:
            return newlines
        start = data.rfind(b"\n", 0, match.start()) + 1
        end = data.find(b"\n", match.start())
        end = len(data) if end < 0 else end
        line += data.count(b"\n", counted_to, start)
        counted_to = start
        text = data[start: min(end, start + MAX_LINE * 4)].decode("utf-8", "replace")
        if len(text) > MAX_LINE or end - start > MAX_LINE * 4:
            stats.cut_lines += 1
            text = text[:MAX_LINE]
        on_line(line + 1, text.rstrip("\r"))
        pos = end + 1
