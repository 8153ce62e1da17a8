"""Writing an export or import result atomically: a failed run leaves no output file behind.

The mechanism (modes kept, symlinks written through, devices/FIFOs/`-` streamed to, never
replaced) is `sopstudio.core.atomic`; this wrapper
refuses an empty path and words write errors as one `FormatError` line.
"""

from __future__ import annotations

import os

from ..core import atomic
from .base import FormatError


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    if not str(path).strip():
        raise FormatError("no output path (give a file name with -o, or '-' for standard output)")
    try:
        atomic.write_atomic(path, data)
    except OSError as error:
        raise FormatError(f"{path}: cannot write ({error.strerror or error})") from None
