"""Format detection refuses what it cannot read (dpa-prompts, unknown `format`, `[]`); tool-spec
export of an SOP without tools is refused; the CLI notes validation errors after an import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import load_sop
from sopstudio.core.model import SOP, Node
from sopstudio.formats import FormatError, export_sop, guess_format, import_text

LISTING = Path(__file__).resolve().parents[1] / "sample_sops" / "listing_blocked.sop.json"


def test_dpa_prompts_export_is_not_taken_for_journeybench():
    text = export_sop(load_sop(LISTING), "dpa-prompts")
    with pytest.raises(FormatError, match="dpa-prompts export"):
        guess_format(text)
    assert guess_format(export_sop(load_sop(LISTING), "journeybench")) == "journeybench"


def test_unknown_document_format_is_named():
    with pytest.raises(FormatError, match="unknown format 'other'"):
        import_text(json.dumps({"format": "other", "version": 1, "sop": {"id": "x"}}))


@pytest.mark.parametrize("fmt", ["toolspecs", "openai-tools"])
def test_tool_export_of_an_sop_without_tools_is_refused(fmt):
    sop = SOP(id="no-tools", nodes=[Node(id="a", kind="end")], start="a")
    with pytest.raises(FormatError, match="has no tools, so there is nothing to export"):
        export_sop(sop, fmt)


def test_empty_json_list_is_a_clear_error():
    with pytest.raises(FormatError, match="the JSON list is empty"):
        import_text("[]")


def test_cli_notes_validation_errors_after_import(tmp_path, capsys):
    src = tmp_path / "flow.mmd"
    # a loop with no attempt limit: an unbounded-cycle error
    src.write_text("flowchart TD\n  a[Check] -->|\"x > 3\"| b([Done])\n"
                   "  a -->|\"x <= 3\"| c[Retry]\n  c --> a\n")
    out = tmp_path / "flow.sop.json"
    assert run(["import", str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "validation error" in err and f"run sopstudio validate {out}" in err
    count = int(err.split("note: ")[-1].split()[0])
    assert run(["validate", str(out)]) == 1
    assert f"{count} error" in capsys.readouterr().out


def test_cli_no_validation_note_for_a_clean_import(tmp_path, capsys):
    src = tmp_path / "listing.txt"
    assert run(["export", str(LISTING), "--to", "text", "-o", str(src)]) == 0
    out = tmp_path / "again.sop.json"
    assert run(["import", str(src), "-o", str(out)]) == 0
    assert "validation error" not in capsys.readouterr().err
