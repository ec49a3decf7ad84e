"""Standard streams as a command-line tool should treat them: a reader that goes away (`| head -1`) ends the
output quietly and the command still returns its own exit code, as git and ruff do; a stream that cannot
encode a character gets an escape instead of an error (PYTHONIOENCODING=ascii, a C locale)."""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from typing import Any, TextIO


class QuietPipe:
    """Wraps a text stream: after the first BrokenPipeError every write is dropped, and the descriptor is
    pointed at /dev/null so the interpreter's final flush cannot fail either."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._break()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._break()

    def _break(self) -> None:
        self.broken = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass  # not a real descriptor (a test's buffer): dropping the writes is enough

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


ESCAPE = "sm120doctor-escape"


def _escape(error: UnicodeError) -> tuple[str | bytes, int]:
    """Surrogate escapes (bytes of a file name or argument the locale could not decode) go out as the bytes
    they stand for, so a path prints as the user typed it; any other character the stream cannot encode (an
    arrow, a non-ASCII model name under a C locale) as a backslash escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    if all(0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return bytes(ord(c) - 0xDC00 for c in text), error.end
    return codecs.backslashreplace_errors(error)


def tolerant_streams() -> None:
    """Install QuietPipe on stdout and make both streams escape what their encoding cannot hold."""
    codecs.register_error(ESCAPE, _escape)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors=ESCAPE)
    if not isinstance(sys.stdout, QuietPipe):
        sys.stdout = QuietPipe(sys.stdout)  # type: ignore[assignment]
