"""Prompt exports (`export --to spa-prompt | dpa-prompts`): the agents' own prompt templates.

The prompts themselves are built by `engine.prompts`, the module the simulated agents use, so
what is exported is what was simulated. The templates keep their named placeholders for run-time
values (`{known_information}`); the dpa-prompts bundle lists them under `placeholders`.
"""

from __future__ import annotations

from ..core.index import SopIndex
from ..core.model import SOP
from ..engine.prompts import PLACEHOLDERS, dpa_prompt, ordered_nodes, spa_prompt
from .jsonutil import dump_json
from .toolspecs import openai_tool


def export_spa_prompt(sop: SOP) -> str:
    return spa_prompt(sop) + "\n"


def export_dpa_prompts(sop: SOP) -> str:
    nodes = []
    index = SopIndex(sop)
    for node in ordered_nodes(sop, index):
        tools = [openai_tool(index.tools[n]) for n in node.tools if n in index.tools]
        nodes.append({"id": node.id, "title": node.title, "kind": node.kind,
                      "prompt": dpa_prompt(sop, node), "tools": tools,
                      "transitions": [{"edge": e.id, "target": e.target, "when": e.when,
                                       "on": e.on} for e in index.out_edges(node.id)]})
    return dump_json({"sop": sop.id, "title": sop.title, "start": sop.start,
                      "placeholders": dict(PLACEHOLDERS), "nodes": nodes})
