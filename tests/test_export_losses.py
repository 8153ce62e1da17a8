"""What an export format drops (formats.losses), and `sopstudio export` saying it on stderr."""

from __future__ import annotations

from sopstudio.cli_main import run
from sopstudio.core.io import load_sop, save_sop
from sopstudio.core.model import Knowledge
from sopstudio.formats import EXPORT_FORMATS, LOSSLESS_FORMATS
from sopstudio.formats.losses import compare, losses

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sops"


def test_lossless_formats_drop_nothing_and_lossy_ones_say_what():
    sop = load_sop(SAMPLES / "email_update.sop.json")
    # DOT, Mermaid and JourneyBench carry the exact data beside the drawing: nothing is lost
    carried = ("dot", "mermaid", "journeybench")
    for fmt in (*LOSSLESS_FORMATS, *carried):
        assert losses(sop, fmt) == [], fmt
    for fmt in set(EXPORT_FORMATS) - set(LOSSLESS_FORMATS) - set(carried):
        assert losses(sop, fmt), fmt
    assert "SOP description" in losses(sop, "toolspecs")
    assert losses(sop, "react-prompt")[0].startswith("node positions and the editable")


def test_compare_names_fields_and_missing_items():
    sop = load_sop(SAMPLES / "email_update.sop.json")
    back = sop.model_copy(deep=True)
    next(n for n in back.nodes if n.say).say = None
    back.nodes.pop()
    back.knowledge = [Knowledge(question="other", answer="x")] + back.knowledge[1:]
    found = compare(sop, back)
    assert f"nodes: 1 of {len(sop.nodes)} nodes" in found
    assert any(line.startswith("nodes: say (1 of") for line in found)
    assert any(line.startswith("knowledge: question (1 of") for line in found)


def test_cli_export_notes_what_the_format_drops_and_validation_errors(tmp_path, capsys):
    sop = load_sop(SAMPLES / "email_update.sop.json")
    sop.start = None  # a validation error
    path = tmp_path / "in.sop.json"
    save_sop(sop, path)
    assert run(["export", str(path), "--to", "toolspecs", "-o", str(tmp_path / "out.json")]) == 0
    err = capsys.readouterr().err.splitlines()
    note = next(line for line in err if line.startswith("note: toolspecs drops: "))
    assert "; ".join(losses(sop, "toolspecs")) in note
    assert any(line.startswith("warning:") and "validation error" in line for line in err)
    assert run(["export", str(path), "--to", "json", "-o", str(tmp_path / "o.json")]) == 0
    assert not any(line.startswith("note:") for line in capsys.readouterr().err.splitlines())
