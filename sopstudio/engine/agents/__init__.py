"""Agents behind one interface (see base.py). `make_agent` builds one by name (`AGENT_KINDS`).

`scripted` (the offline oracle) is built in. The LLM agents, over an OpenAI-compatible endpoint,
are imported lazily so the offline engine never needs `openai`: `dpa` (dpa.py), `spa` (spa.py),
`sop-agent` (sop_agent.py), `react` (react.py), `agent-s` (agent_s.py) and `marco` (marco.py),
each constructed as ``Class(compiled, client=..., settings=..., **options)``.

Each LLM agent also says what it sends: `requests(ctx)` lists the model call(s) of the decision
at `ctx` as `llm_common.Request`s (label, messages, functions, tool_choice), built by the code its
`next_action` sends through, so the GUI's prompt pane (engine/session.py `prompt_text`) shows
exactly what the model receives. The agents with function calls build their prompt export too:
`prompt_bundle(sop)` in dpa.py, sop_agent.py, agent_s.py and marco.py (serialised by
formats/prompts.py).
"""

from __future__ import annotations

import importlib

from ..compiled import CompiledSop, EngineError
from .base import Action, Agent, AgentContext, AgentError, Check  # noqa: F401
from .scripted import ScriptedAgent

# name -> (module in this package, class), imported lazily; the scripted agent is built in.
AGENTS: dict[str, tuple[str, str] | None] = {"scripted": None, "dpa": ("dpa", "DpaAgent"),
                                              "spa": ("spa", "SpaAgent"),
                                              "sop-agent": ("sop_agent", "SopAgent"),
                                              "react": ("react", "ReactAgent"),
                                              "agent-s": ("agent_s", "AgentSAgent"),
                                              "marco": ("marco", "MarcoAgent")}
AGENT_KINDS: tuple[str, ...] = tuple(AGENTS)  # the one list of agent names (CLI, GUI)


def make_agent(name: str, compiled: CompiledSop, **options):
    if name == "scripted":
        return ScriptedAgent(compiled)
    entry = AGENTS.get(name)
    if entry is None:
        raise EngineError(f"unknown agent '{name}' (choose from {', '.join(AGENTS)})")
    module_name, class_name = entry
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
        cls = getattr(module, class_name)
    except (ImportError, AttributeError) as error:
        raise EngineError(f"agent '{name}' is not available in this build ({error})") from None
    return cls(compiled, **options)
