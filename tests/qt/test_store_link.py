"""The link to the store: a store that cannot be opened is said in the status bar and in the
docks that need it, saving still writes the file, and the link is an object of the window."""

from __future__ import annotations

from sopstudio.core.io import load_sop
from sopstudio.qt.store_link import StoreLink

from qt_helpers import make_sop


def test_an_unopenable_store_is_reported_not_raised(qtbot, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store's folder should be")
    monkeypatch.setenv("SOPSTUDIO_DB", str(blocker / "store.sqlite"))
    link = StoreLink()
    with qtbot.waitSignal(link.failed) as failed:
        assert link.store() is None
    assert failed.args[0].startswith("Store unavailable (opening): ")
    assert link.last_error and link.library_tools() == [] and link.library_tool("x") is None


def test_the_window_says_why_no_version_was_recorded(window, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("SOPSTUDIO_DB", str(blocker / "store.sqlite"))
    assert window.files.save_to(tmp_path / "saved.sop.json")
    assert load_sop(tmp_path / "saved.sop.json").id == make_sop().id  # the file is written
    assert "no version recorded" in window.statusBar().currentMessage()
    window.history.refresh()
    assert window.history.status.text().startswith("No store: ")
