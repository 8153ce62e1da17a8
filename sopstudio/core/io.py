"""Load and save `*.sop.json`: parse -> migrate -> validate, and stable, diff-friendly output."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .atomic import write_atomic
from .errors import LoadError
from .inputs import loads_json, read_text, reason
from .model import FORMAT_NAME, FORMAT_VERSION, SOP, SOPFile

# version -> function turning a document of that version into the next one.
MIGRATIONS: dict[int, Any] = {}


def _where(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        parts.append(f"[{item}]" if isinstance(item, int) else ("." if parts else "") + str(item))
    return "".join(parts) or "(document)"


def _describe(error: ValidationError, data: Any) -> str:
    first = error.errors()[0]
    loc = first["loc"]
    text = _where(loc)
    ident = _id_at(data, loc)
    if ident:
        text += f" (id '{ident}')"
    return f"{text}: {first['msg']}"


def _id_at(data: Any, loc: tuple[Any, ...]) -> str | None:
    """The `id`/`name` of the innermost list item on the error path, to name it for the user."""
    found, node = None, data
    for item in loc:
        try:
            node = node[item]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(item, int) and isinstance(node, dict):
            found = node.get("id") or node.get("name") or found
    return found


def migrate(data: dict[str, Any], source: str = "<memory>") -> dict[str, Any]:
    if not isinstance(data, dict):
        raise LoadError(f"{source}: expected a JSON object at the top level")
    fmt = data.get("format")
    if fmt != FORMAT_NAME:
        raise LoadError(f"{source}: format: unknown format {fmt!r} (expected {FORMAT_NAME!r})")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LoadError(f"{source}: version: expected a positive integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise LoadError(f"{source}: version: file is version {version}, newer than this "
                        f"SOP Studio reads ({FORMAT_VERSION}); please upgrade")
    while version < FORMAT_VERSION:
        data = MIGRATIONS[version](data)
        version = data["version"]
    return data


def check_references(sop: SOP, source: str = "<memory>") -> None:
    """Raise LoadError on duplicate ids or edges that name a missing node."""
    for kind, ids in (("nodes", [n.id for n in sop.nodes]), ("edges", [e.id for e in sop.edges]),
                      ("tools", [t.name for t in sop.tools]),
                      ("variables", [v.name for v in sop.variables])):
        dupes = [i for i, c in Counter(ids).items() if c > 1]
        if dupes:
            raise LoadError(f"{source}: sop.{kind}: duplicate id '{dupes[0]}'")
    node_ids = {n.id for n in sop.nodes}
    for index, edge in enumerate(sop.edges):
        for end in ("source", "target"):
            if getattr(edge, end) not in node_ids:
                raise LoadError(f"{source}: sop.edges[{index}].{end} (id '{edge.id}'): "
                                f"no node with id '{getattr(edge, end)}'")


def parse_document(data: Any, source: str = "<memory>", strict: bool = True) -> SOP:
    data = migrate(data, source)
    try:
        sop = SOPFile.model_validate(data).sop
    except ValidationError as error:
        raise LoadError(f"{source}: {_describe(error, data)}") from None
    if strict:
        check_references(sop, source)
    return sop


def loads(text: str, source: str = "<memory>", strict: bool = True) -> SOP:
    try:
        data = loads_json(text, source)
    except json.JSONDecodeError as error:
        raise LoadError(f"{source}: line {error.lineno} column {error.colno}: "
                        f"not valid JSON ({error.msg})") from None
    return parse_document(data, source, strict)


def read_error_reason(error: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, in words a user knows (see `inputs.reason`)."""
    return reason(error)


def load_sop(path: str | os.PathLike[str], strict: bool = True) -> SOP:
    """Read (bounded, see core/inputs.py) and load a .sop.json; `LoadError` on any problem
    (`InputError`, exit code 2, when the file cannot be read within the limits)."""
    text = read_text(path, str(Path(path)))
    return loads(text, str(Path(path)), strict)


def to_data(sop: SOP) -> dict[str, Any]:
    """The document as plain JSON data; defaults are left out so files stay small and stable."""
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION,
            "sop": sop.model_dump(mode="json", exclude_defaults=True)}


# A pair of numbers (a node position) printed on one line. JSON strings never hold a raw newline,
# so this pattern can only match real arrays in the indented output.
_NUMBER_PAIR = re.compile(r"\[\n\s*(-?[0-9.eE+-]+),\n\s*(-?[0-9.eE+-]+)\n\s*\]")


def dumps(sop: SOP) -> str:
    text = json.dumps(to_data(sop), indent=2, ensure_ascii=False)
    return _NUMBER_PAIR.sub(r"[\1, \2]", text) + "\n"


def canonical_json(sop: SOP) -> str:
    """Compact, key-sorted JSON: the basis of content hashes in the store."""
    return json.dumps(to_data(sop), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def save_sop(sop: SOP, path: str | os.PathLike[str]) -> None:
    """Write atomically: a crash mid-save leaves the old file intact."""
    write_atomic(path, dumps(sop))
