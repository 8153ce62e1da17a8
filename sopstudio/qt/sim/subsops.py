"""The SOP a GUI run uses, and which sub-SOP files went into it.

The editor holds one document at a time; a parent's run inlines its children from their
**saved** files (as `sopstudio simulate` does), because leaving a child asks to save it first
(qt/subflow_nav.py). So that the operator never wonders which version of a child ran, the
simulation dock and the batch dialog say which files were read (`children_text`).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from ...core.io import load_sop
from ...core.subflows import SubflowLoader, expand


def runnable(sop, path) -> tuple:
    """(`sop` with its sub-SOPs inlined from the files next to `path`, the child files read in
    order); raises core.subflows.SubflowError as `expand_file` does."""
    used: list[Path] = []

    def read(child: Path):
        if child not in used:
            used.append(child)
        return load_sop(child)
    return expand(sop, SubflowLoader(path, read)), used


def children_text(paths: list[Path], base) -> str:
    """"sub-SOPs as saved: verify.sop.json" (paths relative to the parent's folder); empty
    when the run used none."""
    if not paths:
        return ""
    folder = Path(base).resolve().parent if base is not None else None
    return "sub-SOPs as saved: " + ", ".join(_relative(p, folder) for p in paths)


def children_tooltip(paths: list[Path]) -> str:
    """One line per child file: its full path and when it was last saved."""
    return "\n".join(f"{p} (saved {_saved(p)})" for p in paths)


def _relative(path: Path, folder: Path | None) -> str:
    if folder is None:
        return str(path)
    try:
        return os.path.relpath(path, folder)
    except ValueError:  # another drive (Windows)
        return str(path)


def _saved(path: Path) -> str:
    try:
        stamp = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).astimezone()
        return stamp.strftime("%Y-%m-%d %H:%M:%S")
    except OSError:
        return "unknown"
