"""Sub-SOPs in the GUI: the simulation dock and the batch dialog run a saved SOP with its
children inlined (as the CLI does), the run's marks land on the subflow node of the parent
canvas, and the problems dock reports a missing child."""

from __future__ import annotations

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop

from qt_helpers import FIXTURES, TIMEOUT, journey_index, run_batch, step_once

SUBFLOWS = FIXTURES / "subflows"
PARENT = SUBFLOWS / "refund.sop.json"


def open_parent(open_main_window, name: str = "refund.sop.json"):
    path = SUBFLOWS / name
    return open_main_window(Document(load_sop(path), path), simulation=True, show=False)


def test_dock_runs_the_child_and_marks_the_subflow_node(qtbot, open_main_window):
    win = open_parent(open_main_window)
    sim = win.simulation
    journey = ("ask_order", "verify/ask_customer", "verify/verified", "refund", "refunded")
    sim.dock.select(journey=journey_index(sim.dock, *journey), scenario="correct",
                    agent="scripted")
    inside = []
    while True:
        event = step_once(qtbot, sim.dock)
        if (event.get("node") or "").startswith("verify/"):
            inside.append(event)
            # the child's node is drawn as the subflow node on the parent canvas
            assert sim.overlay.current_node == "verify"
            assert "verify" in sim.overlay.node_marks
        if event["type"] == "end":
            break
    assert inside and all(e["level"] == 1 for e in inside)
    assert sim.dock.snapshot["outcome"] == "refunded"
    assert set(sim.overlay.path_edges) == {"e1", "e2", "e4"}
    assert all(e in sim.overlay.edge_marks for e in sim.overlay.path_edges)


def test_batch_runs_expanded_and_folds_coverage_onto_the_parent(qtbot, open_main_window):
    win = open_parent(open_main_window)
    sim = win.simulation
    result = run_batch(qtbot, sim.open_batch(), store_runs=False, source="covering",
                       types=("correct",))
    assert result.results and result.metrics["overall"]["tsr"] == 1.0
    coverage = sim.overlay.coverage
    assert coverage["nodes"]["verify"] >= 1 and coverage["edges"]["e2"] >= 1
    assert not any("/" in key for key in coverage["nodes"])


def test_problems_dock_reports_a_missing_child(qtbot, open_main_window):
    win = open_parent(open_main_window, "missing_child.sop.json")
    win.problems.schedule(immediate=True)
    qtbot.waitUntil(lambda: any(i.code == "missing-subflow" for i in win.problems.issues),
                    timeout=TIMEOUT)
    win.simulation.dock.select(scenario="correct", agent="scripted")
    assert not win.simulation.dock.start()
    assert "Cannot run" in win.simulation.dock.status.text()


def test_problems_dock_reports_a_recursive_child(qtbot, open_main_window):
    win = open_parent(open_main_window, "loop_a.sop.json")
    win.problems.schedule(immediate=True)
    qtbot.waitUntil(lambda: any(i.code == "subflow-recursion" for i in win.problems.issues),
                    timeout=TIMEOUT)


def test_chat_names_child_steps_by_title_indents_them_and_hovering_gives_the_id(
        qtbot, open_main_window):
    path = SUBFLOWS / "refund.sop.json"  # shown: hovering maps screen positions to lines
    win = open_main_window(Document(load_sop(path), path), simulation=True, size=(1200, 900))
    dock = win.simulation.dock
    journey = ("ask_order", "verify/ask_customer", "verify/rejected", "denied")
    dock.select(journey=journey_index(dock, *journey), scenario="correct", agent="scripted")
    dock.run()
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert "→ Verify identity › Ask for the customer id" in dock.chat_lines
    assert not any("verify/" in line for line in dock.chat_lines)
    chat = dock.chat
    inside = where(chat, "→ Verify identity › Ask for the customer id")
    assert chat.tooltip_at(inside.center()) == "Step verify/ask_customer (sub-SOP level 1)"
    outside = where(chat, "→ Ask for the order")
    assert chat.tooltip_at(outside.center()) == "Step ask_order"
    assert inside.left() > outside.left()  # the child's lines are indented
    memory = dock.memory  # the memory's node column: titles, the id in the tooltip
    rows = {memory.item(r, 0).toolTip(): memory.item(r, 0).text()
            for r in range(memory.rowCount())}
    assert rows["verify/ask_customer"] == "Verify identity › Ask for the customer id"
    assert "outcome denied (as expected)" in dock.status.text()


def test_status_names_the_expected_end_when_the_run_ends_elsewhere(qtbot, open_main_window):
    win = open_parent(open_main_window)
    dock = win.simulation.dock
    journey = ("ask_order", "verify/ask_customer", "verify/verified", "refund", "refunded")
    dock.select(journey=journey_index(dock, *journey), scenario="correct", agent="scripted")
    dock.run()
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert "outcome refunded (as expected)" in dock.status.text()
    # the same outcome at another end node is not what the scenario expected
    dock.scenario.expected["end_node"] = "verify/verified"
    dock._show_snapshot(dock.snapshot)
    assert "outcome refunded (expected refunded at Verify identity › verified)" \
        in dock.status.text()


def where(chat, text: str):
    """The viewport rectangle of the first character after the start of `text` in the chat."""
    found = chat.document().find(text)
    assert not found.isNull(), text
    found.setPosition(found.selectionStart() + 1)
    chat.setTextCursor(found)
    chat.ensureCursorVisible()
    return chat.cursorRect(found)
