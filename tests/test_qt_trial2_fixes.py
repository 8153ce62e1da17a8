"""Second GUI trial fixes: why a run ended, accepted values in the input hint, free placement of
new nodes, coverage counting missed expectations, unknown names in conditions, batch dialog."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QSettings

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.core.model import SOP, Edge, Node, Variable
from sopstudio.engine.trace import Event, Trace
from sopstudio.qt.canvas.placement import free_spot
from sopstudio.qt.inspector.condition_edit import unknown_names_warning
from sopstudio.qt.main_window import MainWindow
from sopstudio.qt.sim_accepted import accepted_values
from sopstudio.qt.sim_batch import BatchDialog
from sopstudio.qt.sim_chat import plain_line
from sopstudio.qt.sim_coverage import coverage_from_results
from sopstudio.qt.sim_dock_build import asked_hint
from sopstudio.qt.sim_settings import ConnectionFailed, Profile, check_connection

from test_qt_canvas import make_sop

SAMPLE = Path(__file__).resolve().parents[1] / "sample_sops" / "telecom_troubleshooting.sop.json"


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    win = MainWindow(Document(make_sop(), tmp_path / "t.sop.json"), settings)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.session.mark_saved()
    win.close()
    win.deleteLater()


# -- 1. why the run ended, accepted values ---------------------------------------------------
def test_end_line_shows_code_and_reason():
    event = {"type": "end", "node": "ask_issue", "outcome": "technical-issue",
             "code": "no-matching-edge",
             "text": "no branch of 'Classify the issue' accepts issue_type='yes'"}
    line = plain_line(event, {"ask_issue": "Classify the issue"})
    assert line == ("End: technical-issue at Classify the issue — [no-matching-edge] "
                    "no branch of 'Classify the issue' accepts issue_type='yes'")
    assert plain_line({"type": "end", "node": "x", "outcome": "resolved"}, {}) == \
        "End: resolved at x"


def test_accepted_values_from_enum_and_from_conditions():
    sop = load_sop(SAMPLE)
    assert sorted(accepted_values(sop, "ask_issue", "issue_type")) == ["mobile_data", "no_service"]
    plain = SOP(id="p", title="P", start="a", variables=[Variable(name="plan")],
                nodes=[Node(id="a", ask=["plan"]), Node(id="b", kind="end"),
                       Node(id="c", kind="end"), Node(id="d", kind="end")],
                edges=[Edge(id="e1", source="a", target="b", when="plan == 'gold'"),
                       Edge(id="e2", source="a", target="c", when="plan in ['silver', 'bronze']"),
                       Edge(id="e3", source="a", target="d", when="else")])
    assert accepted_values(plain, "a", "plan") == ["gold", "silver", "bronze"]
    assert accepted_values(plain, "b", "plan") == []


def test_asked_hint_lists_accepted_values():
    hint = asked_hint(["issue_type"], "What is the issue?",
                      {"issue_type": ["no_service", "mobile_data"]})
    assert hint.endswith("(one of: mobile_data, no_service)")
    assert "one of" not in asked_hint(["x"], "X?", {"x": []})
    pairs = asked_hint(["a", "b"], "A and B?", {"a": ["1", "2"]})
    assert "a=… (one of: 1, 2), b=…" in pairs


# -- 2. free placement -----------------------------------------------------------------------
def _overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_free_spot_avoids_existing_rects():
    assert free_spot((0, 0), (100, 50), []) == (0, 0)
    taken = [(-60, -40, 120, 80)]
    x, y = free_spot((0, 0), (100, 50), taken, margin=10)
    box = (x - 60, y - 35, 120, 70)
    assert not _overlap(box, taken[0])
    assert abs(x) + abs(y) < 300  # still near the centre


def test_add_at_centre_never_drops_a_node_on_another(window):
    for kind in ("task", "decision", "end", "task"):
        window.add_at_centre(kind)
    rects = [item.mapRectToScene(item.body_rect()) for item in window.scene.nodes.values()]
    assert len(rects) == 8
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)


# -- 3. coverage counts missed expectations --------------------------------------------------
def _result(outcome, expected, events, scenario_type="correct", failing=None, responses=None):
    trace = Trace(events=[Event(kind, node=node, index=i, **fields)
                          for i, (kind, node, fields) in enumerate(events)],
                  outcome=outcome, path=[e[1] for e in events if e[0] == "transition"])
    scenario = SimpleNamespace(type=scenario_type, expected={"outcome": expected},
                               failing=failing, responses=responses or {})
    return SimpleNamespace(trace=trace, scenario=scenario)


def test_coverage_counts_only_runs_that_missed_their_expectations():
    expected_failure = _result("technical-issue", "technical-issue", [
        ("transition", "check", {}),
        ("tool_result", "check", {"tool": "check_status", "result": {"error": "api_error"}}),
        ("end", "check", {"outcome": "technical-issue"})],
        scenario_type="failing-function", failing={"tool": "check_status"})
    missed = _result("technical-issue", "resolved", [
        ("transition", "ask", {}), ("end", "ask", {"outcome": "technical-issue"})])
    unexpected_error = _result("resolved", "resolved", [
        ("transition", "check", {}),
        ("tool_result", "check", {"tool": "check_status", "result": {"error": "timeout"}}),
        ("end", "ok", {"outcome": "resolved"})])
    coverage = coverage_from_results([expected_failure, missed, unexpected_error])
    assert coverage["runs"] == 3
    assert coverage["nodes"] == {"check": 2, "ask": 1}
    assert coverage["failed_nodes"] == {"ask": 1, "check": 1}
    assert coverage_from_results([expected_failure])["failed_nodes"] == {}


def test_legend_explains_failed(qtbot):
    from PySide6.QtWidgets import QLabel

    from sopstudio.qt.sim_overlay import CoverageLegend
    legend = CoverageLegend()
    qtbot.addWidget(legend)
    labels = [lab.text() for lab in legend.findChildren(QLabel)]
    assert "runs that missed their expected outcome" in labels


# -- 4. unknown names in conditions ----------------------------------------------------------
def test_unknown_names_warning_suggests_the_closest():
    names = ["account", "status"]
    assert unknown_names_warning("status == 'ok'", names) == ""
    assert unknown_names_warning("else", names) == ""
    assert unknown_names_warning("status ==", names) == ""  # syntax error shown elsewhere
    warning = unknown_names_warning("statuss == 'ok' && no_such_var == 1", names)
    assert warning == ("Warning: not available at this step: 'no_such_var', "
                       "'statuss' (did you mean 'status'?)")


def test_condition_warning_is_inline_and_does_not_block_commit(window, qtbot):
    window.scene.select_ids([], ["e2"])
    form = window.inspector.form("edge")
    assert not form.warning.isVisibleTo(form)
    form.condition.selectAll()
    qtbot.keyClicks(form.condition, "no_such_var == 1")
    assert form.warning.isVisibleTo(form)
    assert "'no_such_var'" in form.warning.text()
    form.condition.editingFinished.emit()
    assert window.session.sop.edge("e2").when == "no_such_var == 1"


# -- 5. batch dialog and connection test -----------------------------------------------------
def test_batch_profile_box_disabled_for_scripted_agent(window):
    dialog = BatchDialog(window.session, window.settings, window)
    dialog.agent.setCurrentText("scripted")
    assert not dialog.profile.isEnabled()
    other = next(dialog.agent.itemText(i) for i in range(dialog.agent.count())
                 if dialog.agent.itemText(i) != "scripted")
    dialog.agent.setCurrentText(other)
    assert dialog.profile.isEnabled()
    dialog.close()


def test_connection_without_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("SOPSTUDIO_TEST_NO_KEY", raising=False)
    with socket.socket() as sock:  # a port on 127.0.0.1 where nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    profile = Profile("p", f"http://127.0.0.1:{port}/v1", "m", api_key_env="SOPSTUDIO_TEST_NO_KEY")
    with pytest.raises(ConnectionFailed) as caught:
        check_connection(profile)
    assert str(caught.value).startswith("no key: SOPSTUDIO_TEST_NO_KEY is not set; "
                                        "connection error: ")
