"""Detection by content (issue 13 item 3): tool formats demand their real shape, refusals name
the likely format and the right --from, YAML and prose are recognised and pointed at."""

from __future__ import annotations

import json

import pytest

from sopstudio.cli_main import run
from sopstudio.formats import FormatError, export_sop, guess_format, import_text
from sopstudio.formats.detect import looks_like

from helpers import JOURNEYBENCH_REFUNDS, sop_of

FLOW_WITH_NAME = json.dumps({"name": "refunds", **JOURNEYBENCH_REFUNDS})


@pytest.mark.parametrize("fmt", ["toolspecs", "openai-tools"])
def test_tool_formats_refuse_a_flowchart_that_merely_has_a_name(fmt):
    with pytest.raises(FormatError) as caught:
        import_text(FLOW_WITH_NAME, fmt)
    message = str(caught.value)
    assert "item 0 is not" in message and "try --from journeybench" in message


def test_tool_formats_still_read_their_own_shapes():
    sop = sop_of([{"id": "a", "kind": "end"}], [],
                 tools=[{"name": "lookup", "parameters": {"type": "object", "properties": {
                     "q": {"type": "string"}}}}])
    for fmt in ("toolspecs", "openai-tools"):
        text = export_sop(sop, fmt)
        assert guess_format(text) == fmt
        assert [t.name for t in import_text(text, fmt).sop.tools] == ["lookup"]


YAML = "title: Refunds\nsteps:\n  - name: check order\n    tool: get_order\n  - name: refund\n"


def test_yaml_is_named_not_called_a_bad_pseudocode():
    assert looks_like(YAML) == ("YAML", None)
    with pytest.raises(FormatError, match="this looks like YAML, which SOP Studio does not "
                                          "import"):
        import_text(YAML)


def test_text_refusal_points_at_prose():
    prose = "When a customer writes in, be kind and find out what they need most of all."
    with pytest.raises(FormatError, match="try --from prose"):
        import_text(prose)


@pytest.mark.parametrize("text, fmt, right", [
    ("digraph { a -> b }", "mermaid", "dot"),
    ("flowchart TD\n  a --> b\n", "dot", "mermaid"),
    ("digraph { a -> b }", "text", "dot"),
    (json.dumps(JOURNEYBENCH_REFUNDS), "dot", "journeybench"),
])
def test_wrong_from_names_the_right_one(text, fmt, right):
    with pytest.raises(FormatError, match=f"try --from {right}"):
        import_text(text, fmt)


def test_cli_shows_the_hint_in_one_line(tmp_path, capsys):
    src = tmp_path / "flow.json"
    src.write_text(FLOW_WITH_NAME)
    assert run(["import", str(src), "--from", "toolspecs", "-o", str(tmp_path / "x.sop.json")]) \
        != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "try --from journeybench" in err[0]
