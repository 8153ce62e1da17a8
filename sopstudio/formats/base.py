"""Shared pieces of every importer and exporter: the error type, the import result, name helpers.

Importers turn foreign text into an `SOP` plus a list of notes for the author to confirm (derived
variable and tool names, lines kept as notes); exporters turn an `SOP` into text or bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.errors import SopStudioError
from ..core.model import SOP


class FormatError(SopStudioError):
    """Input of a format could not be read, or an SOP could not be written in a format."""

    def __init__(self, message: str, line: int | None = None, source: str | None = None):
        self.line = line
        self.source = source
        where = f"line {line}: " if line is not None else ""
        prefix = f"{source}: " if source else ""
        super().__init__(f"{prefix}{where}{message}")


@dataclass
class ImportResult:
    """An imported SOP and what the author should confirm about it."""

    sop: SOP
    notes: list[str] = field(default_factory=list)
    format: str = ""


_NON_WORD = re.compile(r"[^0-9a-zA-Z]+")


def snake(text: str, fallback: str = "item") -> str:
    """`Check Listing ID status` -> `check_listing_id_status` (a valid name in our expressions)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text.strip())
    name = _NON_WORD.sub("_", words).strip("_").lower()
    if not name:
        return fallback
    return name if name[0].isalpha() or name[0] == "_" else f"{fallback}_{name}"


def outcome_name(title: str, fallback: str = "done") -> str:
    """The outcome of an end step named after its title, the same way in every importer:
    `Transfer to human agent` -> `transfer_to_human_agent` (every word kept, at most 48
    characters)."""
    return snake(title, fallback)[:48].strip("_") or fallback


def unique(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... whichever is not yet in `taken` (which is updated)."""
    candidate, count = name, 1
    while candidate in taken:
        count += 1
        candidate = f"{name}_{count}"
    taken.add(candidate)
    return candidate


def quote(value: object) -> str:
    """A literal in our expression language (strings in single quotes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if "'" in text and '"' not in text:
        return f'"{text}"'
    return "'" + text.replace("'", "") + "'"  # both quote kinds: drop one rather than escape
