"""The native `*.sop.json` format (lossless) as an import/export format."""

from __future__ import annotations

from ..core.errors import LoadError
from ..core.io import dumps, loads
from ..core.model import SOP
from .base import FormatError, ImportResult


def import_json(text: str, source: str = "<paste>") -> ImportResult:
    try:
        return ImportResult(loads(text, source), [], "json")
    except LoadError as error:
        raise FormatError(str(error)) from None


def export_json(sop: SOP) -> str:
    return dumps(sop)
