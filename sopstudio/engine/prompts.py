"""THE prompts of the LLM agents, one module for simulation and export (DESIGN §6 "One prompt").

Every system prompt an agent sends is one of these templates, rendered:

- `spa_prompt(sop)`: the Static-Prompt Agent's prompt (JourneyBench Appendix E: every node a
  section with description, steps and tools, separated by lines, each gated by the conditions
  leading to it; then the control functions and the known information);
- `dpa_prompt(sop, node)`: the Dynamic-Prompt Agent's prompt for one node (its title,
  instructions, steps, what to say, what to collect, the known information, the action rules);
  sop-agent and marco send it too, within a node;
- `branch_prompt(sop, node)`: SOP-Agent's branch choice when a node with several success edges
  finishes (answered through `choose_branch`);
- `react_prompt(sop)`: SOP-Bench's ReAct baseline (the whole SOP, the tools, the text protocol);
- `agent_s_state_prompt` / `agent_s_action_prompt`: Agent-S's state-tracking call (answered
  through `update_state`) and its action call (the DPA prompt plus the tracked state);
- `marco_intent_prompt(sop, entries)`: MARCO's intent classifier (answered through
  `classify_intent`; no placeholder).

Templates keep named placeholders for run-time values: `KNOWN` = "{known_information}" in all but
the intent prompt, and `STATE` = "{tracked_state}" in the Agent-S action prompt (`PLACEHOLDERS`,
`STATE_PLACEHOLDERS` say what they hold); `render(template, variables)` fills `KNOWN`. The agents
(engine/agents/) build their requests from these templates, and their `prompt_bundle(sop)` puts
the same templates beside the functions they offer; `export --to spa-prompt | react-prompt |
dpa-prompts | sop-agent-prompts | agent-s-prompts | marco-prompts` (formats/prompts.py) writes
them: what is deployed is what was simulated.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Mapping

from ..core.index import SopIndex
from ..core.model import SOP, Node

KNOWN = "{known_information}"  # placeholder: the known values, one "- name = json" line each
NOTHING_KNOWN = "(nothing yet)"
PLACEHOLDERS = {KNOWN: "the known values, one '- name = value' line each, or " + NOTHING_KNOWN}

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


def _gate(index: SopIndex, node: Node) -> list[str]:
    conditions = [c for c in (_condition(e) for e in index.in_edges(node.id)) if c]
    if not conditions:
        return []
    joined = " or ".join("otherwise" if c.strip() == "else" else c for c in conditions)
    return [f"If {joined}:", "Then: Below section logic is accessible", "",
            "Else: Below section logic is not accessible", ""]


def _sections(sop: SOP) -> str:
    lines = [FORMAT_GUIDE, ""]
    sop_index = SopIndex(sop)
    for index, node in enumerate(ordered_nodes(sop, sop_index)):
        if index:
            lines += [SEPARATOR] + _gate(sop_index, node)
        lines += [f"Section: {node.title or node.id} [{node.id}]", ""]
        lines += _section(sop, node) + [""]
    tools = [t for t in sop.tools]
    if tools:
        lines += [SEPARATOR, "Tool reference:", ""]
        lines += [f"- {t.name}: {t.description}" for t in tools]
    return "\n".join(lines).rstrip()


SPA_CONTROLS = """You are a customer-support agent for "{title}", following the sections above.
Control functions:
- To ask the user for information, call ask_user; to tell the user something, reply with text.
- When you reach a final section, call finish_conversation with its section id (the id in
  brackets after the section title).
- If required information cannot be obtained, call stop_conversation with reason "blocked"."""


def spa_prompt(sop: SOP) -> str:
    """The SPA system prompt as a template (placeholder `KNOWN`)."""
    controls = SPA_CONTROLS.replace("{title}", sop.title or sop.id)
    return f"{_sections(sop)}\n\n{controls}\n\nKnown information:\n{KNOWN}"


DPA_RULES = """How to act (exactly one action per reply):
- To tell the user something, reply with plain text; the user answers next.
- To ask the user for information, call ask_user.
- To use a tool, call it with values the user gave or that are known. Never invent or guess
  a value; ask for it.
- If required information cannot be obtained (the user does not have it) or a tool failed and
  you cannot continue, call stop_conversation with reason "blocked" and tell the user why.
- When the work of this step is done, call finish_step with the values you learned from the
  conversation. You do not choose the next step: the system does."""


def dpa_prompt(sop: SOP, node: Node) -> str:
    """The DPA system prompt of one node as a template (placeholder `KNOWN`)."""
    parts = [f"You are a customer-support agent following the procedure \"{sop.title or sop.id}\""
             " one step at a time; the system moves you between steps.",
             f"Current step: {node.title or node.id}"]
    if node.instructions:
        parts.append("Instructions:\n" + node.instructions)
    if node.steps:
        parts.append("Steps:\n" + "\n".join(f"- {s}" for s in node.steps))
    if node.say:
        parts.append(f"Tell the user: {node.say}")
    if node.ask:
        parts.append("Information to collect from the user:\n" + "\n".join(
            _describe(sop, name) for name in node.ask))
    parts.append("Known information:\n" + KNOWN)
    if node.kind == "end":
        parts.append("This is a final step: tell the user the outcome, then call finish_step.")
    parts.append(DPA_RULES)
    return "\n\n".join(parts)


def _describe(sop: SOP, name: str) -> str:
    var = sop.variable(name)
    if var is None:
        return f"- {name}"
    extra = f" (one of {', '.join(map(str, var.enum))})" if var.enum else ""
    return f"- {name} ({var.type}){': ' + var.description if var.description else ''}{extra}"


def known_text(variables: Mapping[str, Any]) -> str:
    """The value of the `KNOWN` placeholder."""
    if not variables:
        return NOTHING_KNOWN
    return "\n".join(f"- {k} = {json.dumps(v, default=str)}" for k, v in variables.items())


def render(template: str, variables: Mapping[str, Any]) -> str:
    """A prompt template with its placeholders filled for a run's known values."""
    return template.replace(KNOWN, known_text(variables))


# -- SOP-Agent (branch choice) and ReAct (SOP-Bench baseline) ----------------------------------
BRANCH_FUNCTION = "choose_branch"


def branch_prompt(sop: SOP, node: Node) -> str:
    """SOP-Agent §3.3: the conditions of the node's branches as a structural prompt; the model
    answers by calling `choose_branch` with one edge id (template, placeholder `KNOWN`)."""
    lines = []
    for edge in sop.out_edges(node.id):
        if edge.on != "success":
            continue
        target = sop.node(edge.target)
        goal = (target.title or target.id) if target is not None else edge.target
        condition = "otherwise" if edge.is_else else (f"IF {edge.when}" if edge.when
                                                      else "always")
        lines.append(f"- {edge.id}: {condition} -> {goal}"
                     + (f" ({edge.label})" if edge.label else ""))
    return "\n\n".join([
        f"You follow the procedure \"{sop.title or sop.id}\". The step "
        f"\"{node.title or node.id}\" is done; choose the branch to take next.",
        "Branches (id: condition -> next step):\n" + "\n".join(lines),
        "Known information:\n" + KNOWN,
        f"Call {BRANCH_FUNCTION} with the id of the first branch whose condition holds for the "
        "known information (\"otherwise\" when none does)."])


REACT_FORMAT = """Use this format, one action per reply:
Thought: what to do next, following the procedure
Action: one of [{actions}]
Action Input: a JSON object with the action's arguments

After an Action you receive "Observation: ..." with its result. To talk to the customer, reply
"Final Answer: <message>" instead of an Action. Actions besides the tools:
- ask_user {{"question": "...", "variables": ["name", ...]}}: ask the customer for information;
- finish {{"end_section": "<id of the final section reached>"}}: the procedure is complete;
- stop {{"reason": "blocked", "message": "..."}}: required information cannot be obtained."""


def react_prompt(sop: SOP) -> str:
    """SOP-Bench's ReAct baseline: the whole SOP, the tools with their parameters, and the
    Thought/Action/Observation protocol (template, placeholder `KNOWN`)."""
    tools = "\n".join(f"- {t.name}: {t.description or t.name} parameters: "
                      f"{json.dumps(t.parameters.get('properties') or {})}" for t in sop.tools)
    actions = ", ".join([*(t.name for t in sop.tools), "ask_user", "finish", "stop"])
    return "\n\n".join([
        f"You are an agent executing the standard operating procedure \"{sop.title or sop.id}\".",
        "Procedure:\n" + _sections(sop), "Tools:\n" + (tools or "(none)"),
        REACT_FORMAT.format(actions=actions), "Known information:\n" + KNOWN])


# -- Agent-S (state tracking + action selection) ------------------------------------------------
STATE_FUNCTION = "update_state"
STATE = "{tracked_state}"  # placeholder of the Agent-S action prompt: the tracked state as JSON
STATE_PLACEHOLDERS = {STATE: "the tracked state as JSON: {\"values\": {name: value}, "
                             "\"complete\": true|false}, or {} before the first state update"}


def agent_s_state_prompt(sop: SOP, node: Node) -> str:
    """Agent-S's state-tracking call: read the conversation and execution memory, report the
    values the customer gave for this step and whether the step is complete (template)."""
    wanted = "\n".join(_describe(sop, name) for name in node.ask) or "(nothing to collect)"
    return "\n\n".join([
        f"You track the state of the procedure \"{sop.title or sop.id}\" at the step "
        f"\"{node.title or node.id}\".",
        "Values this step collects from the customer:\n" + wanted,
        "Known information:\n" + KNOWN,
        f"Call {STATE_FUNCTION} with the values the customer has stated in the conversation "
        "(never guess one) and whether the work of this step is complete."])


def agent_s_action_prompt(sop: SOP, node: Node) -> str:
    """Agent-S's action-selection call: the step's prompt plus the tracked state (template,
    placeholders `KNOWN` and `STATE`)."""
    return dpa_prompt(sop, node) + "\n\nTracked state (from the state tracker):\n" + STATE


# -- MARCO (intent classification) --------------------------------------------------------------
INTENT_FUNCTION = "classify_intent"
OUT_OF_DOMAIN = "out_of_domain"


def marco_intent_prompt(sop: SOP, entries: list[tuple[str, str]]) -> str:
    """MARCO's intent classifier: route the customer's request to one of the procedure's
    sub-procedures (`entries`: (id, description)), or out of domain."""
    listed = "\n".join(f"- {entry}: {text}" for entry, text in entries)
    return "\n\n".join([
        f"You classify the intent of a customer of \"{sop.title or sop.id}\".",
        "Sub-procedures (id: what it handles):\n" + listed,
        f"Call {INTENT_FUNCTION} with the id of the sub-procedure that handles the customer's "
        f"request, or {OUT_OF_DOMAIN} when none does (a request outside this service)."])
