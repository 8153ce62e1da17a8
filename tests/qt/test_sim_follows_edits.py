"""The simulation pane follows the document: journeys re-listed after edits (debounced), a live
run on the old SOP stopped with a plain note, engine errors as one plain line, and the worker
thread ended when the window closes."""

from __future__ import annotations

import pytest

from sopstudio.core.edits import RemoveNode
from sopstudio.engine.session import journey_choices
from sopstudio.qt.sim.dock import SOP_CHANGED_NOTE
from sopstudio.qt.sim.worker import plain_error

from qt_helpers import TIMEOUT


@pytest.fixture
def dock(make_dock):
    return make_dock("email_update.sop.json")


def listed(dock) -> list:
    return [c.journey for c in dock.choices]


def test_run_right_after_deleting_a_node_uses_the_new_document(qtbot, dock):
    assert any("ask_phone" in c.journey.nodes for c in dock.choices)
    assert dock.session.push(RemoveNode("ask_phone"))
    dock.select(journey=0, scenario="correct", agent="scripted")
    dock.run()  # pressed before the debounce fired: the list is brought up to date first
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert dock.events and dock.snapshot["outcome"]
    assert "ask_phone" not in dock.snapshot["path"]
    assert "KeyError" not in dock.status.text() and "Error" not in dock.status.text()
    assert "Agent:" in dock.chat.toPlainText()


def test_journey_list_and_counts_follow_edits_and_keep_the_selection(qtbot, dock):
    keep = next(i for i, c in enumerate(dock.choices)
                if i > 0 and "ask_phone" not in c.journey.nodes)
    kept = dock.choices[keep].journey
    dock.select(journey=keep)
    before = dock.choices_form.journey_label.text()
    assert dock.session.push(RemoveNode("ask_phone"))
    assert listed(dock) and any("ask_phone" in j.nodes for j in listed(dock))  # not yet: debounced
    qtbot.waitUntil(lambda: not any("ask_phone" in j.nodes for j in listed(dock)),
                    timeout=TIMEOUT)
    count, choices = journey_choices(dock.session.sop)
    assert listed(dock) == [c.journey for c in choices]
    assert dock.choices_form.journey_label.text().startswith(f"{count} journeys in all")
    assert dock.choices_form.journey_label.text() != before
    assert dock.choices[dock.choices_form.journey_box.currentIndex()].journey == kept
    assert dock.choices_form.journey_box.count() == len(choices)


def test_undo_brings_the_journeys_back(qtbot, dock):
    original = listed(dock)
    assert dock.session.push(RemoveNode("ask_phone"))
    qtbot.waitUntil(lambda: listed(dock) != original, timeout=TIMEOUT)
    dock.session.undo_stack.undo()
    qtbot.waitUntil(lambda: listed(dock) == original, timeout=TIMEOUT)


def test_a_run_in_progress_is_stopped_when_the_sop_changes(qtbot, dock):
    dock.select(journey=0, scenario="correct", agent="scripted")
    dock.controls.as_user.setChecked(True)
    dock.run()
    qtbot.waitUntil(lambda: dock.waiting_for == "user", timeout=TIMEOUT)
    assert dock.session.push(RemoveNode("ask_phone"))
    qtbot.waitUntil(lambda: SOP_CHANGED_NOTE in dock.chat_lines, timeout=TIMEOUT)
    assert dock.state == "finished" and dock.waiting_for is None
    assert "The SOP changed" in dock.chat.toPlainText()
    assert dock.status.text() == SOP_CHANGED_NOTE
    dock.controls.as_user.setChecked(False)
    dock.reset()  # a fresh run on the new document
    qtbot.waitUntil(lambda: dock.events == [] and dock.state == "idle", timeout=TIMEOUT)
    assert dock.chat_lines == []
    dock.run()
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert dock.snapshot["outcome"] == "resolved"
    assert all(n in {x.id for x in dock.session.sop.nodes} for n in dock.snapshot["path"])


def test_an_engine_error_is_one_plain_line(qtbot, dock):
    def broken():
        raise KeyError("e2")
    dock.controller.load(broken)
    qtbot.waitUntil(lambda: "e2" in dock.status.text(), timeout=TIMEOUT)
    text = dock.status.text()
    assert "KeyError" not in text and "\n" not in text
    assert text.startswith("The simulation stopped:") and text in dock.chat_lines
    assert plain_error(ValueError("bad value\nmore")) == "The simulation stopped: bad value"
    assert plain_error(RuntimeError()) == "The simulation stopped: RuntimeError"


def test_closing_the_window_ends_the_worker_thread(qtbot, sim_window):
    window = sim_window
    window.show()
    qtbot.waitExposed(window)
    dock = window.simulation.dock
    dock.controls.as_user.setChecked(True)  # the worker blocks, waiting for the operator
    dock.run()
    qtbot.waitUntil(lambda: dock.waiting_for == "user", timeout=TIMEOUT)
    thread = dock.controller.thread
    assert thread.isRunning()
    window.session.mark_saved()
    window.close()
    qtbot.waitUntil(lambda: not thread.isRunning(), timeout=TIMEOUT)
    assert dock.controller.shutdown() is True  # a second call is harmless
