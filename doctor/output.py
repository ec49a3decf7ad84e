"""Files in and out: JSON read with one clear error per failure; results written atomically, so a crash
never leaves half a report behind."""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from pathlib import Path
from typing import Any, BinaryIO

from doctor.errors import InputError

FIFO_READER_WAIT_S = 10.0  # a FIFO named as output may get its reader a moment after we start


def utf8_bytes(text: str) -> bytes:
    """Text as UTF-8 bytes, giving back the original bytes of what the interpreter could not decode: under a C
    locale without coercion, argv and file names arrive with surrogate escapes (`m\\udcc3\\udcb6del` for
    `mödel`), which strict UTF-8 refuses. Written back as their bytes, a path in a report or a launch script
    names the same file, and a fingerprint is the one a UTF-8 locale gives."""
    return text.encode("utf-8", "surrogateescape")


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` the way git and ruff do: through a symlink to its target (the link stays);
    into a FIFO or character device as a stream (never replacing it: `--output /dev/null` as root must
    not replace /dev/null); a regular file atomically (temp file, fsync, rename) keeping the mode of the
    file it replaces; a new file with the umask's mode. A directory, socket or block device is refused."""
    target = write_target(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        _write_stream(path, target, text)
    elif mode is not None and not stat.S_ISREG(mode):
        kind = next((name for test, name in FILE_KINDS if test(mode)), "not a file")
        raise InputError(f"cannot write {path}: it is {kind}")
    else:
        _replace_atomically(path, target, utf8_bytes(text), None if mode is None else stat.S_IMODE(mode))


def write_target(path: Path) -> Path:
    """Where a write to `path` lands: a symlink's final target, as git and ruff write through links, so the
    link itself stays a link (and `revert` restores through it)."""
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path, strict=False))
    except (OSError, RuntimeError, ValueError) as exc:
        raise InputError(f"cannot write {path}: cannot follow the symlink ({exc})") from exc


def _write_stream(path: Path, target: Path, text: str) -> None:
    deadline = time.monotonic() + FIFO_READER_WAIT_S
    while True:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                why = "no process reads the FIFO" if exc.errno == errno.ENXIO else exc.strerror or exc
                raise InputError(f"cannot write {path}: {why}") from exc
            time.sleep(0.05)
    os.set_blocking(fd, True)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(utf8_bytes(text))
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def temp_beside(target: Path, data: bytes, mode: int | None = None, suffix: str = ".tmp") -> str:
    """The one way a file is staged for an atomic replace: a new file in `target`'s directory holding `data`,
    fsynced, with `mode` (else the umask's default). Raises OSError; the caller replaces, verifies, or
    removes it."""
    import tempfile  # here, not at the top: its imports cost every cold start ~3 ms, and most runs write nothing

    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode if mode is not None else 0o666 & ~_umask())
            os.fsync(handle.fileno())
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _replace_atomically(path: Path, target: Path, data: bytes, mode: int | None) -> None:
    try:
        tmp = temp_beside(target, data, mode)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def refuse_overwrite(path: Path, text: str) -> None:
    """Refuse (InputError) when `path` holds other content than `text` (a hand-edited file) or is not a regular
    file; call for every file before writing any, so a refusal leaves all of them as they were."""
    if path.exists() and not path.is_file():
        raise InputError(f"{path} exists and is not a regular file; nothing was written")
    if differs(path, text):
        raise InputError(f"{path} exists with other content (hand-edited?); nothing was written: pass --force to "
                         f"back it up to {path.name}.bak and overwrite it")


def differs(path: Path, text: str) -> bool:
    """A regular file is at `path` with content other than `text`."""
    try:
        return path.is_file() and read_regular_bytes(path) != utf8_bytes(text)
    except OSError:
        return True


def back_up(path: Path) -> Path:
    """A copy of `path` beside it (`NAME.bak`, or `NAME.bak.N` when that exists), before it is overwritten."""
    import shutil

    backup = path.with_name(path.name + ".bak")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.bak.{n}")
        n += 1
    try:
        shutil.copy2(path, backup)
    except OSError as exc:
        raise InputError(f"cannot back up {path}: {exc.strerror or exc}") from exc
    return backup


LONG_LIST = 16  # items; longer lists of a document are written one compact item per line


def json_text(value: Any) -> str:
    """JSON indented by two spaces like json.dumps(indent=2), except that a list of more than LONG_LIST
    items has one compact item per line: the same document, readable, and written by the C encoder where
    it is large (the topology of a big machine has N*(N-1)/2 links)."""
    return _json_text(value, "")


def _json_text(value: Any, indent: str) -> str:
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = (f"{inner}{json.dumps(str(k))}: {_json_text(v, inner)}" for k, v in value.items())
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list | tuple) and value:
        render = json.dumps if len(value) > LONG_LIST else lambda item: _json_text(item, inner)
        return "[\n" + ",\n".join(inner + render(item) for item in value) + f"\n{indent}]"
    return json.dumps(value)


FILE_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
              (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def open_regular(path: Path | str) -> BinaryIO:
    """`path` opened for reading only if it is a regular file (through symlinks): a FIFO named config.json
    or model.safetensors would block a plain open() forever, a device would stream forever. Opened
    non-blocking and checked on the open descriptor, so a swap between check and open cannot slip
    through. Anything else raises OSError(EINVAL, "not a regular file (a FIFO)")."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in FILE_KINDS if test(mode)), "not a file")
        raise OSError(errno.EINVAL, f"not a regular file ({kind})", str(path))
    return os.fdopen(fd, "rb")


def read_regular_bytes(path: Path | str, max_bytes: int | None = None) -> bytes:
    """All bytes of a regular file (see open_regular); more than `max_bytes` raises OSError(EFBIG)."""
    with open_regular(path) as handle:
        if max_bytes is not None:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise OSError(errno.EFBIG, f"{size} bytes; at most {max_bytes} are read", str(path))
        return handle.read()


def read_json_file(path: Path, label: str, max_bytes: int | None = None) -> Any:
    """Parsed JSON of `path`; unreadable, oversized, non-UTF-8, non-regular or malformed files raise one
    InputError."""
    try:
        text = read_regular_bytes(path, max_bytes).decode("utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {label} {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{label} {path} is not UTF-8 text") from exc
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{label} {path} is not valid JSON: {exc}") from exc
