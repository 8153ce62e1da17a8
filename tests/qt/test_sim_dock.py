"""The simulation dock: step a journey with the scripted agent and watch the canvas marks, type as
the user, edit a tool result, step back, and replay a stored run."""

from __future__ import annotations

import pytest

from sopstudio.qt.canvas.scene import SopScene
from sopstudio.qt.sim.panes import asked_hint
from sopstudio.qt.sim.overlay import SimOverlay
from sopstudio.qt.sim.runs import load_stored_run

from qt_helpers import TIMEOUT, journey_index, step_once


@pytest.fixture
def rig(make_dock):
    """The dock on listing_blocked, its snapshots drawn on a scene of the same SOP."""
    dock = make_dock("listing_blocked.sop.json")
    scene = SopScene()
    scene.rebuild(dock.session.sop)
    overlay = SimOverlay(scene)
    dock.snapshot_changed.connect(overlay.show_run)
    return dock, overlay, scene


def test_step_by_step_highlights_the_current_node(qtbot, rig):
    dock, overlay, scene = rig
    journey = ("check_user", "ask_listing", "check_listing", "end_inactive")
    dock.select(journey=journey_index(dock, *journey), scenario="correct", agent="scripted")
    seen = []
    while True:
        event = step_once(qtbot, dock)
        if event["type"] == "end":
            break
        assert overlay.current_node == dock.snapshot["node"]
        # the ring is drawn on the node item the scene holds for that id
        assert overlay.node_marks[overlay.current_node].parentItem() is \
            scene.nodes[overlay.current_node]
        if not seen or seen[-1] != overlay.current_node:
            seen.append(overlay.current_node)
        assert len(dock.events) < 60
    assert seen == list(journey)
    assert dock.snapshot["outcome"] == "resolved"
    assert overlay.current_node is None  # finished: no current node
    assert set(overlay.path_edges) == set(dock.snapshot["edges"]) and overlay.path_edges
    assert all(e in overlay.edge_marks for e in overlay.path_edges)
    assert any(line.startswith("Tool call check_user_status") for line in dock.chat_lines)
    assert dock.memory.rowCount() == len(dock.snapshot["memory"]) > 0


INACTIVE = ("check_user", "ask_listing", "check_listing", "end_inactive")


def test_operator_types_as_the_user(qtbot, rig):
    dock, overlay, _ = rig
    dock.select(journey=journey_index(dock, *INACTIVE), scenario="correct")
    dock.controls.as_user.setChecked(True)
    dock.run()
    qtbot.waitUntil(lambda: dock.waiting_for == "user", timeout=TIMEOUT)
    assert "seller_id" in dock.input_row.user_input.placeholderText()
    dock.input_row.user_input.setText("SLR4242")
    dock.input_row.send_button.click()  # answers the seller id; the agent then asks the listing id
    qtbot.waitUntil(lambda: dock.waiting_for == "user", timeout=TIMEOUT)
    assert "listing_id" in dock.input_row.user_input.placeholderText()
    dock.controls.as_user.setChecked(False)
    dock.send_user_text("listing_id=LST777")
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    typed = [e for e in dock.events if e["type"] == "user" and e.get("operator")]
    assert [e["values"] for e in typed] == [{"seller_id": "SLR4242"}, {"listing_id": "LST777"}]
    calls = [e for e in dock.events if e["type"] == "tool_call"]
    assert calls[0]["arguments"] == {"seller_id": "SLR4242"}
    assert "User (operator): SLR4242" in dock.chat_lines


def test_edited_tool_result_changes_the_branch(qtbot, rig):
    dock, overlay, _ = rig
    dock.select(journey=journey_index(dock, *INACTIVE), scenario="correct")
    dock.controls.edit_results.setChecked(True)
    dock.run()
    qtbot.waitUntil(lambda: dock.waiting_for == "tool", timeout=TIMEOUT)
    assert "check_user_status" in dock.tool_editor.title.text()
    dock.tool_editor.return_button.click()  # unchanged: no operator input recorded
    qtbot.waitUntil(lambda: dock.waiting_for == "tool", timeout=TIMEOUT)
    assert "check_listing_status" in dock.tool_editor.title.text()
    assert '"inactive"' in dock.tool_editor.text.toPlainText()
    dock.tool_editor.set_outputs({"listing_status": "active"})
    dock.tool_editor.return_button.click()
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert dock.snapshot["path"][-1] == "end_active"
    assert "e6" in overlay.path_edges and "e5" not in overlay.path_edges
    results = [e for e in dock.events if e["type"] == "tool_result"]
    assert "operator" not in results[0]
    assert results[1]["operator"]["original"]["outputs"]["listing_status"] == "inactive"
    assert any(line.endswith("(edited by operator)") for line in dock.chat_lines)


def test_forced_tool_error_marks_the_failing_node(qtbot, rig):
    dock, overlay, _ = rig
    dock.select(journey=journey_index(dock, *INACTIVE), scenario="correct")
    dock.controls.edit_results.setChecked(True)
    dock.run()
    qtbot.waitUntil(lambda: dock.waiting_for == "tool", timeout=TIMEOUT)
    dock.controls.edit_results.setChecked(False)  # only the first call is forced to fail
    dock.tool_editor.force_error("api_error")
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert "check_user" in overlay.failed_nodes
    assert overlay.node_marks["check_user"].dashed


def test_step_back_reruns_to_the_previous_event(qtbot, rig):
    dock, _, _ = rig
    dock.select(journey=journey_index(dock, *INACTIVE), scenario="correct")
    for _ in range(6):
        step_once(qtbot, dock)
    before = [dict(e) for e in dock.events]
    dock.step_back()
    qtbot.waitUntil(lambda: len(dock.events) == 5, timeout=TIMEOUT)
    assert dock.events == before[:5]
    assert dock.snapshot["node"] == before[4]["node"]
    step_once(qtbot, dock)
    assert dock.events == before


def test_finished_run_is_stored_and_replays_without_the_agent(qtbot, rig):
    dock, overlay, _ = rig
    dock.select(journey=journey_index(dock, *INACTIVE), scenario="correct")
    with qtbot.waitSignal(dock.run_finished, timeout=TIMEOUT) as finished:
        dock.run()
    live = [dict(e) for e in dock.events]
    assert dock.last_run_id is not None
    store = dock.store_link.store()
    trace, sop, scenario = load_stored_run(store, dock.last_run_id)
    assert scenario.type == "correct" and sop.id == dock.session.sop.id
    # Stored through store.traces: the exact final state (memory, variables too) comes back.
    ran = finished.args[0]
    assert ran.memory and trace.to_dict() == ran.to_dict()
    record = store.runs.load(dock.last_run_id)
    assert record.state["variables"] == ran.variables and record.metrics["correct"] is True
    dock.open_replay(trace, sop, scenario, title="stored")
    qtbot.waitUntil(lambda: dock.events == [] and dock.state == "idle", timeout=TIMEOUT)
    while dock.state != "finished":
        step_once(qtbot, dock)
    assert dock.events == live
    assert overlay.path_edges == ["e2", "e4", "e5"]


def test_asked_hint_lists_accepted_values():
    hint = asked_hint(["issue_type"], "What is the issue?",
                      {"issue_type": ["no_service", "mobile_data"]})
    assert hint.endswith("(one of: mobile_data, no_service)")
    assert "one of" not in asked_hint(["x"], "X?", {"x": []})
    pairs = asked_hint(["a", "b"], "A and B?", {"a": ["1", "2"]})
    assert "a=… (one of: 1, 2), b=…" in pairs
