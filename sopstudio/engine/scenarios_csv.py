"""Scenarios from a SOP-Bench style CSV test set: one scenario per row.

The column mapping (JSON) says what each column is::

    {"id": "case",
     "inputs": ["seller_id", "listing_id"],
     "tool_outputs": {"user_status": "check_user_status.user_status"},
     "expected": {"final_outcome": "outcome", "ticket": "ticket_id"}}

- ``inputs``: user values; the column name is the variable (or ``{"col": "variable"}``);
- ``tool_outputs``: ``"col": "tool.output"``, filling each tool's single response;
- ``expected``: ``"outcome"``, ``"end_node"`` or a variable whose final value is checked;
- ``id``: the column naming each test (else ``row1``, ``row2`` ...).

The expected path and tool trace come from the reference walk over the row's values.
``propose_mapping`` builds a mapping from column names that match the SOP's variables, tool
parameters and outputs (``bench --mapping auto``). Cells are typed by the declaration of what
they fill: a blank cell is a value the test does not give; lists may be JSON or Python-style
(``['LINE_INTERFERENCE', 'SIGNAL_FADE']``, read by the expression language's own literal parser,
never eval). A cell that does not fit fails its row only: ``read_rows`` returns the other
rows' scenarios and one ``RowProblem`` (row, line, column, value, why) per failed row.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.expr import ExprError, literal_value
from ..core.inputs import InputError, loads_json, read_text
from .compiled import CompiledSop, EngineError
from .scenarios import Scenario
from .walk import expected_run

TRUE, FALSE = {"true", "yes", "1", "y", "t"}, {"false", "no", "0", "n", "f"}
BLANK = object()  # a cell with nothing in it: the row does not give that value
_OUTCOME_COLUMNS = ("outcome", "final_outcome", "expected_outcome", "final_decision",
                    "expected_decision", "decision", "result", "expected_result")
_END_COLUMNS = ("end_node", "expected_end_node", "final_node")
_ID_COLUMNS = ("id", "case", "case_id", "test_id", "scenario", "scenario_id")


class CellError(EngineError):
    """One cell does not fit the value it fills."""

    def __init__(self, column: str, value: str, why: str):
        super().__init__(f"column '{column}': {value!r} {why}")
        self.column, self.value, self.why = column, value, why


@dataclass
class RowProblem:
    """A row that could not become a scenario, and why (shown in bench reports)."""

    row: int  # 1-based data row (the header is not counted)
    line: int  # line of the file where the row ends
    column: str | None
    value: str | None
    message: str

    def to_dict(self) -> dict:
        return {"row": self.row, "line": self.line, "column": self.column, "value": self.value,
                "message": self.message}

    def __str__(self) -> str:
        return f"row {self.row} (line {self.line}): {self.message}"


@dataclass
class CsvRows:
    scenarios: list[Scenario] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


def convert(text: str, decl) -> object:
    """A CSV cell typed by the declaration of the value it fills (inferred when undeclared);
    BLANK for an empty cell. A cell that does not fit raises EngineError saying why."""
    raw = text.strip()
    if not raw:
        return BLANK
    if decl is None:
        return _infer(raw, text)
    kind = getattr(decl, "type", "string")
    if kind in ("integer", "number"):
        return _number(raw, kind)
    if kind == "boolean":
        if raw.lower() in TRUE | FALSE:
            return raw.lower() in TRUE
        raise EngineError("is not a boolean (true/false, yes/no, 1/0)")
    if kind in ("list", "object"):
        return _structured(raw, kind)
    return text


def _number(raw: str, kind: str) -> int | float:
    try:
        return int(raw) if kind == "integer" else float(raw)
    except ValueError:
        pass
    if kind == "integer":  # "3.0" from a spreadsheet is still the integer 3
        try:
            value = float(raw)
        except ValueError:
            value = None
        if value is not None and value.is_integer():
            return int(value)
    raise EngineError(f"is not {'an integer' if kind == 'integer' else 'a number'}")


def _structured(raw: str, kind: str) -> object:
    """JSON first, then a literal of the expression language (Python-style quotes)."""
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        try:
            value = literal_value(raw)
        except ExprError:
            raise EngineError(f"is not a {kind} (JSON, or a list such as ['a', 'b'])") from None
    wanted = list if kind == "list" else dict
    if not isinstance(value, wanted):
        raise EngineError(f"is not a {kind}")
    return value


def _infer(raw: str, text: str) -> object:
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    if raw.startswith("["):
        try:
            return literal_value(raw)
        except ExprError:
            return text
    return text


def load_mapping(path: str | Path) -> dict:
    try:  # bounded like every input (core/inputs.py)
        data = loads_json(read_text(path), str(path))
    except (InputError, json.JSONDecodeError) as error:
        raise EngineError(f"{path}: cannot read the column mapping ({error})") from None
    if not isinstance(data, dict):
        raise EngineError(f"{path}: the column mapping must be a JSON object")
    return data


def csv_columns(csv_text: str) -> list[str]:
    return next(csv.reader(io.StringIO(csv_text)), [])


def _key(name: str) -> str:
    """Column and variable names compared loosely: `Listing ID`, `listing_id`, `listingId`."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def propose_mapping(cs: CompiledSop, columns: list[str]) -> tuple[dict, list[str]]:
    """A mapping from the column names (see the module docstring) and the columns left out."""
    asked = {a for c in cs.nodes.values() for a in c.node.ask}
    params = {p for t in cs.tools.values() for p in t.parameter_names()}
    users = {_key(v): v for v in (asked | params) if v not in cs.outputs}
    outputs = {_key(o.name): f"{t.name}.{o.name}" for t in reversed(list(cs.tools.values()))
               for o in t.outputs}
    assigned = {_key(name): name for c in cs.nodes.values() for name, _ in c.sets}
    mapping: dict = {"inputs": {}, "tool_outputs": {}, "expected": {}}
    left = []
    for column in columns:
        key = _key(column)
        if key in {_key(c) for c in _ID_COLUMNS} and "id" not in mapping:
            mapping["id"] = column
        elif key in outputs:
            mapping["tool_outputs"][column] = outputs[key]
        elif key in users:
            mapping["inputs"][column] = users[key]
        elif key in {_key(c) for c in _OUTCOME_COLUMNS} and "outcome" not in \
                mapping["expected"].values():
            mapping["expected"][column] = "outcome"
        elif key in {_key(c) for c in _END_COLUMNS}:
            mapping["expected"][column] = "end_node"
        elif key in assigned:
            mapping["expected"][column] = assigned[key]
        else:
            left.append(column)
    return mapping, left


def read_rows(cs: CompiledSop, csv_text: str, mapping: dict) -> CsvRows:
    """Every row that fits as a scenario; every row that does not as a RowProblem."""
    inputs = mapping.get("inputs") or []
    inputs = inputs if isinstance(inputs, dict) else {c: c for c in inputs}
    outputs = mapping.get("tool_outputs") or {}
    expected_cols = mapping.get("expected") or {}
    for target in outputs.values():
        tool, _, output = str(target).partition(".")
        if tool not in cs.tools or not output:
            raise EngineError(f"column mapping: '{target}' is not tool.output")
    reader = csv.DictReader(io.StringIO(csv_text))
    wanted = set(inputs) | set(outputs) | set(expected_cols)
    missing = wanted - set(reader.fieldnames or [])
    if missing:
        raise EngineError("CSV lacks columns: " + ", ".join(sorted(missing)))
    result = CsvRows()
    for number, row in enumerate(reader, 1):
        try:
            result.scenarios.append(_row(cs, number, row, inputs, outputs, expected_cols,
                                         mapping.get("id")))
        except CellError as error:
            result.problems.append(RowProblem(number, reader.line_num, error.column,
                                              error.value, str(error)))
        except EngineError as error:
            result.problems.append(RowProblem(number, reader.line_num, None, None, str(error)))
    return result


def scenarios_from_csv(cs: CompiledSop, csv_text: str, mapping: dict) -> list[Scenario]:
    """The scenarios of a test set whose rows all fit; the first bad row raises EngineError
    naming its row, column and value."""
    rows = read_rows(cs, csv_text, mapping)
    if rows.problems:
        raise EngineError(f"CSV {rows.problems[0]}")
    return rows.scenarios


def _cell(row: dict, column: str, decl) -> object:
    value = row.get(column)
    try:
        return convert(value or "", decl)
    except EngineError as error:
        raise CellError(column, value or "", str(error)) from None


def _row(cs, number, row, inputs, outputs, expected_cols, id_col) -> Scenario:
    seed = {}
    for col, var in inputs.items():
        value = _cell(row, col, cs.spec(var))
        if value is not BLANK:
            seed[var] = value
    responses: dict = {}
    for col, target in outputs.items():
        tool, _, output = target.partition(".")
        value = _cell(row, col, cs.outputs.get(output))
        entry = responses.setdefault(tool, [{"outputs": {}}])[0]
        if value is not BLANK:
            entry["outputs"][output] = value
    walk = expected_run(cs, seed, responses).to_dict()
    values = {}
    for col, what in expected_cols.items():
        if what in ("outcome", "end_node"):
            walk[what] = (row.get(col) or "").strip() or None
            continue
        value = _cell(row, col, cs.spec(what))
        if value is not BLANK:
            values[what] = value
    ident = row.get(id_col) if id_col else None
    return Scenario(f"row{number}" if not ident else str(ident), "imported",
                    {"nodes": walk["path"], "edges": walk["edges"]}, {"seed": seed}, responses,
                    walk, expected_values=values)
