"""Atomic file writes shared by saving documents and writing exports.

A crash or an error mid-write leaves the old file intact and no temporary file behind. The new
file gets the mode a plain `open(path, 'w')` would give (the umask's mode for a new file, the old
mode when overwriting), and a symlink is written through: its target is replaced, the link stays.
Errors are plain `OSError`s; callers word them for their users.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    path = _resolve_link(Path(path))
    raw = data.encode("utf-8") if isinstance(data, str) else data
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
