"""Safe file writes shared by saving documents and writing exports.

A regular file (new or existing, or the regular file a symlink points to) is replaced
atomically: a crash or an error mid-write leaves the old file intact and no temporary file
behind. The new file gets the mode a plain `open(path, 'w')` would give (the umask's mode for a
new file, the old mode when overwriting), and a symlink is written through: its target is
replaced, the link stays.

Anything else is never replaced: a device (`/dev/null`), a FIFO, a socket or a terminal, and the
stream aliases `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` are opened and written to directly
(replacing `/dev/null` by a regular file, as root, would break the machine; `/dev/stdout` into a
pipe has no file to rename over). `-` writes to standard output.
Errors are plain `OSError`s; callers word them for their users.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

STDOUT = "-"
# Paths that name a stream of this process rather than a file, even when they resolve to one.
_STREAM_PREFIXES = ("/dev/", "/proc/")


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if str(path) == STDOUT:
        _write_stdout(raw)
    elif is_stream(path):
        _write_stream(Path(path), raw)
    else:
        _replace(_resolve_link(Path(path)), raw)


def is_stream(path: str | os.PathLike[str]) -> bool:
    """True for targets that are written to, never replaced: `-`, an existing non-regular
    file (device, FIFO, socket), or a path under /dev or /proc (stream aliases)."""
    if str(path) == STDOUT:
        return True
    try:
        mode = os.stat(path).st_mode  # follows links: what a write would reach
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(mode):
        return not stat.S_ISDIR(mode)  # a directory stays an error of the replace below
    absolute = os.path.abspath(path)
    return absolute.startswith(_STREAM_PREFIXES) or \
        os.path.realpath(path).startswith(_STREAM_PREFIXES)


def _write_stdout(raw: bytes) -> None:
    sys.stdout.flush()  # keep the order of anything printed before
    out = getattr(sys.stdout, "buffer", None)
    if out is None:  # a text-only stream (tests capture stdout as text)
        sys.stdout.write(raw.decode("utf-8", errors="replace"))
        sys.stdout.flush()
        return
    out.write(raw)
    out.flush()


def _write_stream(path: Path, raw: bytes) -> None:
    # No O_TRUNC/O_CREAT tricks: a device or FIFO is opened for writing as it is.
    with open(path, "wb", buffering=0) as handle:
        view = memoryview(raw)
        while view:
            written = handle.write(view)
            view = view[written:]


def _replace(path: Path, raw: bytes) -> None:
    mode = _target_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                               dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)  # mkstemp always creates 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _resolve_link(path: Path) -> Path:
    """The file a (chain of) symlink(s) points to, even if that file does not exist yet."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _target_mode(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        pass
    umask = os.umask(0)  # reading the umask means setting it; restore at once
    os.umask(umask)
    return 0o666 & ~umask
