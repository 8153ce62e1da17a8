"""Bounded, clean input (issue 17, item 5): size cap, UTF-8, BOM, depth and number limits.

Each hostile input gives one clear line on stderr and exit code 2 ("unreadable"), never an
"internal error"; writers and walkers are iterative (a 1,000-node chain exports as text).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sopstudio.cli_main import run as cli
from sopstudio.core import inputs
from sopstudio.core.io import save_sop
from sopstudio.core.model import SOP, Edge, Node
from sopstudio.engine.examples import listing_blocked
from sopstudio.formats import IMPORT_FORMATS, export_sop, import_text

BIG = "1" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


def counter_doc() -> dict:
    return {"format": "sopstudio", "version": 1, "sop": {
        "id": "c", "title": "C", "start": "a",
        "nodes": [{"id": "a", "title": "A", "max_attempts": 2},
                  {"id": "z", "title": "Z", "kind": "end", "outcome": "resolved"}],
        "edges": [{"id": "e1", "source": "a", "target": "z"}]}}


def one_line_exit_2(capsys, argv) -> str:
    assert cli(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "internal error" not in err
    return err


@pytest.mark.parametrize("command", ["validate", "simulate", "journeys"])
def test_long_integers_and_deep_json_are_unreadable(tmp_path, capsys, command):
    text = json.dumps(counter_doc())
    big = tmp_path / "big.sop.json"
    big.write_text(text.replace('"max_attempts": 2', f'"max_attempts": {BIG}'))
    deep = tmp_path / "deep.sop.json"
    deep.write_text(text[:-2] + f', "x": {DEEP}}}}}')
    assert "a number is too long" in one_line_exit_2(capsys, [command, str(big)])
    assert "nested too deeply" in one_line_exit_2(capsys, [command, str(deep)])


@pytest.mark.parametrize("payload", [
    '{"task_name": "x", "nodes": ' + DEEP + "}",
    '{"task_name": "x", "nodes": [' + BIG + "]}",
    '[{"toolSpec": {"name": "t", "inputSchema": {"json": ' + DEEP + "}}}]",
    '[{"type": "function", "function": {"name": "t", "parameters": ' + BIG + "}}]"])
def test_json_importers_refuse_with_one_line(tmp_path, capsys, payload):
    src = tmp_path / "in.json"
    src.write_text(payload)
    err = one_line_exit_2(capsys, ["import", str(src), "-o", str(tmp_path / "o.sop.json")])
    assert str(src) in err and not (tmp_path / "o.sop.json").exists()


def test_sop_text_literals_are_bounded_too(tmp_path, capsys):
    text = export_sop(listing_blocked(), "sop-text")
    lines = text.splitlines()
    lines.insert(4, f"  extra: {BIG}")
    src = tmp_path / "big.soptxt"
    src.write_text("\n".join(lines))
    err = one_line_exit_2(capsys, ["import", str(src), "--from", "sop-text", "-o",
                                   str(tmp_path / "o.sop.json")])
    assert "line 5" in err and "too long" in err


def test_text_importers_do_not_crash_on_long_numbers(tmp_path, capsys):
    src = tmp_path / "p.txt"
    src.write_text(f"# Refunds\nask user to provide amount\nif amount > {BIG}:\n"
                   "  terminate the flow\n")
    assert cli(["import", str(src), "-o", str(tmp_path / "o.sop.json")]) in (0, 1)
    assert "internal error" not in capsys.readouterr().err


def test_endless_input_stops_at_the_cap(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("SOPSTUDIO_MAX_INPUT", "100000")
    err = one_line_exit_2(capsys, ["validate", "/dev/zero"])
    assert "larger than 100,000 bytes" in err and "SOPSTUDIO_MAX_INPUT" in err
    err = one_line_exit_2(capsys, ["import", "/dev/zero", "-o", str(tmp_path / "o.json")])
    assert "larger than" in err


def test_invalid_utf8_is_unreadable(tmp_path, capsys):
    src = tmp_path / "bad.sop.json"
    src.write_bytes(b'{"format": "sopstudio", "x": "\xff\xfe"}')
    assert "not UTF-8" in one_line_exit_2(capsys, ["validate", str(src)])


# Formats that are also exported (import-only Rasa, FloDial, STAR: their own BOM tests).
@pytest.mark.parametrize("fmt", [f for f in IMPORT_FORMATS
                                 if f not in ("prose", "rasa", "flodial", "star")])
def test_a_byte_order_mark_is_dropped_by_every_importer(fmt):
    sop = listing_blocked()
    text = export_sop(sop, fmt if fmt != "openai-tools" else "openai-tools")
    plain, marked = import_text(text, fmt, "x"), import_text("\ufeff" + text, fmt, "x")
    assert marked.sop == plain.sop


def test_a_byte_order_mark_is_not_part_of_the_pseudocode_title():
    from sopstudio.formats.pseudo import import_pseudocode
    result = import_pseudocode("\ufeff# Refunds\nask user to provide order_id\n"
                               "terminate the flow\n")
    assert result.sop.title == "Refunds"


def test_the_loader_reads_a_bom(tmp_path, capsys):
    src = tmp_path / "bom.sop.json"
    src.write_bytes(b"\xef\xbb\xbf" + json.dumps(counter_doc()).encode())
    assert cli(["validate", str(src)]) == 0


def chain(count: int) -> SOP:
    nodes = [Node(id=f"n{i}", title=f"Step {i}", say=f"step {i}") for i in range(count)]
    nodes.append(Node(id="end", title="End", kind="end", outcome="resolved"))
    edges = [Edge(id=f"e{i}", source=f"n{i}", target=f"n{i + 1}" if i + 1 < count else "end")
             for i in range(count)]
    return SOP(id="chain", title="Chain", start="n0", nodes=nodes, edges=edges)


def decisions(count: int) -> SOP:
    nodes = [Node(id=f"n{i}", title=f"Step {i}", ask=["x"]) for i in range(count)]
    nodes += [Node(id="end", kind="end", outcome="resolved"), Node(id="no", kind="end")]
    edges = []
    for i in range(count):
        edges.append(Edge(id=f"e{i}", source=f"n{i}",
                          target=f"n{i + 1}" if i + 1 < count else "end", when=f"x == {i}"))
        edges.append(Edge(id=f"f{i}", source=f"n{i}", target="no", when="else"))
    return SOP(id="deep", title="Deep", start="n0", nodes=nodes, edges=edges)


def test_text_export_of_a_1000_node_chain(tmp_path, capsys):
    path = tmp_path / "chain.sop.json"
    save_sop(chain(1000), path)
    assert cli(["export", str(path), "--to", "text", "-o", str(tmp_path / "c.txt")]) == 0
    back = import_text((tmp_path / "c.txt").read_text(), "text")
    assert len(back.sop.nodes) == 1001


def test_deep_decisions_round_trip_through_text():
    sop = decisions(300)
    back = import_text(export_sop(sop, "text"), "text").sop
    assert sorted((e.source, e.target, e.when) for e in back.edges) == \
        sorted((e.source, e.target, e.when) for e in sop.edges)


def test_indentation_deeper_than_the_limit_is_refused(tmp_path, capsys):
    lines = ["# Deep"] + ["  " * i + f"if x == {i}:" for i in range(150)]
    src = tmp_path / "deep.txt"
    src.write_text("\n".join(lines) + "\n" + "  " * 150 + "terminate the flow\n")
    err = one_line_exit_2(capsys, ["import", str(src), "-o", str(tmp_path / "o.sop.json")])
    assert "nested too deeply" in err


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(1, 400), wrap=st.sampled_from(["[]", "{}"]))
def test_json_depth_check_matches_the_nesting(depth, wrap):
    inner = '"x"'
    for level in range(depth):
        inner = f"[{inner}]" if wrap == "[]" or level % 2 else f'{{"k": {inner}, "s": "[["}}'
    assert inputs.json_depth_exceeded(inner) == (depth > inputs.MAX_JSON_DEPTH)
