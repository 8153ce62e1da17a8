"""`sopstudio journeys / simulate / bench`: the JSON contract of DESIGN §9 and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sopstudio.cli_main import run as cli
from sopstudio.core.io import save_sop
from sopstudio.engine.examples import listing_blocked

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "sample_sops").glob("*.sop.json"))
M_KEYS = {"ujcs", "tta", "tca", "path_accuracy", "leaf_accuracy", "ecr", "c_tsr", "tsr", "runs"}


@pytest.fixture
def sop_file(tmp_path):
    path = tmp_path / "lb.sop.json"
    save_sop(listing_blocked(), path)
    return str(path)


def run_json(capsys, *argv):
    assert cli(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_journeys_json(capsys, sop_file):
    data = run_json(capsys, "journeys", sop_file, "--json", "--limit", "4")
    assert data["count"] == 11 and len(data["journeys"]) == 4
    assert set(data["journeys"][0]) >= {"nodes", "edges"}
    covered = {e for j in data["cover"] for e in j["edges"]}
    assert covered == {e.id for e in listing_blocked().edges}


def test_journeys_count_only_text(capsys, sop_file):
    assert cli(["journeys", sop_file, "--count"]) == 0
    assert capsys.readouterr().out.strip() == "11 journeys"


def test_simulate_json_contract(capsys, sop_file):
    data = run_json(capsys, "simulate", sop_file, "--journey", "5", "--json")
    assert data["outcome"] == "resolved" and data["end_node"] == "done_ticket"
    for event in data["events"]:
        assert {"type", "node", "tool", "arguments", "result", "text"} <= set(event)
    assert {e["type"] for e in data["events"]} >= {"ask", "user", "tool_call", "tool_result",
                                                  "transition", "end"}


def test_simulate_missing_parameter_blocks(capsys, sop_file):
    data = run_json(capsys, "simulate", sop_file, "--scenario", "missing-parameter", "--json")
    assert data["outcome"] == "blocked" and data["end_node"] is None


def test_bench_json_contract(capsys, sop_file):
    data = run_json(capsys, "bench", sop_file, "--json")
    assert data["scenarios"] == 18
    assert set(data["metrics"]["overall"]) == M_KEYS
    assert set(data["metrics"]["by_type"]) == {"correct", "missing-parameter",
                                               "failing-function"}
    assert data["coverage"]["missing"] == []


def test_errors_are_one_line(capsys, sop_file, tmp_path):
    assert cli(["simulate", sop_file, "--journey", "99"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "journey 99 does not exist" in err
    assert cli(["bench", sop_file, "--agent", "nosuch"]) == 1
    assert "unknown agent 'nosuch'" in capsys.readouterr().err
    assert cli(["journeys", str(tmp_path / "missing.sop.json")]) == 2


def test_console_script_runs(sop_file):
    out = subprocess.run([sys.executable, "-m", "sopstudio.cli", "journeys", sop_file, "--count",
                          "--json"], capture_output=True, text=True)
    if out.returncode != 0 and "No module named" in out.stderr:
        pytest.skip("sopstudio.cli has no __main__ entry")
    assert json.loads(out.stdout)["count"] == 11


@pytest.mark.skipif(not SAMPLES, reason="no sample SOPs yet")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_sops_bench_perfectly_with_the_scripted_agent(capsys, path):
    data = run_json(capsys, "bench", str(path), "--agent", "scripted", "--json")
    assert data["coverage"]["missing"] == [] and data["unrealized"] == []
    for kind, m in data["metrics"]["by_type"].items():
        assert (m["ujcs"], m["path_accuracy"], m["tsr"]) == (1.0, 1.0, 1.0), kind
    for row in data["runs"]:
        assert row["outcome"] == row["expected_outcome"]
