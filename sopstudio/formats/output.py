"""Writing an export or import result atomically: a failed run leaves no output file behind.

The temporary file gets the mode a plain `open(path, 'w')` would give: the umask's mode for a
new file, the old mode when overwriting. A symlink is written through (its target is replaced,
the link stays a link).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .base import FormatError


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    if not str(path).strip():
        raise FormatError("no output path (give a file name with -o, or '-' for standard output)")
    path = _resolve_link(Path(path))
    raw = data.encode("utf-8") if isinstance(data, str) else data
    mode = _target_mode(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                   dir=path.parent if str(path.parent) else ".")
    except OSError as error:
        raise FormatError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            os.chmod(tmp, mode)  # mkstemp always creates 0600
        os.replace(tmp, path)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise FormatError(f"{path}: cannot write ({error.strerror or error})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _resolve_link(path: Path) -> Path:
    """The file a (chain of) symlink(s) points to, even if that file does not exist yet."""
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path))
    except OSError as error:
        raise FormatError(f"{path}: cannot follow the link ({error.strerror or error})") from None


def _target_mode(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise FormatError(f"{path}: cannot write ({error.strerror or error})") from None
    umask = os.umask(0)  # reading the umask means setting it; restore at once
    os.umask(umask)
    return 0o666 & ~umask
