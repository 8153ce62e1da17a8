"""A stored run replays one step at a time, event for event, with its seed; the simulation
session's replay reaches the same outcome."""

from __future__ import annotations

from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.orchestrator_replay import replay_orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser
from sopstudio.engine.session import SimulationSession

from helpers import LISTING_RESPONSES, LISTING_SEED


def test_replay_orchestrator_reproduces_a_run_step_by_step():
    cs = CompiledSop(listing_blocked())
    original = Orchestrator(cs, ScriptedAgent(cs), ScriptedUser(LISTING_SEED),
                            MockTools(cs.tools, LISTING_RESPONSES), seed=7).run()
    again = replay_orchestrator(cs, original.to_dict())
    events = []
    while (event := again.step()) is not None:
        events.append(event)
    assert [e.to_dict() for e in events] == [e.to_dict() for e in original.events]
    assert again.trace.meta["seed"] == 7
    replayed = SimulationSession(cs, None, lambda: None, recorded=original).run()
    assert replayed.outcome == original.outcome
