"""`sopstudio journeys / simulate / bench`: the JSON contract of DESIGN §9 and clear errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sopstudio.cli_main import run as cli
from sopstudio.core.io import save_sop
from sopstudio.core.journeys import JourneyGraph
from sopstudio.core.model import SOP
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
    assert set(data["metrics"]["overall"]) == M_KEYS | {"unrealized", "warnings", "branch_choices", "branch_agreements"}
    assert set(data["metrics"]["by_type"]) == {"correct", "missing-parameter",
                                               "failing-function"}
    assert data["coverage"]["missing"] == []


def test_errors_are_one_line(capsys, sop_file, tmp_path):
    assert cli(["simulate", sop_file, "--journey", "99"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "journey 99 does not exist" in err
    for command in ("bench", "simulate"):  # a usage error (argparse choices): exit 2
        with pytest.raises(SystemExit) as exited:
            cli([command, sop_file, "--agent", "nosuch"])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "invalid choice: 'nosuch'" in err
    assert cli(["journeys", str(tmp_path / "missing.sop.json")]) == 2


def test_unknown_agent_is_a_usage_error(capsys, sop_file):
    with pytest.raises(SystemExit) as exited:
        cli(["simulate", sop_file, "--agent", "bogus"])
    assert exited.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_console_script_runs(sop_file):
    out = subprocess.run([sys.executable, "-m", "sopstudio.cli", "journeys", sop_file, "--count",
                          "--json"], capture_output=True, text=True)
    assert json.loads(out.stdout)["count"] == 11


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_sops_bench_perfectly_with_the_scripted_agent(capsys, path):
    data = run_json(capsys, "bench", str(path), "--agent", "scripted", "--json")
    assert data["coverage"]["missing"] == [] and data["unrealized"] == []
    for kind, m in data["metrics"]["by_type"].items():
        assert (m["ujcs"], m["path_accuracy"], m["tsr"]) == (1.0, 1.0, 1.0), kind
    for row in data["runs"]:
        assert row["outcome"] == row["expected_outcome"]


# -- defects found by a new-user trial -------------------------------------------------------

def dead_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (a port just freed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def broken_file(tmp_path):
    """listing_blocked whose onboarding condition reads a misspelt `user_statuss`."""
    sop = listing_blocked()
    edge = next(e for e in sop.edges if e.when == "user_status == 'onboarding'")
    edge.when = "user_statuss == 'onboarding'"
    path = tmp_path / "broken.sop.json"
    save_sop(sop, path)
    return str(path), edge


def test_validate_fails_on_the_broken_fixture(broken_file):
    assert cli(["validate", broken_file[0]]) == 1


def test_broken_sop_simulate_expects_the_journey_end_and_warns(capsys, broken_file):
    path, edge = broken_file
    capsys.readouterr()
    number = next(i for i, j in enumerate(JourneyGraph(listing_blocked()).iter_journeys())
                  if j.edges == (edge.id,))
    assert cli(["simulate", path, "--journey", str(number), "--no-store"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"warning: {path} has 1 validation error (run `sopstudio validate {path}`); "
        "results may not be meaningful"]
    assert f"(expected {listing_blocked().node(edge.target).outcome})" in out
    assert "not realised" in out
    assert "end node: None" not in out and "end node: (none: the run stopped at " in out


def test_broken_sop_bench_is_not_perfect_and_counts_unrealized(capsys, broken_file):
    path, _ = broken_file
    data = run_json(capsys, "bench", path, "--json", "--no-store")
    assert data["unrealized"]
    overall = data["metrics"]["overall"]
    assert overall["unrealized"] == len(data["unrealized"]) and overall["tsr"] < 1.0
    assert data["metrics"]["by_type"]["correct"]["tsr"] < 1.0
    failed = {r["scenario"] for r in data["runs"] if not r["correct"]}
    assert set(data["unrealized"]) <= failed


def test_valid_samples_get_no_warning_and_no_unrealized(capsys):
    for path in SAMPLES:
        data = run_json(capsys, "bench", str(path), "--json", "--no-store", "--limit", "6")
        assert data["metrics"]["overall"]["unrealized"] == 0
        assert capsys.readouterr().err == ""


def test_unreachable_model_stops_simulate_and_stores_an_error_run(capsys, sop_file, tmp_path):
    db, url = str(tmp_path / "runs.db"), dead_url()
    code = cli(["simulate", sop_file, "--agent", "dpa", "--model", "m", "--base-url", url,
                "--db", db])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"cannot reach the model at {url}: " in err
    runs = run_json(capsys, "runs", "--db", db, "--json")["runs"]
    assert [r["status"] for r in runs] == ["error"]


def test_unreachable_model_stops_bench_without_metrics(capsys, sop_file, tmp_path):
    db, url = str(tmp_path / "runs.db"), dead_url()
    code = cli(["bench", sop_file, "--agent", "spa", "--model", "m", "--base-url", url,
                "--json", "--db", db, "--workers", "2"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"cannot reach the model at {url}: " in err
    assert run_json(capsys, "runs", "--db", db, "--json")["runs"] == []


@pytest.mark.parametrize("argv", [
    ["bench", "--limit", "0"], ["bench", "--limit", "-3"], ["bench", "--workers", "0"],
    ["bench", "--workers", "-1"], ["journeys", "--limit", "-1"], ["journeys", "--limit", "0"],
    ["bench", "--agent", "dpa", "--model", "m", "--base-url", "ftp://host/v1"],
    ["simulate", "--agent", "dpa", "--model", "m", "--base-url", "localhost:8000/v1"]])
def test_bad_numbers_and_urls_are_argparse_errors(capsys, sop_file, argv):
    with pytest.raises(SystemExit) as stop:
        cli([argv[0], sop_file, *argv[1:]])
    assert stop.value.code == 2
    assert "error: argument" in capsys.readouterr().err


def test_bench_by_type_has_every_type_even_without_tools(capsys, tmp_path):
    sop = SOP.model_validate({
        "id": "notools", "start": "ask", "variables": [{"name": "name", "source": "user"}],
        "nodes": [{"id": "ask", "ask": ["name"]}, {"id": "done", "kind": "end",
                                                   "outcome": "resolved"}],
        "edges": [{"id": "e1", "source": "ask", "target": "done"}]})
    path = tmp_path / "notools.sop.json"
    save_sop(sop, path)
    data = run_json(capsys, "bench", str(path), "--json", "--no-store")
    by_type = data["metrics"]["by_type"]
    assert set(by_type) == {"correct", "missing-parameter", "failing-function"}
    assert by_type["failing-function"]["runs"] == 0
    assert all(by_type["failing-function"][k] is None for k in M_KEYS - {"runs"})
    assert by_type["correct"]["runs"] == 1 and by_type["correct"]["tsr"] == 1.0


def test_bench_table_shows_all_metrics_aligned(capsys, broken_file):
    assert cli(["bench", broken_file[0], "--no-store"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("type"))
    table = lines[start:start + 5]
    assert table[0].split() == ["type", "ujcs", "tta", "tca", "path", "leaf", "ecr", "c_tsr",
                                "tsr", "runs", "unrealized", "warnings"]
    assert [row.split()[0] for row in table[1:]] == ["overall", "correct", "missing-parameter",
                                                     "failing-function"]
    assert len({len(row) for row in table}) == 1  # every row as wide as the heading
    for heading in ("ujcs", "tsr", "runs", "unrealized", "warnings"):  # right edges line up
        edge = table[0].index(heading) + len(heading)
        assert all(row[edge - 1] != " " and (edge == len(row) or row[edge] == " ")
                   for row in table)
    assert any(line.startswith("unrealized: ") for line in lines)
    # the misspelt name fails at run time: counted, never silent
    assert int(table[1].split()[-1]) > 0


def test_journeys_says_how_many_are_shown_and_cover_prints_only_the_cover(capsys, sop_file):
    assert cli(["journeys", sop_file, "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "11 journeys" and len([ln for ln in lines if ln.startswith("  ")]) == 3
    assert lines[-1].startswith("showing 3 of 11 journeys")
    assert cli(["journeys", sop_file, "--cover"]) == 0
    lines = capsys.readouterr().out.splitlines()
    cover = run_json(capsys, "journeys", sop_file, "--json")["cover"]
    assert lines[:2] == ["11 journeys", f"edge cover: {len(cover)} journeys"]
    assert lines[2:] == ["  " + " -> ".join(j["nodes"]) for j in cover]
    assert cli(["journeys", sop_file, "--limit", "20"]) == 0
    assert "showing" not in capsys.readouterr().out
