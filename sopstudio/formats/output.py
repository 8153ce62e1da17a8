"""Writing an export or import result atomically: a failed run leaves no output file behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .base import FormatError


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                   dir=path.parent if str(path.parent) else ".")
    except OSError as error:
        raise FormatError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        os.replace(tmp, path)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise FormatError(f"{path}: cannot write ({error.strerror or error})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
