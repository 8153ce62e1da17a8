"""The CLI's version, schema and error behaviour (DESIGN §9)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sopstudio import __version__
from sopstudio.cli_main import run
from sopstudio.core.model import SOPFile


def test_version(capsys):
    try:
        run(["--version"])
    except SystemExit as done:
        assert done.code == 0
    assert __version__ in capsys.readouterr().out


def test_schema_is_the_json_schema_of_the_format(capsys):
    assert run(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "SOP Studio document"
    assert set(schema["properties"]) >= {"format", "version", "sop"}
    definitions = schema["$defs"]
    assert {"SOP", "Node", "Edge", "Tool", "Variable", "Knowledge"} <= set(definitions)
    assert "when" in definitions["Edge"]["properties"]
    assert schema["properties"]["sop"] == SOPFile.model_json_schema()["properties"]["sop"]


def test_console_script_runs_without_traceback(tmp_path):
    missing = tmp_path / "nope.sop.json"
    result = subprocess.run([sys.executable, "-m", "sopstudio.cli", "schema"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and json.loads(result.stdout)
    result = subprocess.run([sys.executable, "-m", "sopstudio.cli", "validate", str(missing)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "nope.sop.json" in result.stderr


def _one_usage_line(err: str, prog: str) -> bool:
    return (err.count("\n") == 1 and err.startswith(f"{prog}: error: ")
            and err.endswith(f"(see {prog} --help)\n"))


def test_unknown_command_is_a_usage_error_not_a_file(capsys):
    with pytest.raises(SystemExit) as done:
        run(["frobnicate"])
    captured = capsys.readouterr()
    assert done.value.code == 2 and captured.out == ""
    assert _one_usage_line(captured.err, "sopstudio")
    assert "invalid choice: 'frobnicate'" in captured.err and "cannot read" not in captured.err


@pytest.mark.parametrize("word", ["flow.sop.json", "dir/flow", "nodot"])
def test_file_like_first_arguments_open_the_gui(monkeypatch, tmp_path, word):
    import sopstudio.commands.gui as gui

    opened = []
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nodot").write_text("{}")  # an existing file, even without a dot or a slash
    monkeypatch.setattr(gui, "run", lambda args: opened.append(args.file) or 0)
    assert run([word]) == 0 and opened == [word]


@pytest.mark.parametrize("argv, prog", [
    (["validate"], "sopstudio validate"),
    (["runs", "--limit", "x"], "sopstudio runs"),
    (["library", "nope"], "sopstudio library"),
    (["--bogus"], "sopstudio")])
def test_usage_errors_are_one_line(capsys, argv, prog):
    with pytest.raises(SystemExit) as done:
        run(argv)
    captured = capsys.readouterr()
    assert done.value.code == 2 and captured.out == ""
    assert _one_usage_line(captured.err, prog), captured.err
