"""The CLI's version, schema and error behaviour (DESIGN §9)."""

from __future__ import annotations

import json
import subprocess
import sys

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
