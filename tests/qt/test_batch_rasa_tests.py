"""The batch dialog runs a Rasa e2e tests file (like the CSV test set) and shows each test case
as passed, failed or not applicable (as `bench --rasa-tests` does)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop

from qt_helpers import FIXTURES, SAMPLES, TIMEOUT

SAMPLE = SAMPLES / "order_return.sop.json"
TESTS = FIXTURES / "rasa" / "order_return" / "e2e_tests.yml"


def open_dialog(open_main_window):
    win = open_main_window(Document(load_sop(SAMPLE), SAMPLE), simulation=True, show=False)
    dialog = win.simulation.open_batch()
    dialog.store_link = None  # nothing stored: the test checks the tables
    dialog.source.setCurrentIndex(dialog.source.findData("rasa"))
    return dialog


def test_rasa_tests_file_shows_passed_failed_not_applicable(qtbot, open_main_window):
    dialog = open_dialog(open_main_window)
    qtbot.keyClicks(dialog.rasa_path, str(TESTS))
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        qtbot.mouseClick(dialog.run_button, Qt.LeftButton)
    assert dialog.rasa_label.isVisibleTo(dialog)
    assert dialog.rasa_label.text() == \
        "Rasa test cases: 3 passed, 0 failed, 1 not applicable"
    cases = {dialog.rasa_cases.item(r, 0).text(): (dialog.rasa_cases.item(r, 2).text(),
                                                    dialog.rasa_cases.item(r, 3).text())
             for r in range(dialog.rasa_cases.rowCount())}
    assert cases["track_my_order"] == ("not applicable", "starts the flow 'track_order'")
    assert sorted(result for result, _ in cases.values()) == \
        ["not applicable", "passed", "passed", "passed"]
    assert dialog.results.rowCount() == 3  # the applicable cases ran


def test_rasa_source_without_a_file_says_so(qtbot, open_main_window):
    dialog = open_dialog(open_main_window)
    qtbot.mouseClick(dialog.run_button, Qt.LeftButton)
    assert dialog.eta.text() == "Cannot start: choose a Rasa e2e tests file first"
    assert not dialog.rasa_label.isVisibleTo(dialog)
