"""`sopstudio commit / history / diff / runs / library` against a real database file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import save_sop
from sopstudio.core.model import SOP, Edge, Node, Tool
from sopstudio.store import hash_sop, open_store


def make_sop(title: str = "Refund") -> SOP:
    return SOP(id="refund", title=title, start="a",
               nodes=[Node(id="a", title="Ask"), Node(id="b", kind="end")],
               edges=[Edge(id="e1", source="a", target="b")])


@pytest.fixture
def sop_file(tmp_path):
    path = tmp_path / "refund.sop.json"
    save_sop(make_sop(), path)
    return path


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = run([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_commit_prints_short_hash_and_is_idempotent(capsys, sop_file, tmp_path):
    code, out, err = cli(capsys, "commit", sop_file, "-m", "first", "--tag", "v1")
    assert code == 0 and out.strip() == hash_sop(make_sop())[:12]
    code, again, err = cli(capsys, "commit", sop_file)
    assert again == out and "no changes" in err
    with open_store(os.environ["SOPSTUDIO_DB"]) as store:  # the env var chose the database
        versions = store.history.versions("refund")
        assert len(versions) == 1 and versions[0].tags == ["v1"]


def test_db_flag_overrides_the_environment(capsys, sop_file, tmp_path):
    other = tmp_path / "other.sqlite"
    assert cli(capsys, "commit", sop_file, "--db", other)[0] == 0
    with open_store(other) as store:
        assert len(store.history.versions("refund")) == 1
    with open_store(os.environ["SOPSTUDIO_DB"]) as store:
        assert store.history.versions("refund") == []


def test_history_and_diff(capsys, sop_file):
    cli(capsys, "commit", sop_file, "-m", "first", "--tag", "v1")
    save_sop(make_sop("Refunds v2"), sop_file)
    second = cli(capsys, "commit", sop_file, "-m", "rename")[1].strip()
    code, out, _ = cli(capsys, "history", sop_file)
    header, *lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and header.split()[:3] == ["REV", "HASH", "CREATED"]
    assert re.match(rf"^\* @0   {second}  \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d  \S+  rename$",
                    lines[0])
    assert lines[1].startswith("  @1 ") and "[v1]" in lines[1] and lines[1].endswith("first")
    data = json.loads(cli(capsys, "history", sop_file, "--json")[1])
    assert [v["message"] for v in data["versions"]] == ["rename", "first"]
    assert [v["rev"] for v in data["versions"]] == ["@0", "@1"]
    code, out, _ = cli(capsys, "diff", sop_file, "v1", "@0")
    assert code == 0 and out.splitlines() == [
        f"diff {data['versions'][1]['short']} -> {second}",
        "~ sop: title 'Refund' -> 'Refunds v2'"]
    assert cli(capsys, "diff", sop_file, second[:6], "working")[1].endswith("no changes\n")
    edited = make_sop("Refunds v2")
    edited.nodes.append(Node(id="c", title="New"))
    save_sop(edited, sop_file)
    out = cli(capsys, "diff", sop_file, "@0")[1]  # REV2 defaults to the file on disk
    assert "+ node c 'New'" in out and out.startswith(f"diff {second} -> working")
    data = json.loads(cli(capsys, "diff", sop_file, "v1", "file", "--json")[1])
    assert {(i["kind"], i["key"], i["status"]) for i in data["items"]} == {("node", "c", "added")}


def test_bad_revision_and_unreadable_file(capsys, sop_file, tmp_path):
    cli(capsys, "commit", sop_file)
    code, out, err = cli(capsys, "diff", sop_file, "nosuchtag", "@0")
    assert code == 1 and "unknown revision" in err and err.count("\n") == 1
    missing = tmp_path / "missing.sop.json"
    for argv in (("commit", missing), ("history", missing), ("diff", missing, "@0", "@1"),
                 ("runs", missing)):
        code, _, err = cli(capsys, *argv)
        assert code == 2 and "cannot read" in err


def test_runs_listing(capsys, sop_file):
    with open_store() as store:
        first = store.runs.save(sop=make_sop(), agent="scripted", status="done",
                               outcome="resolved", events=[{"type": "say", "text": "hi"}])
        store.runs.save(sop_id="other", agent="dpa", model="m1", status="failed")
    code, out, _ = cli(capsys, "runs")
    header, *rows = out.splitlines()
    assert code == 0 and header.split() == ["ID", "CREATED", "SOP", "VERSION", "AGENT", "MODEL",
                                            "STATUS", "OUTCOME", "EVENTS"]
    assert [row.split()[0] for row in rows] == [str(first + 1), str(first)]
    assert rows[1].split()[4:] == [hash_sop(make_sop())[:12], "scripted", "-", "done",
                                   "resolved", "1"]
    data = json.loads(cli(capsys, "runs", sop_file, "--json")[1])
    assert [r["id"] for r in data["runs"]] == [first]
    assert data["runs"][0]["event_count"] == 1 and "events" not in data["runs"][0]
    assert json.loads(cli(capsys, "runs", "--agent", "dpa", "--json")[1])["runs"][0]["model"] == "m1"
    shown = json.loads(cli(capsys, "runs", "--show", first, "--json")[1])
    assert shown["events"] == [{"type": "say", "text": "hi"}]
    assert "0 say hi" in cli(capsys, "runs", "--show", first)[1]
    assert cli(capsys, "runs", "--show", 999)[0] == 1


def test_library_commands(capsys, tmp_path, sop_file):
    specs = tmp_path / "specs.json"
    specs.write_text(json.dumps([{"toolSpec": {"name": "getAccount", "description": "Account",
                                               "inputSchema": {"json": {"type": "object"}}}}]))
    assert cli(capsys, "library", "import", specs)[1] == "imported getAccount: Account\n"
    assert json.loads(cli(capsys, "library", "list", "acc", "--json")[1])["tools"][0][
        "parameters"] == {"type": "object"}
    with open_store() as store:
        store.history.record(store.library.bind(make_sop(), "getAccount"))
        store.library.update(Tool(name="getAccount", description="Accounts v2"))
    out = cli(capsys, "library", "drift")[1]
    assert out.startswith("refund (") and "description 'Account' -> 'Accounts v2'" in out


def test_console_script_has_no_traceback(tmp_path, sop_file):
    env = {**os.environ, "SOPSTUDIO_DB": str(tmp_path / "sub.sqlite")}
    result = subprocess.run([sys.executable, "-m", "sopstudio.cli", "commit", str(sop_file)],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0 and len(result.stdout.strip()) == 12
    typo = tmp_path / "no" / "such" / "dir" / "x.sqlite"
    result = subprocess.run([sys.executable, "-m", "sopstudio.cli", "history", str(sop_file),
                             "--db", str(typo)], capture_output=True, text=True, env=env,
                            timeout=60)
    assert result.returncode == 1 and result.stderr == f"sopstudio history: no store at {typo}\n"
    assert not (tmp_path / "no").exists()
    (tmp_path / "bad.sqlite").write_text("junk" * 1000)
    result = subprocess.run([sys.executable, "-m", "sopstudio.cli", "runs",
                             "--db", str(tmp_path / "bad.sqlite")],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "not a usable" in result.stderr


READ_ONLY = (("history", "{file}"), ("diff", "{file}", "@0"), ("runs",), ("runs", "{file}"),
             ("runs", "--replay", "1"), ("runs", "--show", "1"), ("library", "list"),
             ("library", "drift"))


@pytest.mark.parametrize("argv", READ_ONLY, ids=" ".join)
def test_read_only_commands_need_an_existing_store(capsys, sop_file, tmp_path, monkeypatch, argv):
    typo = tmp_path / "typo.sqlite"
    argv = [a.format(file=sop_file) for a in argv]
    code, out, err = cli(capsys, *argv, "--db", typo)
    assert (code, out) == (1, "") and err == f"sopstudio {argv[0]}: no store at {typo}\n"
    monkeypatch.setenv("SOPSTUDIO_DB", str(typo))  # the same rule for the variable
    assert cli(capsys, *argv)[2] == f"sopstudio {argv[0]}: no store at {typo}\n"
    assert not typo.exists()


def test_writing_commands_create_the_file_but_not_missing_folders(capsys, sop_file, tmp_path):
    fresh = tmp_path / "fresh.sqlite"
    assert cli(capsys, "commit", sop_file, "--db", fresh)[0] == 0 and fresh.exists()
    assert cli(capsys, "history", sop_file, "--db", fresh)[0] == 0
    nested = tmp_path / "missing" / "dir" / "store.sqlite"
    code, out, err = cli(capsys, "commit", sop_file, "--db", nested)
    assert code == 1 and out == "" and err.count("\n") == 1 and "no folder" in err
    assert not (tmp_path / "missing").exists()


def test_runs_filters_and_usage_errors(capsys, sop_file):
    code, out, err = cli(capsys, "runs", "--version", "v1")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("sopstudio runs: error: --version needs FILE")
    assert err.rstrip().endswith("(see sopstudio runs --help)")
    with open_store() as store:
        store.runs.save(sop=make_sop(), agent="scripted", status="done")
    assert cli(capsys, "runs", "--status", "bogus")[1] == "no runs match\n"
    assert cli(capsys, "runs", "--agent", "nobody")[1] == "no runs match\n"
    assert cli(capsys, "runs", sop_file, "--status", "done")[1].count("\n") == 2  # header + 1


def test_empty_store_says_so(capsys):
    open_store().close()
    assert cli(capsys, "runs") == (0, "no runs in the store\n", "")
    assert cli(capsys, "library", "list") == (0, "the tool library is empty\n", "")
    assert cli(capsys, "library", "list", "zzz") == (0, "no tools match\n", "")


def test_runs_listing_shows_the_newest_50_by_default(capsys):
    with open_store() as store:
        ids = [store.runs.save(sop_id="s", agent="scripted", status="done") for _ in range(53)]
    header, *rows, note = cli(capsys, "runs")[1].splitlines()
    assert header.split()[0] == "ID" and len(rows) == 50
    assert [int(row.split()[0]) for row in rows] == ids[::-1][:50]
    assert note == "showing 50 of 53 (use --limit)"
    lines = cli(capsys, "runs", "--limit", "60")[1].splitlines()
    assert len(lines) == 54 and not lines[-1].startswith("showing")
    assert len(json.loads(cli(capsys, "runs", "--json")[1])["runs"]) == 53


def test_diff_help_explains_revisions(capsys):
    with pytest.raises(SystemExit):
        run(["diff", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "@0 = the newest" in text and "sopstudio history FILE" in text
