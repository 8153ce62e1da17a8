"""The conversation with a model, seen through a fake client that records every request (no
HTTP): the SPA agent's system prompt is the exported prompt plus the agent's own control
paragraph; the LLM user's QUIT token ends the run as stopped."""

from __future__ import annotations

from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.llm_user import QUIT, LLMUser
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser
from sopstudio.formats import export_sop

from helpers import LISTING_RESPONSES, LISTING_SEED, RecordingModel


def test_spa_system_prompt_is_the_exported_prompt_with_its_placeholder_filled():
    sop = listing_blocked()
    client = RecordingModel(["Hello."])
    agent = SpaAgent(client=client)
    orch = Orchestrator(CompiledSop(sop), agent, ScriptedUser(LISTING_SEED), max_turns=1)
    orch.run()
    system = client.requests[0][0]["content"]
    exported = export_sop(sop, "spa-prompt").rstrip("\n")
    # one prompt: the export is the agent's template, its placeholder filled at run time
    assert system == exported.replace("{known_information}", "(nothing yet)")
    assert "finish_conversation" in exported


def test_llm_user_quit_token_ends_the_run_stopped():
    cs = CompiledSop(listing_blocked())
    user = LLMUser(RecordingModel(["My listing is blocked.", QUIT]), "unblock my listing",
                   LISTING_SEED)
    trace = Orchestrator(cs, ScriptedAgent(cs), user, MockTools(cs.tools, LISTING_RESPONSES)).run()
    assert trace.outcome == "stopped"
    end = trace.events[-1]
    assert end.type == "end" and end.text == "user-quit"
    assert trace.events[-2].type == "user" and trace.events[-2].text == QUIT
    assert not trace.tool_trace
