"""Deployment prompts: the Static-Prompt Agent prompt (JourneyBench Appendix E) with every node
and tool, and the Dynamic-Prompt Agent bundle: one prompt, tool set and transition list per node.

`export_spa_prompt` is THE SPA prompt: the engine's SPA agent (engine/agents/spa.py) sends it
verbatim and only appends its control-function paragraph and the known values, so what is
exported is what is measured.
"""

from __future__ import annotations

from collections import deque

from ..core.model import SOP, Node
from .base import SopIndex
from .jsonutil import dump_json
from .toolspecs import openai_tool

FORMAT_GUIDE = "\n".join([  # verbatim from JourneyBench Appendix E
    "Format Guide:", "",
    "- Each section represents a node with its tools and description. Use only the tools listed "
    "in the section you are in.",
    "- Conditions from the previous node must be satisfied before proceeding to the next section",
    "- Sections are separated by long lines (-----)",
    "- Do not make additional tool calls if not explicitly requested by user.",
    "- Keep track of the section you are in and the tools available to you. Do not mix tools or "
    "descriptions from different sections.",
    "- After every tool use, communicate the result to the user and proceed if user requests it."])

SECTION_INTRO = ("Following contains a description of the node and the logical steps to be taken "
                 "within it. Proceed only if requested by the user. Do not consider it as an "
                 "instruction to carry out unless user request requires it.")
SEPARATOR = "-" * 5


def ordered_nodes(sop: SOP, index: SopIndex | None = None) -> list[Node]:
    """Breadth-first from the start, then any node the start does not reach."""
    index = index or SopIndex(sop)
    order, seen = [], set()
    queue = deque([sop.start] if sop.start and sop.start in index.nodes else [])
    while queue:
        node_id = queue.popleft()
        if node_id in seen:
            continue
        seen.add(node_id)
        order.append(index.nodes[node_id])
        queue.extend(e.target for e in index.out_edges(node_id) if e.target in index.nodes)
    return order + [n for n in sop.nodes if n.id not in seen]


def node_steps(node: Node) -> list[str]:
    steps = list(node.steps)
    if node.say:
        steps.append(f"Tell the user: {node.say}")
    steps += [f"Ask the user for {name}." for name in node.ask]
    steps += [f"Use the {tool} tool." for tool in node.tools]
    if node.kind == "end":
        steps.append(f"End the conversation (outcome: {node.outcome or 'done'}).")
    return steps


def _tool_line(node: Node, name: str) -> str:
    guard = node.tool_when.get(name)
    return (f"- {name} (requires the earlier tools to be successful and response field to meet "
            f"following condition: {guard})") if guard else f"- {name}"


def _section(sop: SOP, node: Node) -> list[str]:
    lines = [SECTION_INTRO, "", f"Description: {node.instructions or node.title}", "", "Steps:", ""]
    lines += [f"- {step}" for step in node_steps(node)] or ["- (none)"]
    lines += ["", "Tools:", ""]
    lines += [_tool_line(node, t) for t in node.tools] or ["- (none)"]
    return lines


def _condition(edge) -> str | None:
    when = (edge.when or "").strip()
    if edge.on == "failure":  # a failure edge often has no condition: say what it waits for
        fails = f"a tool of [{edge.source}] fails"
        return fails if not when or when == "else" else f"{fails} and {when}"
    return when or None


def _gate(sop: SopIndex, node: Node) -> list[str]:
    conditions = [c for c in (_condition(e) for e in sop.in_edges(node.id)) if c]
    if not conditions:
        return []
    joined = " or ".join("otherwise" if c.strip() == "else" else c for c in conditions)
    return [f"If {joined}:", "Then: Below section logic is accessible", "",
            "Else: Below section logic is not accessible", ""]


def export_spa_prompt(sop: SOP) -> str:
    lines = [FORMAT_GUIDE, ""]
    index = SopIndex(sop)
    for number, node in enumerate(ordered_nodes(sop, index)):
        if number:
            lines += [SEPARATOR] + _gate(index, node)
        lines += [f"Section: {node.title or node.id} [{node.id}]", ""]
        lines += _section(sop, node) + [""]
    tools = [t for t in sop.tools]
    if tools:
        lines += [SEPARATOR, "Tool reference:", ""]
        lines += [f"- {t.name}: {t.description}" for t in tools]
    return "\n".join(lines).rstrip() + "\n"


def dpa_prompt(sop: SOP, node: Node) -> str:
    """What the model sees at one node: its instructions and steps only (DPA, JourneyBench §4.1)."""
    lines = [f"You are following the procedure '{sop.title or sop.id}'. You are now at the step "
             f"'{node.title or node.id}'. Use only the tools listed for this step.",
             "", f"Description: {node.instructions or node.title}", "", "Steps:"]
    lines += [f"- {step}" for step in node_steps(node)] or ["- (none)"]
    return "\n".join(lines) + "\n"


def export_dpa_prompts(sop: SOP) -> str:
    nodes = []
    index = SopIndex(sop)
    for node in ordered_nodes(sop, index):
        tools = [openai_tool(t) for t in (index.tools.get(n) for n in node.tools) if t]
        nodes.append({"id": node.id, "title": node.title, "kind": node.kind,
                      "prompt": dpa_prompt(sop, node), "tools": tools,
                      "transitions": [{"edge": e.id, "target": e.target, "when": e.when,
                                       "on": e.on} for e in index.out_edges(node.id)]})
    return dump_json({"sop": sop.id, "title": sop.title, "start": sop.start, "nodes": nodes})
