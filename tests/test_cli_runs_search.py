"""`sopstudio runs --search TEXT [FILE] [--json] [--db PATH]`: full-text search over stored runs."""

from __future__ import annotations

import json

import pytest

from helpers import cli, listing_file


@pytest.fixture
def sop_file(tmp_path):
    return listing_file(tmp_path)


def test_search_finds_runs_by_error_code_and_version_message(capsys, sop_file, tmp_path):
    db = tmp_path / "own.sqlite"
    assert cli(capsys, "commit", sop_file, "-m", "walrus release", "--db", db)[0] == 0
    code, out, _ = cli(capsys, "simulate", sop_file, "--scenario", "failing-function",
                       "--json", "--db", db)
    failing = json.loads(out)["run_id"]
    code, out, _ = cli(capsys, "simulate", sop_file, "--json", "--db", db)
    correct = json.loads(out)["run_id"]

    code, out, err = cli(capsys, "runs", "--search", "api_error", "--json", "--db", db)
    assert code == 0, err
    hits = json.loads(out)["runs"]
    assert [h["run_id"] for h in hits] == [failing]
    assert hits[0]["scenario"] == "failing-function" and "«api_error»" in hits[0]["snippet"]

    code, out, _ = cli(capsys, "runs", "--search", "walrus", sop_file, "--db", db)
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["ID", "CREATED", "SOP"]
    assert [line.split()[0] for line in lines[1:]] == [str(correct), str(failing)]
    assert all("version message: «walrus» release" in line for line in lines[1:])


def test_search_with_nothing_found_or_odd_text(capsys, sop_file):
    cli(capsys, "simulate", sop_file)
    for text in ("zebra", 'NOT ("*', ""):
        code, out, err = cli(capsys, "runs", "--search", text)
        assert code == 0 and out.startswith("no runs match") and not err


def test_search_refuses_other_filters(capsys, sop_file):
    cli(capsys, "simulate", sop_file)
    code, _, err = cli(capsys, "runs", "--search", "x", "--agent", "dpa")
    assert code == 2 and "--search takes only" in err and len(err.strip().splitlines()) == 1
