"""The simulation dock drives the DPA agent through the real `openai` client against a local
OpenAI-compatible server started by the test; a tool outside the node is refused on screen."""

from __future__ import annotations

from fake_llm_server import FakeLLMServer, reply, tool

from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.scenarios import scenarios_for
from sopstudio.qt.sim.settings import Profile, save_profiles

from qt_helpers import TIMEOUT

INACTIVE = ("check_user", "ask_listing", "check_listing", "end_inactive")


def model_script(seed: dict) -> list:
    """A well-behaved model walking the 'listing inactive' journey, with one slip: it first
    tries a tool of another step, which the guardrail must refuse."""
    return [tool("ask_user", {"question": "What is your seller id?", "variables": ["seller_id"]}),
            tool("check_listing_status", {"listing_id": "LST-made-up"}),  # not in this node
            tool("check_user_status", {"seller_id": seed["seller_id"]}),
            tool("finish_step", {"values": {}}),
            tool("ask_user", {"question": "Which listing?", "variables": ["listing_id"]}),
            tool("finish_step", {"values": {}}),
            tool("check_listing_status", {"listing_id": seed["listing_id"]}),
            tool("finish_step", {"values": {}}),
            reply("Your listing is inactive, not blocked."),
            tool("finish_step", {"values": {}})]


def test_dpa_runs_a_journey_against_a_local_server(qtbot, make_dock):
    dock = make_dock("listing_blocked.sop.json")
    index = next(i for i, c in enumerate(dock.choices) if tuple(c.journey.nodes) == INACTIVE)
    scenario = scenarios_for(CompiledSop(dock.session.sop), dock.choices[index].journey, index,
                             ("correct",))[0]
    with FakeLLMServer(model_script(scenario.user["seed"])) as server:
        save_profiles(dock.settings, [Profile("local test", server.url, "fake-model", 0.0, "")])
        dock.refresh_profiles()
        dock.select(journey=index, scenario="correct", agent="dpa", profile="local test")
        assert dock.choices_form.profile_box.isEnabled()
        dock.run()
        qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
        requests = list(server.requests)
    assert dock.snapshot["outcome"] == "resolved"
    assert dock.snapshot["path"] == list(INACTIVE)
    guard = [e for e in dock.events if e["type"] == "guardrail"]
    assert [g["code"] for g in guard] == ["tool-not-in-node"]
    calls = [e["tool"] for e in dock.events if e["type"] == "tool_call"]
    assert calls == ["check_user_status", "check_listing_status"]  # the refused call never ran
    assert any(line.startswith("Guardrail [tool-not-in-node]") for line in dock.chat_lines)
    # DPA offers only the current node's tools (guided by default: the one legal now)
    offered = {t["function"]["name"] for t in requests[2]["tools"]}
    assert "check_user_status" in offered and "check_listing_status" not in offered
    assert len(requests) == 10
