"""The batch dialog compares agents: tick two agents, both run the same scenarios, and one
summary table lists the metrics by scenario type and agent (as `bench --agents` does)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.qt.sim.settings import Profile, save_profiles

from fake_llm_server import FakeLLMServer, reply
from qt_helpers import FIXTURES, TIMEOUT

PARENT = FIXTURES / "subflows" / "refund.sop.json"


def table_cells(table) -> list[dict]:
    header = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    return [{h: table.item(r, c).text() for c, h in enumerate(header)}
            for r in range(table.rowCount())]


def test_two_ticked_agents_fill_one_comparison_table(qtbot, open_main_window, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    win = open_main_window(Document(load_sop(PARENT), PARENT), simulation=True, show=False)
    with FakeLLMServer(handler=lambda body: reply("Hello, how can I help?")) as server:
        save_profiles(win.settings, [Profile("local", server.url, "fake-model")])
        dialog = win.simulation.open_batch()
        qtbot.mouseClick(dialog.compare_boxes["scripted"], Qt.LeftButton)
        assert not dialog.compared()  # one ticked agent is no comparison
        qtbot.mouseClick(dialog.compare_boxes["spa"], Qt.LeftButton)
        assert dialog.compared() == ("scripted", "spa")
        assert not dialog.agent.isEnabled() and dialog.profile.isEnabled()
        dialog.store_link = None  # nothing stored: the test checks the tables
        with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT * 3):
            qtbot.mouseClick(dialog.run_button, Qt.LeftButton)
    rows = table_cells(dialog.summary)
    keys = [(r["Scenario type"], r["Agent"]) for r in rows]
    assert keys[:2] == [("overall", "scripted"), ("overall", "spa")]
    assert ("correct", "scripted") in keys and ("correct", "spa") in keys
    by_key = dict(zip(keys, rows))
    assert by_key[("overall", "scripted")]["TSR"] == "1.00"
    assert float(by_key[("overall", "spa")]["TSR"]) < 1.0  # a model that only chats
    assert by_key[("overall", "spa")]["Runs"] == by_key[("overall", "scripted")]["Runs"]
    runs = table_cells(dialog.results)
    assert {r["Agent"] for r in runs} == {"scripted", "spa"}
    assert len(runs) == 2 * int(by_key[("overall", "scripted")]["Runs"])
