"""Running one scenario: agent + scripted user + mocked tools -> a trace tagged with the scenario."""

from __future__ import annotations

from typing import Any, Callable

from .agents import make_agent
from .compiled import CompiledSop
from .orchestrator import Orchestrator
from .scenarios import Scenario
from .tools import MockTools, Override
from .trace import Trace
from .users import ScriptedUser


def orchestrator_for(cs: CompiledSop, scenario: Scenario, agent: Any = "scripted", *,
                     seed: int = 0, user: Any = None, override: Override = None,
                     max_turns: int = 40, checks: list | None = None,
                     agent_options: dict | None = None, allow_live: bool = False,
                     **kwargs) -> Orchestrator:
    """An orchestrator ready to step through `scenario` (the GUI steps it; batch runs it).
    `allow_live`: tools marked live call their real endpoint (default: mocked, with a note)."""
    if isinstance(agent, str):
        agent = make_agent(agent, cs, **(agent_options or {}))
    user = user if user is not None else ScriptedUser.from_scenario(scenario)
    tools = MockTools(cs.tools, scenario.responses, override, allow_live=allow_live)
    return Orchestrator(cs, agent, user, tools, seed=seed, max_turns=max_turns, checks=checks,
                        meta={"scenario": scenario.id, "scenario_type": scenario.type},
                        **kwargs)


def run_scenario(cs: CompiledSop, scenario: Scenario, agent: Any = "scripted",
                 cancel=None, **options) -> Trace:
    return orchestrator_for(cs, scenario, agent, **options).run(cancel)


AgentFactory = Callable[[CompiledSop], Any]
