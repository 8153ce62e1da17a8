"""Agent-S in the GUI takes the store's tool library as its action repository, in the simulation
dock and in the batch dialog, like `sopstudio simulate` and `bench` (engine.session.agent_extras)."""

from __future__ import annotations

from fake_llm_server import FakeLLMServer, reply

from sopstudio.core.model import Tool
from sopstudio.qt.sim.settings import Profile, save_profiles

from qt_helpers import TIMEOUT

# Shares many words with the first step ("Check user status: ask for the seller id and check
# the account status…"), so the top-k retrieval ranks it among the first.
LIBRARY_TOOL = Tool(name="lookup_seller_history",
                    description="Check the seller account status history by seller id.")


def offered(server: FakeLLMServer) -> set[str]:
    """Every function offered (the profiles run unguided: all retrieved tools are offered)."""
    return {t["function"]["name"] for r in server.requests for t in r.get("tools", [])}


def test_the_docks_agent_s_is_offered_the_library(qtbot, make_dock, store_link):
    store_link.store().library.add(LIBRARY_TOOL)
    dock = make_dock("listing_blocked.sop.json")
    with FakeLLMServer(handler=lambda body: reply("Hello.")) as server:
        save_profiles(dock.settings, [Profile("local", server.url, "fake-model", guidance="off")])
        dock.refresh_profiles()
        dock.select(journey=0, scenario="correct", agent="agent-s", profile="local")
        dock.run()
        qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert "lookup_seller_history" in offered(server)
    assert "lookup_seller_history" not in {t.name for t in dock.session.sop.tools}


def test_the_batch_dialogs_agent_s_is_offered_the_library(qtbot, sim_window, store_link):
    store_link.store().library.add(LIBRARY_TOOL)
    sim = sim_window.simulation
    with FakeLLMServer(handler=lambda body: reply("Hello.")) as server:
        save_profiles(sim_window.settings, [Profile("local", server.url, "fake-model", guidance="off")])
        dialog = sim.open_batch()
        dialog.source.setCurrentIndex(dialog.source.findData("covering"))
        for kind, box in dialog.type_boxes.items():
            box.setChecked(kind == "correct")
        dialog.agent.setCurrentText("agent-s")
        dialog.workers.setValue(1)
        with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT * 3):
            assert dialog.start()
    assert dialog.result.results
    assert "lookup_seller_history" in offered(server)

