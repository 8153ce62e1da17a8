"""CSV test sets that just work (issue 13 item 5): Python-style list cells, blank and bad cells
failing their row only, `--mapping auto`, and the documentation of the mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import save_sop
from sopstudio.engine.compiled import CompiledSop, EngineError
from sopstudio.engine.scenarios_csv import propose_mapping, read_rows, scenarios_from_csv

from helpers import sop_of

ROOT = Path(__file__).resolve().parents[1]
LISTING = ROOT / "sample_sops" / "listing_blocked.sop.json"


def diagnosis_sop():
    """Ask the line; diagnose returns a list of issues and a speed; two issues -> technician."""
    tools = [{"name": "diagnose",
              "parameters": {"type": "object", "required": ["line"],
                             "properties": {"line": {"type": "string"}}},
              "outputs": [{"name": "issues", "type": "list"},
                          {"name": "speed", "type": "number"}]}]
    nodes = [{"id": "ask", "title": "Diagnose", "ask": ["line"], "tools": ["diagnose"]},
             {"id": "tech", "kind": "end", "outcome": "technician"},
             {"id": "fade", "kind": "end", "outcome": "reset"},
             {"id": "ok", "kind": "end", "outcome": "fine"}]
    edges = [{"id": "e1", "source": "ask", "target": "tech", "when": "count(issues) >= 2"},
             {"id": "e2", "source": "ask", "target": "fade", "when": "'SIGNAL_FADE' in issues"},
             {"id": "e3", "source": "ask", "target": "ok", "when": "else"}]
    return sop_of(nodes, edges, tools, variables=[{"name": "line"}], start="ask")


CSV = ("Case ID,Line,Issues,Speed,Final Decision\n"
       "A,L1,\"['LINE_INTERFERENCE', 'SIGNAL_FADE']\",12.5,technician\n"
       "B,L2,\"['SIGNAL_FADE']\",,reset\n"
       "C,L3,[],not-a-number,fine\n"
       "D,L4,\"[\"\"LINE_INTERFERENCE\"\"]\",3,fine\n")
MAPPING = {"id": "Case ID", "inputs": {"Line": "line"},
           "tool_outputs": {"Issues": "diagnose.issues", "Speed": "diagnose.speed"},
           "expected": {"Final Decision": "outcome"}}


def test_python_list_cells_blank_cells_and_a_bad_cell_fail_only_its_row():
    cs = CompiledSop(diagnosis_sop())
    rows = read_rows(cs, CSV, MAPPING)
    assert [s.id for s in rows.scenarios] == ["A", "B", "D"]
    a, b, _ = rows.scenarios
    assert a.responses == {"diagnose": [{"outputs": {
        "issues": ["LINE_INTERFERENCE", "SIGNAL_FADE"], "speed": 12.5}}]}
    assert b.responses["diagnose"][0]["outputs"] == {"issues": ["SIGNAL_FADE"]}  # blank: absent
    [problem] = rows.problems
    assert (problem.row, problem.line, problem.column, problem.value) == (3, 4, "Speed",
                                                                          "not-a-number")
    assert "is not a number" in problem.message
    with pytest.raises(EngineError, match="row 3 .*'Speed'.*'not-a-number'"):
        scenarios_from_csv(cs, CSV, MAPPING)


def test_list_cells_are_never_evaluated():
    cs = CompiledSop(diagnosis_sop())
    text = "Line,Issues\nL1,\"[__import__('os')]\"\nL2,\"['A'] + ['B']\"\n"
    rows = read_rows(cs, text, {"inputs": {"Line": "line"},
                                "tool_outputs": {"Issues": "diagnose.issues"}})
    assert rows.scenarios == [] and [p.column for p in rows.problems] == ["Issues", "Issues"]


def test_propose_mapping_matches_columns_loosely():
    cs = CompiledSop(diagnosis_sop())
    mapping, left = propose_mapping(cs, ["Case ID", "Line", "Issues", "Speed", "Final Decision",
                                         "Notes"])
    assert mapping == MAPPING and left == ["Notes"]


def _bench(capsys, *args, err: list | None = None) -> dict:
    assert run(["bench", *args, "--no-store", "--json"]) == 0
    captured = capsys.readouterr()
    if err is not None:
        err.append(captured.err)
    return json.loads(captured.out)


def test_bench_reports_bad_rows_and_runs_the_rest(tmp_path, capsys):
    sop_path, csv_path = tmp_path / "d.sop.json", tmp_path / "tests.csv"
    save_sop(diagnosis_sop(), sop_path)
    csv_path.write_text(CSV)
    (tmp_path / "map.json").write_text(json.dumps(MAPPING))
    data = _bench(capsys, str(sop_path), "--csv", str(csv_path), "--mapping",
                  str(tmp_path / "map.json"))
    assert data["scenarios"] == 3 and data["metrics"]["overall"]["tsr"] == 1.0
    assert data["csv_problems"] == [{"row": 3, "line": 4, "column": "Speed",
                                     "value": "not-a-number",
                                     "message": "column 'Speed': 'not-a-number' is not a number"}]
    assert run(["bench", str(sop_path), "--csv", str(csv_path), "--mapping",
                str(tmp_path / "map.json"), "--no-store"]) == 0
    out = capsys.readouterr().out
    assert "CSV row 3 (line 4) not run: column 'Speed': 'not-a-number'" in out


def test_mapping_auto_writes_beside_the_csv_and_never_overwrites(tmp_path, capsys):
    sop_path, csv_path = tmp_path / "d.sop.json", tmp_path / "tests.csv"
    save_sop(diagnosis_sop(), sop_path)
    csv_path.write_text(CSV)
    err: list = []
    data = _bench(capsys, str(sop_path), "--csv", str(csv_path), "--mapping", "auto", err=err)
    written = tmp_path / "tests.mapping.json"
    assert json.loads(written.read_text()) == MAPPING and data["scenarios"] == 3
    assert "proposed a column mapping" in err[0] and "tests.mapping.json" in err[0]
    edited = {**MAPPING, "expected": {}}
    written.write_text(json.dumps(edited))
    _bench(capsys, str(sop_path), "--csv", str(csv_path), "--mapping", "auto", err=err)
    assert json.loads(written.read_text()) == edited  # the author's edits are kept
    assert "using the existing mapping" in err[1]


def test_readme_and_help_explain_the_mapping_with_the_same_example(capsys):
    with pytest.raises(SystemExit):
        run(["bench", "--help"])
    help_text = capsys.readouterr().out
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## CSV test sets", 1)[1].split("\n## ", 1)[0]
    for text in ('"inputs": ["seller_id", "listing_id"]', '"expected": {"final_outcome": '
                 '"outcome"}', "--mapping auto", "tool.output", "end_node"):
        assert text in section and text in help_text


def test_readme_worked_example_runs(tmp_path, capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## CSV test sets", 1)[1]
    blocks = section.split("```")
    csv_path = tmp_path / "tests.csv"
    csv_path.write_text(blocks[1].lstrip("\n"))
    (tmp_path / "map.json").write_text(blocks[3])
    data = _bench(capsys, str(LISTING), "--csv", str(csv_path), "--mapping",
                  str(tmp_path / "map.json"))
    assert data["scenarios"] == 2 and data["metrics"]["overall"]["tsr"] == 1.0
    assert data["csv_problems"] == []
