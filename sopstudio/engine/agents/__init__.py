"""Agents behind one interface (see base.py). `make_agent` builds one by name.

`scripted` is built in; `dpa` and `spa` (LLM agents over an OpenAI-compatible endpoint) live in
agents/dpa.py and agents/spa.py, imported lazily so the offline engine never needs `openai`.
They are constructed as ``DpaAgent(compiled, **options)`` / ``SpaAgent(compiled, **options)``.
"""

from __future__ import annotations

import importlib

from ..compiled import CompiledSop, EngineError
from .base import Action, Agent, AgentContext, AgentError, Check  # noqa: F401
from .scripted import ScriptedAgent

# name -> (module in this package, class), imported lazily; the scripted agent is built in.
AGENTS: dict[str, tuple[str, str] | None] = {"scripted": None, "dpa": ("dpa", "DpaAgent"),
                                              "spa": ("spa", "SpaAgent")}
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
