"""`sopstudio bench --csv --mapping`: a SOP-Bench style test set, one scenario per row."""

from __future__ import annotations

import json
from pathlib import Path

from sopstudio.cli_main import run

SAMPLE = Path(__file__).resolve().parent.parent / "sample_sops" / "listing_blocked.sop.json"
MAPPING = {"id": "case", "inputs": ["seller_id", "listing_id"],
           "tool_outputs": {"user_status": "check_user_status.user_status",
                            "listing_status": "check_listing_status.listing_status"},
           "expected": {"final_outcome": "outcome"}}


def _write(tmp_path, rows: list[str]) -> tuple[str, str]:
    csv = tmp_path / "tests.csv"
    csv.write_text("case,seller_id,listing_id,user_status,listing_status,final_outcome\n"
                   + "\n".join(rows) + "\n")
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps(MAPPING))
    return str(csv), str(mapping)


def _bench(capsys, *args) -> dict:
    assert run(["bench", str(SAMPLE), "--no-store", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_row_is_a_scenario_and_a_wrong_expectation_fails_tsr(tmp_path, capsys):
    csv, mapping = _write(tmp_path, ["T1,SLR1,LSTA1,onboarding,,resolved",
                                     "T2,SLR2,LSTB2,active,inactive,resolved",
                                     "T3,SLR3,LSTC3,active,inactive,escalated"])
    data = _bench(capsys, "--csv", csv, "--mapping", mapping)
    assert data["scenarios"] == 3
    imported = data["metrics"]["by_type"]["imported"]
    assert imported["runs"] == 3
    assert abs(imported["tsr"] - 2 / 3) < 1e-9
    assert data["metrics"]["by_type"]["correct"]["runs"] == 0


def test_csv_needs_a_mapping_and_a_readable_file(tmp_path, capsys):
    csv, mapping = _write(tmp_path, ["T1,SLR1,LSTA1,onboarding,,resolved"])
    assert run(["bench", str(SAMPLE), "--no-store", "--csv", csv]) == 2
    assert run(["bench", str(SAMPLE), "--no-store", "--csv", str(tmp_path / "x.csv"),
                "--mapping", mapping]) == 2
    err = capsys.readouterr().err
    assert "--csv and --mapping go together" in err and "x.csv: no such file" in err
