"""Adapter over `sopstudio.core.expr`: syntax checks and read names for translated conditions.

Importers only need to know whether a translated condition parses and which names it reads (to
declare variables). Nothing here evaluates anything.
"""

from __future__ import annotations

from ..core import expr as _core


def syntax_error(text: str) -> str | None:
    """A plain message when `text` is not a valid condition, else None."""
    if _core.is_else(text):
        return None
    try:
        _core.parse(text)
    except _core.ExprError as error:
        return str(error)
    return None


def names_read(text: str | None) -> list[str]:
    """Root variable names a condition reads (sorted); [] for `else` or text that does not parse."""
    if not text or _core.is_else(text):
        return []
    try:
        return sorted({name.split(".")[0] for name in _core.names_read(text)})
    except _core.ExprError:
        return []
