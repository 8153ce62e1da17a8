"""`simulate` and `bench` store their runs (unless --no-store); `runs --replay ID` replays one."""

from __future__ import annotations

import json
import sqlite3

import pytest

from sopstudio.engine.examples import listing_blocked
from sopstudio.store import hash_sop, open_store

from helpers import cli, listing_file


@pytest.fixture
def sop_file(tmp_path):
    return listing_file(tmp_path)


def cli_json(capsys, *argv):
    code, out, err = cli(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def test_simulate_stores_the_run_and_replay_matches(capsys, sop_file):
    data = cli_json(capsys, "simulate", sop_file, "--journey", "5", "--json")
    run_id = data["run_id"]
    listed = cli_json(capsys, "runs", sop_file, "--json")["runs"]
    assert [r["id"] for r in listed] == [run_id]
    assert (listed[0]["agent"], listed[0]["status"], listed[0]["outcome"]) == (
        "scripted", "finished", data["outcome"])
    assert listed[0]["version"] == hash_sop(listing_blocked())
    assert listed[0]["event_count"] == len(data["events"])
    assert listed[0]["settings"]["journey"] == 5 and listed[0]["started"] <= listed[0]["finished"]

    replay = cli_json(capsys, "runs", "--replay", run_id, "--json")
    assert replay["matches"] is True and replay["outcome"] == data["outcome"] == "resolved"
    assert replay["end_node"] == data["end_node"] and replay["events"] == len(data["events"])
    code, out, _ = cli(capsys, "runs", "--replay", run_id)
    assert code == 0 and "outcome resolved" in out and "matches the stored trace: yes" in out


def test_show_json_keeps_the_final_state_out_of_the_events(capsys, sop_file):
    data = cli_json(capsys, "simulate", sop_file, "--journey", "5", "--json")
    shown = cli_json(capsys, "runs", "--show", data["run_id"], "--json")
    assert shown["events"] == data["events"]
    assert all("final_state" not in event for event in shown["events"])
    assert shown["state"]["end_node"] == data["end_node"]
    assert shown["state"]["path"] and shown["state"]["meta"]["agent"] == "scripted"
    assert "state" not in cli_json(capsys, "runs", "--json")["runs"][0]


def test_simulate_text_mode_says_where_the_run_went(capsys, sop_file):
    code, out, _ = cli(capsys, "simulate", sop_file, "--scenario", "failing-function")
    assert code == 0 and out.rstrip().splitlines()[-1] == "stored as run 1"
    code, out, _ = cli(capsys, "runs", "--status", "finished", "--agent", "scripted")
    header, *rows = out.splitlines()
    assert code == 0 and header.startswith("ID") and len(rows) == 1
    assert "technical-issue" in rows[0]


def no_default_store(capsys) -> bool:
    """`runs` on the default ($SOPSTUDIO_DB) store fails because nothing created it."""
    code, out, err = cli(capsys, "runs", "--json")
    return code == 1 and out == "" and "no store at" in err


def test_no_store_and_db_flags(capsys, sop_file, tmp_path):
    data = cli_json(capsys, "simulate", sop_file, "--json", "--no-store")
    assert data["run_id"] is None and no_default_store(capsys)
    other = tmp_path / "elsewhere.sqlite"
    data = cli_json(capsys, "simulate", sop_file, "--json", "--db", other)
    assert no_default_store(capsys)
    assert [r["id"] for r in cli_json(capsys, "runs", "--json", "--db", other)["runs"]] == [
        data["run_id"]]
    assert cli_json(capsys, "bench", sop_file, "--json", "--no-store")["run_ids"] == []
    assert no_default_store(capsys)
    cli_json(capsys, "simulate", sop_file, "--json")  # a writing command creates the store
    assert len(cli_json(capsys, "runs", "--json")["runs"]) == 1


def test_simulate_does_not_create_missing_folders(capsys, sop_file, tmp_path):
    code, out, err = cli(capsys, "simulate", sop_file, "--db", tmp_path / "typo" / "s.sqlite")
    assert code == 1 and "no folder" in err and err.count("\n") == 1
    assert not (tmp_path / "typo").exists()


def test_bench_stores_every_run(capsys, sop_file):
    data = cli_json(capsys, "bench", sop_file, "--json", "--limit", "5", "--workers", "2")
    assert len(data["run_ids"]) == 5 == data["scenarios"]
    runs = cli_json(capsys, "runs", sop_file, "--json")["runs"]
    assert sorted(r["id"] for r in runs) == sorted(data["run_ids"])
    assert sorted(r["metrics"]["scenario"] for r in runs) == sorted(
        r["scenario"] for r in data["runs"])
    assert all(r["settings"]["workers"] == 2 and r["status"] == "finished" for r in runs)
    for run_id in data["run_ids"]:
        assert cli_json(capsys, "runs", "--replay", run_id, "--json")["matches"] is True
    code, out, _ = cli(capsys, "bench", sop_file, "--limit", "2")
    assert code == 0 and out.rstrip().endswith("stored 2 runs (ids 6-7)")


def test_runs_by_version_of_a_never_committed_document(capsys, sop_file):
    run_id = cli_json(capsys, "simulate", sop_file, "--json")["run_id"]
    prefix = hash_sop(listing_blocked())[:10]
    runs = cli_json(capsys, "runs", sop_file, "--version", prefix, "--json")["runs"]
    assert [r["id"] for r in runs] == [run_id]
    assert cli_json(capsys, "runs", sop_file, "--version", "abcd", "--json")["runs"] == []
    code, _, err = cli(capsys, "runs", sop_file, "--version", "no-such-tag")
    assert code == 1 and "unknown revision" in err and err.count("\n") == 1


def test_replay_reports_a_mismatch(capsys, sop_file, tmp_path):
    run_id = cli_json(capsys, "simulate", sop_file, "--json")["run_id"]
    with open_store() as store:
        path = store.path
    conn = sqlite3.connect(path)
    with conn:  # the stored record claims an outcome the recording does not produce
        conn.execute("UPDATE runs SET outcome = 'escalated' WHERE id = ?", (run_id,))
    conn.close()
    code, out, _ = cli(capsys, "runs", "--replay", run_id)
    assert code == 1 and "(stored escalated)" in out and "matches the stored trace: no" in out
    data = json.loads(cli(capsys, "runs", "--replay", run_id, "--json")[1])
    assert data["matches"] is False and data["stored_outcome"] == "escalated"


def test_replay_of_an_unknown_run_is_one_line(capsys):
    open_store().close()
    code, out, err = cli(capsys, "runs", "--replay", 999)
    assert code == 1 and out == "" and "no run 999" in err and err.count("\n") == 1
