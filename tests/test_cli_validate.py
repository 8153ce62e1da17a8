"""`sopstudio validate FILE [--json]`: output and exit codes 0 / 1 / 2 (DESIGN §9)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.commands.validate import format_issue
from sopstudio.core.validate import Issue

CLEAN = {
    "id": "greet", "start": "ask",
    "variables": [{"name": "name", "source": "user"}],
    "nodes": [{"id": "ask", "ask": ["name"], "say": "Hello!"},
              {"id": "bye", "kind": "end", "say": "Bye {name}", "outcome": "resolved"}],
    "edges": [{"id": "e1", "source": "ask", "target": "bye"}],
}


def write(tmp_path: Path, sop: dict, name: str = "x.sop.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"format": "sopstudio", "version": 1, "sop": sop}))
    return str(path)


def broken() -> dict:
    sop = json.loads(json.dumps(CLEAN))
    sop["nodes"][0]["tools"] = ["check_user"]              # unknown-tool (error)
    sop["edges"].append({"id": "e2", "source": "ask", "target": "ghost"})  # unknown-node (error)
    sop["tools"] = [{"name": "refund"}]                     # unused-tool (warning)
    return sop


def test_clean_file_exits_0(tmp_path, capsys):
    assert run(["validate", write(tmp_path, CLEAN)]) == 0
    out = capsys.readouterr().out
    assert "no problems" in out


def test_warnings_only_exit_0(tmp_path, capsys):
    sop = dict(CLEAN, tools=[{"name": "refund"}])
    assert run(["validate", write(tmp_path, sop)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["warning", "unused-tool", "tool", "refund"]
    assert "0 errors, 1 warning" in lines[-1]


def test_errors_exit_1_with_one_line_per_issue(tmp_path, capsys):
    assert run(["validate", write(tmp_path, broken())]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["error", "unknown-node", "node"]
    assert any(line.split()[:4] == ["error", "unknown-tool", "node", "ask"] for line in lines)
    assert "check_user" in "\n".join(lines)
    assert lines[-1].endswith("2 errors, 1 warning")


def test_json_output(tmp_path, capsys):
    assert run(["validate", write(tmp_path, broken()), "--json"]) == 1
    issues = json.loads(capsys.readouterr().out)["issues"]
    assert [(i["code"], i["severity"], i["node"], i["edge"]) for i in issues] == [
        ("unknown-node", "error", "ask", "e2"),
        ("unknown-tool", "error", "ask", None),
        ("unused-tool", "warning", None, None)]
    assert all({"code", "severity", "message", "node", "edge"} <= set(i) for i in issues)


def test_duplicate_ids_are_issues_not_load_failures(tmp_path, capsys):
    sop = json.loads(json.dumps(CLEAN))
    sop["nodes"].append({"id": "bye", "kind": "end"})
    assert run(["validate", write(tmp_path, sop), "--json"]) == 1
    issues = json.loads(capsys.readouterr().out)["issues"]
    assert [(i["code"], i["node"]) for i in issues] == [("duplicate-id", "bye")]


@pytest.mark.parametrize("content", [None, "{not json", '{"format": "other", "version": 1}'])
def test_unreadable_file_exits_2_with_one_line(tmp_path, capsys, content):
    path = tmp_path / "bad.sop.json"
    if content is not None:
        path.write_text(content)
    assert run(["validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


def test_subprocess_json(tmp_path):
    path = write(tmp_path, broken())
    result = subprocess.run([sys.executable, "-m", "sopstudio.cli", "validate", path, "--json"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    codes = [i["code"] for i in json.loads(result.stdout)["issues"]]
    assert codes == ["unknown-node", "unknown-tool", "unused-tool"]


def test_each_line_names_the_location_once(tmp_path, capsys):
    run(["validate", write(tmp_path, broken())])
    lines = capsys.readouterr().out.splitlines()[:-1]
    assert lines and all(line.count("node ask") <= 1 for line in lines)
    unknown_tool = next(line for line in lines if "unknown-tool" in line)
    assert unknown_tool.split(None, 2)[2].startswith("node ask calls tool 'check_user'")
    # The issue the trial found: "node check_user: node check_user: no edge is taken ..."
    issue = Issue(code="missing-default", severity="error", node="check_user",
                  message="node check_user: no edge is taken when status is 'x'")
    assert format_issue(issue).split(None, 2)[2] == issue.message
    # A message that does not name its location gets it as a prefix, once.
    issue = Issue(code="bad-condition", severity="error", edge="e7", message="cannot parse 'a =='")
    assert format_issue(issue).split(None, 2)[2] == "edge e7: cannot parse 'a =='"
    # "node a" inside "node ab" is not the same location.
    issue = Issue(code="dead-end", severity="warning", node="a", message="node ab is a dead end")
    assert format_issue(issue).split(None, 2)[2] == "node a: node ab is a dead end"


@pytest.mark.parametrize("name", ["flow.dot", "flow.mmd", "flow.txt"])
def test_other_formats_get_an_import_hint(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_text("digraph { a -> b }\n" if name.endswith(".dot") else "flowchart TD\n A-->B\n")
    assert run(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not valid JSON" in err
    assert "(to read other formats use: sopstudio import FILE -o OUT.sop.json)" in err
    (tmp_path / "typo.sop.json").write_text("{not json")
    assert run(["validate", str(tmp_path / "typo.sop.json")]) == 2
    assert "sopstudio import" not in capsys.readouterr().err  # a broken .json gets no hint


@pytest.mark.parametrize("make, reason", [
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: None, "no such file"),
    (lambda p: p.write_bytes(b"\x88\x89PNG\x00\xff"), "not a text file (not UTF-8)")])
def test_json_mode_reports_an_unreadable_file_on_stdout(tmp_path, capsys, make, reason):
    path = tmp_path / "x.sop.json"
    make(path)
    assert run(["validate", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data == {"error": f"{path}: cannot read file ({reason})", "issues": []}
    assert captured.err == f"sopstudio validate: {data['error']}\n"
    assert "Error" not in captured.err  # no Python exception class names
