"""Scenarios from a SOP-Bench style CSV test set: one scenario per row.

The column mapping (JSON) says what each column is:
``{"inputs": ["col", ...], "tool_outputs": {"col": "tool.output"}, "expected": {"col": "variable" |
"outcome" | "end_node"}, "id": "col"}``. Inputs are user values (the column name is the variable
unless written ``"col": "variable"`` in a dict form), tool outputs fill each tool's single response,
and expected columns become the scenario's expected outcome / end node / final values. The
expected path and tool trace come from the reference walk over the row's values.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ..core.inputs import InputError, loads_json, read_text
from .compiled import CompiledSop, EngineError
from .scenarios import Scenario
from .walk import expected_run

TRUE, FALSE = {"true", "yes", "1", "y", "t"}, {"false", "no", "0", "n", "f"}


def convert(text: str, decl) -> object:
    """A CSV cell typed by the declaration of the value it fills (inferred when undeclared)."""
    raw = text.strip()
    if decl is None:
        return _infer(raw, text)
    kind = getattr(decl, "type", "string")
    try:
        if kind == "integer":
            return int(raw)
        if kind == "number":
            return float(raw)
    except ValueError:
        raise EngineError(f"CSV value {text!r} is not a {kind}") from None
    if kind == "boolean":
        if raw.lower() in TRUE | FALSE:
            return raw.lower() in TRUE
        raise EngineError(f"CSV value {text!r} is not a boolean")
    if kind in ("list", "object"):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            raise EngineError(f"CSV value {text!r} is not JSON") from None
    return text


def _infer(raw: str, text: str) -> object:
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    return text


def load_mapping(path: str | Path) -> dict:
    try:  # bounded like every input (core/inputs.py)
        data = loads_json(read_text(path), str(path))
    except (InputError, json.JSONDecodeError) as error:
        raise EngineError(f"{path}: cannot read the column mapping ({error})") from None
    if not isinstance(data, dict):
        raise EngineError(f"{path}: the column mapping must be a JSON object")
    return data


def scenarios_from_csv(cs: CompiledSop, csv_text: str, mapping: dict) -> list[Scenario]:
    inputs = mapping.get("inputs") or []
    inputs = inputs if isinstance(inputs, dict) else {c: c for c in inputs}
    outputs = mapping.get("tool_outputs") or {}
    expected_cols = mapping.get("expected") or {}
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    wanted = set(inputs) | set(outputs) | set(expected_cols)
    if rows and wanted - set(rows[0]):
        raise EngineError("CSV lacks columns: " + ", ".join(sorted(wanted - set(rows[0]))))
    return [_row(cs, number, row, inputs, outputs, expected_cols, mapping.get("id"))
            for number, row in enumerate(rows)]


def _row(cs, number, row, inputs, outputs, expected_cols, id_col) -> Scenario:
    seed = {var: convert(row[col], cs.spec(var)) for col, var in inputs.items()}
    responses: dict = {}
    for col, target in outputs.items():
        tool, _, output = target.partition(".")
        if tool not in cs.tools or not output:
            raise EngineError(f"column mapping: '{target}' is not tool.output")
        entry = responses.setdefault(tool, [{"outputs": {}}])[0]
        entry["outputs"][output] = convert(row[col], cs.outputs.get(output))
    walk = expected_run(cs, seed, responses).to_dict()
    values = {}
    for col, what in expected_cols.items():
        if what in ("outcome", "end_node"):
            walk[what] = row[col] or None
        else:
            values[what] = convert(row[col], cs.spec(what))
    ident = row.get(id_col) if id_col else None
    return Scenario(f"row{number}" if not ident else str(ident), "imported",
                    {"nodes": walk["path"], "edges": walk["edges"]}, {"seed": seed}, responses,
                    walk, expected_values=values)
