"""Lossless formats (json, sop-text) round-trip every sample SOP and built SOPs exactly;
format guessing; malformed input of every format gives one clear, line-numbered error."""

from __future__ import annotations

from pathlib import Path

import pytest

from sopstudio.core.io import load_sop
from sopstudio.core.model import SOP, Edge, Knowledge, Node, Tool, ToolOutput, Variable
from sopstudio.formats import (LOSSLESS_FORMATS, FormatError, export_sop, guess_format,
                               import_file, import_text)
from sopstudio.formats.sop_text import parse_tree

from helpers import FORMATS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_sops").glob("*.sop.json"))


def built_sop() -> SOP:
    """Awkward values on purpose: quotes, newlines, unicode, numbers, extras, empty containers."""
    return SOP(
        id="odd", title='Title with "quotes" and: colons', description="line 1\nline 2 — ünï",
        start="a",
        variables=[Variable(name="n", type="integer", enum=[1, 2, 3]),
                   Variable(name="flag", type="boolean", source="set")],
        tools=[Tool(name="t-1", url="https://x/{n}", errors=["e"], live=True, custom={"k": [1]},
                    parameters={"type": "object", "properties": {"n": {"type": "integer"}},
                                "required": ["n"], "x-weird key": None},
                    outputs=[ToolOutput(name="r", type="number", enum=[0.5, 1e-07])])],
        knowledge=[Knowledge(question="Q: '?'", answer="- not a list item")],
        nodes=[Node(id="a", ask=["n"], tools=["t-1"], set={"flag": "r > 0.5"}, max_attempts=2,
                    tool_when={"t-1": "n != 0"}, tool_args={"t-1": {"n": "n + 1"}},
                    steps=["", "  indented", "# not a comment"], position=(1.5, -2.0)),
               Node(id="b", kind="end", outcome="done", say="", notes=["x: y"])],
        edges=[Edge(id="e1", source="a", target="b", when="flag == true", label="ok"),
               Edge(id="e2", source="a", target="a", on="failure")])


@pytest.mark.parametrize("fmt", LOSSLESS_FORMATS)
def test_built_sop_round_trips(fmt):
    sop = built_sop()
    assert import_text(export_sop(sop, fmt), fmt).sop == sop
    assert import_text(export_sop(sop, fmt)).sop == sop  # and the format is recognised


@pytest.mark.parametrize("fmt", LOSSLESS_FORMATS)
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_sop_round_trips(path, fmt):
    sop = load_sop(path)
    text = export_sop(sop, fmt)
    assert import_text(text).sop == sop
    assert export_sop(import_text(text).sop, fmt) == text


def test_samples_exist():
    assert SAMPLES, "sample_sops/*.sop.json are expected for the round-trip tests"


def test_sop_text_is_readable_indented_text():
    text = export_sop(built_sop(), "sop-text")
    assert text.startswith("# sopstudio-text 1")
    assert '\n  nodes:\n    - id: "a"\n' in text
    assert '      position: [1.5, -2.0]\n' in text


def test_sop_text_parser_tree_shapes():
    assert parse_tree('a: 1\nb:\n  - "x"\n  -\n    - 2\nc:\n  d: null\n') == \
        {"a": 1, "b": ["x", [2]], "c": {"d": None}}


@pytest.mark.parametrize("name, fmt", [
    ("agent_s_listing_blocked.txt", "text"), ("journeybench_loan.json", "journeybench"),
    ("sop_bench_toolspecs.json", "toolspecs"), ("openai_tools.json", "openai-tools")])
def test_guess_format_from_content(name, fmt):
    assert guess_format((FORMATS / name).read_text()) == fmt


@pytest.mark.parametrize("text, fmt", [
    ("// c\ndigraph x { a -> b }", "dot"), ("strict graph { a -- b }", "dot"),
    ("%% c\ngraph TD\nA-->B", "mermaid"), ("flowchart LR\nA-->B", "mermaid"),
    ('{"format": "sopstudio", "version": 1}', "json"), ("check status\nif ok:\n  end", "text"),
    ('{"nodes": [], "title": "x"}', "journeybench"), ('{"toolSpec": {"name": "x"}}', "toolspecs"),
    ('[{"name": "f", "parameters": {}}]', "openai-tools")])
def test_guess_format_small_inputs(text, fmt):
    assert guess_format(text) == fmt


MALFORMED = [
    ("json", '{"format": "sopstudio",\n "version": 1,\n "sop": {"id": }\n}', "line 3"),
    ("json", '{"format": "sopstudio", "version": 1, "sop": {"id": ""}}', "sop.id"),
    ("sop-text", "# sopstudio-text 1\nformat: \"sopstudio\"\nversion: 1\nsop:\n  id: oops\n",
     "line 5"),
    ("sop-text", "# sopstudio-text 1\nformat: \"sopstudio\"\n   version: 1\n", "line 3"),
    ("sop-text", "# sopstudio-text 1\nformat: \"sopstudio\"\nformat: \"x\"\n", "line 3"),
    ("journeybench", '{"nodes": [\n  {"id": "1",}\n]}', "line 2"),
    ("journeybench", '{"title": "x"}', "line 1"),
    ("journeybench", '{"nodes": [{"task_name": "no id"}]}', "nodes[0]"),
    ("toolspecs", '[\n {"toolSpec": {"name": "a"}},\n {"toolSpec": \n', "line 4"),
    ("toolspecs", '[{"toolSpec": {"description": "no name"}}]', "item 0"),
    ("openai-tools", "[]", "line 1"),
    ("openai-tools", '[{"type": "function", "function": {}}]', "item 0"),
    ("dot", "digraph {\n a -> b\n b -> -> c\n}", "line 3"),
    ("mermaid", "flowchart TD\n  A --> B\n  B -->\n", "line 3"),
    ("text", "\n\n", "line 1"),
]


@pytest.mark.parametrize("fmt, text, where", MALFORMED)
def test_malformed_input_gives_one_clear_error(fmt, text, where):
    with pytest.raises(FormatError) as info:
        import_text(text, fmt)
    message = str(info.value)
    assert where in message and "\n" not in message and "Traceback" not in message


def test_unknown_json_shape_and_unknown_format():
    with pytest.raises(FormatError, match="none of"):
        import_text('{"hello": 1}')
    with pytest.raises(FormatError, match="unknown import format"):
        import_text("x", "yaml")
    with pytest.raises(FormatError, match="unknown export format"):
        export_sop(built_sop(), "yaml")


def test_import_file_errors_name_the_file(tmp_path):
    from sopstudio.formats import UnreadableSource
    with pytest.raises(UnreadableSource, match="cannot read"):
        import_file(tmp_path / "missing.txt")
    bad = tmp_path / "bad.dot"
    bad.write_text("digraph {\n a -> ;\n}\n")
    with pytest.raises(FormatError, match=r"bad\.dot: line 2"):
        import_file(bad)


def test_file_suffix_helps_when_content_is_ambiguous(tmp_path):
    path = tmp_path / "flow.mmd"
    path.write_text("%% only comments first\n%% more\nflowchart TD\n A --> B\n")
    assert import_file(path).format == "mermaid"
