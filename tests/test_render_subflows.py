"""A sub-SOP's steps read by titles, in the chat and in the CLI's log (engine/render.py): the
subflow step's title, then the child's ("Verify identity › Ask for the customer id"); the log
indents them by level and keeps the qualified id; the chat's tooltip gives it."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import cli
from sopstudio.core.io import load_sop
from sopstudio.core.model import Node
from sopstudio.core.subflows import expand_file
from sopstudio.engine.render import EventRenderer, node_title, node_titles, path_label
from sopstudio.engine.session import SimulationSession, journey_choices

PARENT = Path(__file__).resolve().parent / "fixtures" / "subflows" / "refund.sop.json"
REJECTED = ("ask_order", "verify/ask_customer", "verify/rejected", "denied")


def expanded():
    return expand_file(load_sop(PARENT), PARENT)


def rejected_run():
    """The scripted run of the journey where the child rejects the customer."""
    sop = expanded()
    count, choices = journey_choices(sop)
    index = next(i for i, c in enumerate(choices) if tuple(c.journey.nodes) == REJECTED)
    session = SimulationSession.start(sop, choices[index].journey, index, "correct")
    return sop, session.run().events


def test_titles_name_the_subflow_step_then_the_childs_node():
    titles = node_titles(expanded())
    assert titles["verify/ask_customer"] == "Verify identity › Ask for the customer id"
    assert titles["verify/verified"] == "Verify identity › verified"  # untitled: its own id
    assert titles["ask_order"] == "Ask for the order"


def test_chat_lines_use_titles_and_the_tooltip_keeps_the_id():
    sop, events = rejected_run()
    chat = EventRenderer.for_sop(sop)
    lines = [chat.line(e) for e in events]
    assert "→ Verify identity › Ask for the customer id" in lines
    assert "→ Verify identity › rejected" in lines
    assert not any("verify/" in line for line in lines)
    inside = next(e for e in events if e.node == "verify/ask_customer" and e.type == "ask")
    assert chat.level(inside) == 1
    assert chat.tooltip(inside) == "Step verify/ask_customer (sub-SOP level 1)"
    outside = next(e for e in events if e.node == "ask_order")
    assert chat.level(outside) == 0 and chat.tooltip(outside) == "Step ask_order"


def test_log_lines_indent_the_child_and_keep_its_qualified_id():
    sop, events = rejected_run()
    log = EventRenderer.for_sop(sop, "log")
    lines = [log.line(e) for e in events]
    assert "  -> Verify identity › Ask for the customer id (verify/ask_customer, edge e1)" \
        in lines
    assert "  [rejected] agent: Your account is locked." in lines
    assert "-> denied (edge e3@verify/rejected)" in lines  # back in the parent: no indent
    asked = [line for line in lines if line.startswith("  [ask_customer] ")]
    assert asked and all("verify/" not in line for line in asked)


def test_an_end_inside_a_child_is_named_by_titles_and_id():
    event = {"type": "end", "node": "verify/ask_customer", "level": 1,
             "outcome": "technical-issue"}
    titles = node_titles(expanded())
    assert EventRenderer(titles, "log").line(event) == \
        "  end at Verify identity › Ask for the customer id (verify/ask_customer): technical-issue"
    assert EventRenderer(titles).line(event) == \
        "End: technical-issue at Verify identity › Ask for the customer id"


def test_grandchildren_carry_every_subflow_title(tmp_path):
    def write(name, nodes, edges):
        (tmp_path / name).write_text(json.dumps({"format": "sopstudio", "version": 1, "sop": {
            "id": name.split(".")[0], "start": nodes[0]["id"], "nodes": nodes,
            "edges": edges}}), "utf-8")
    write("leaf.sop.json", [{"id": "hello", "title": "Say hello", "say": "Hi"},
                            {"id": "bye", "kind": "end"}],
          [{"id": "x", "source": "hello", "target": "bye"}])
    write("mid.sop.json", [{"id": "inner", "kind": "subflow", "title": "Greet",
                            "subflow": "leaf.sop.json"}, {"id": "out", "kind": "end"}],
          [{"id": "y", "source": "inner", "target": "out"}])
    write("top.sop.json", [{"id": "outer", "kind": "subflow", "title": "Welcome",
                            "subflow": "mid.sop.json"}, {"id": "done", "kind": "end"}],
          [{"id": "z", "source": "outer", "target": "done"}])
    top = tmp_path / "top.sop.json"
    sop = expand_file(load_sop(top), top)
    titles = node_titles(sop)
    assert titles["outer/inner/hello"] == "Welcome › Greet › Say hello"
    assert titles["outer/out"] == "Welcome › out"
    nodes = {n.id: n for n in sop.nodes}
    assert path_label(["outer/inner/hello", "outer/inner/bye", "outer/out", "done"], nodes) \
        == "Welcome [Greet [Say hello → bye] → out] → done"


def test_journey_labels_put_a_sub_sops_steps_in_brackets():
    _, choices = journey_choices(expanded())
    assert sorted(c.label for c in choices) == [
        "Ask for the order → Verify identity [Ask for the customer id → rejected] → denied",
        "Ask for the order → Verify identity [Ask for the customer id → verified] → "
        "Refund the order → refunded"]


def test_a_node_inlined_before_titles_were_kept_reads_by_its_id_parts():
    node = Node(id="verify/ask", title="Ask", level=1)  # a stored run's older expansion
    assert node_title(node) == "verify › Ask"


def test_simulate_prints_the_childs_titles(capsys):
    code, out, err = cli(capsys, "simulate", PARENT, "--no-store", "--journey", "0")
    assert code == 0, err
    assert "    -> Verify identity › Ask for the customer id (verify/ask_customer, edge e1)" \
        in out.splitlines()
