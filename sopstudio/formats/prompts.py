"""Prompt exports: the agents' own prompt templates and function definitions, serialised.

    spa-prompt          the Static-Prompt Agent's system prompt (text)
    react-prompt        the ReAct baseline's system prompt (text)
    dpa-prompts         per node: the DPA prompt, its tools and the control functions (JSON)
    sop-agent-prompts   the DPA bundle plus, at branching nodes, the branch prompt and
                        `choose_branch` (JSON)
    agent-s-prompts     per node: the state-tracking prompt and `update_state`, the action
                        prompt, the retrieved top-k tools and the controls (JSON)
    marco-prompts       the intent prompt, `classify_intent` and the entry points, then the
                        per-node DPA prompts (JSON)

Nothing here builds a prompt or a function: the templates come from `engine.prompts` and each
bundle from its agent's module (`prompt_bundle(sop)` in engine/agents/), the code the simulated
agents send from, so what is exported is what was simulated. Templates keep their named
placeholders for run-time values (`{known_information}`, agent-s also `{tracked_state}`); each
bundle lists them under `placeholders`. The functions are those offered unguided.
"""

from __future__ import annotations

from ..core.model import SOP
from ..engine.agents import agent_s, dpa, marco, sop_agent
from ..engine.prompts import react_prompt, spa_prompt
from .jsonutil import dump_json

# bundle format -> the agent module whose `prompt_bundle(sop)` builds it
BUNDLES = {"dpa-prompts": dpa, "sop-agent-prompts": sop_agent, "agent-s-prompts": agent_s,
           "marco-prompts": marco}


def export_spa_prompt(sop: SOP) -> str:
    """The SPA's system prompt (agents/spa.py), placeholders unfilled."""
    return spa_prompt(sop) + "\n"


def export_react_prompt(sop: SOP) -> str:
    """The ReAct baseline's system prompt (agents/react.py), placeholders unfilled."""
    return react_prompt(sop) + "\n"


def export_bundle(sop: SOP, fmt: str) -> str:
    """One of the JSON prompt bundles (`BUNDLES`), as its agent module builds it."""
    return dump_json(BUNDLES[fmt].prompt_bundle(sop))
