"""Rasa CALM flows (`flows:` YAML, Rasa Pro 3.7+) imported as one SOP per flow, with the
domain's responses and slots (read by rasa_domain.py) filled in.

Mapping (Rasa's flow-steps reference): `collect` → a node that asks for the slot (its
`description` becomes the instructions, `utter`/`utter_ask_<slot>` the question, `rejections`
become a conditional re-ask loop through a node that says the rejection); `action: utter_*` → a
node that says the response text (from the domain when given, else the response name); a custom
`action` → a tool of that name, whose outputs are the slots later conditions read and nothing
else sets; `set_slots` → `set`; `call` → a `kind: "subflow"` node referring to `<flow>.sop.json`;
`link` → an end that names the linked flow; `noop` → a node with no actions; `next` (a step id,
`END`, nested steps, or `if`/`then`/`else` lists with nested steps) → edges; a step with only
`next` is a decision like `noop`. A flow guard (`if:`) becomes a first decision; `nlu_trigger`
intents (with their confidence thresholds) and slots' `initial_value`s are kept as text. A
response's buttons become a `rasa: buttons` note and a line of instructions; several variants
say the first. Whatever has no place in an SOP (`ask_before_filling`, `force_slot_filling`,
`reset_after_flow_ends`, `persisted_slots`, `always_include_in_prompt`, `run_pattern_completed`,
an `action_ask_<slot>`, keys this importer does not know) is named in an import note. Conditions are translated by rasa_conditions.py; one that cannot be is
kept as written (validation flags it as `bad-condition`) and noted. Each node carries a `rasa: <kind> <name>` note
that the e2e-test reader (engine/scenarios_rasa.py) uses to match `utter` and `action_executed`.
"""

from __future__ import annotations

import json
import re

from ..core.expr import quoted
from ..core.model import SOP, Edge, Node, Tool, ToolOutput, Variable
from ._expr import names_read
from .base import FormatError, ImportResult, quote, snake, unique
from .rasa_conditions import not_matching, translate_condition
from .rasa_domain import Domain, load_domain, read_yaml, stubbed_slots

END = "END"
# Rasa's own actions: they run inside Rasa, not as tools the SOP binds.
BUILTIN_ACTIONS = frozenset((
    "action_listen", "action_restart", "action_session_start", "action_default_fallback",
    "action_deactivate_loop", "action_revert_fallback_events", "action_two_stage_fallback",
    "action_back", "action_unlikely_intent", "action_extract_slots", "action_cancel_flow",
    "action_clean_stack", "action_correct_flow_slot", "action_run_slot_rejections",
    "action_trigger_chitchat", "action_trigger_search", "action_block_digressions",
    "action_continue_digression", "action_hangup", "action_repeat_bot_messages",
    "action_reset_routing"))
_SLOT_TYPES = {"text": "string", "bool": "boolean", "float": "number", "categorical": "string",
               "list": "list", "any": "string"}
STEP_KINDS = ("collect", "action", "set_slots", "call", "link", "noop")
# The keys each step kind may carry (beside `id`, `next`, `description`, `metadata`); any other
# key is named in an import note, never dropped silently.
_STEP_KEYS = {"collect": {"collect", "utter", "rejections", "ask_before_filling",
                          "reset_after_flow_ends", "force_slot_filling"},
              "action": {"action"}, "set_slots": {"set_slots", "reset_after_flow_ends"},
              "call": {"call"}, "link": {"link"}, "noop": {"noop"}, None: set()}
_COMMON_KEYS = {"id", "next", "description", "metadata"}
_FLOW_KEYS = {"name", "description", "if", "nlu_trigger", "steps", "always_include_in_prompt",
              "persisted_slots", "run_pattern_completed"}


def looks_like(data) -> bool:
    """A Rasa flows document: a mapping whose `flows` maps flow ids to mappings with `steps`."""
    flows = data.get("flows") if isinstance(data, dict) else None
    return isinstance(flows, dict) and bool(flows) and all(
        isinstance(f, dict) and "steps" in f for f in flows.values())


def looks_like_text(text: str) -> bool:
    """Cheap test on raw text (for format guessing): a top-level `flows:` key."""
    return re.search(r"^flows:\s*$", text, re.MULTILINE) is not None


# --- flows --------------------------------------------------------------------------------------

def flows_of(text: str, source: str) -> dict[str, dict]:
    data = read_yaml(text, source)
    if not looks_like(data):
        raise FormatError("not a Rasa flows file (expected a top-level 'flows:' mapping of flow "
                          "ids to flows with 'steps')", source=source)
    return {str(k): v for k, v in data["flows"].items()}


def import_flows(text: str, source: str, domain: Domain | None = None) -> list[ImportResult]:
    """One SOP per flow of a flows file (pattern flows included, marked in title/description)."""
    return [import_flow(flow_id, spec, domain or Domain())
            for flow_id, spec in flows_of(text, source).items()]


def import_project(sources: list[tuple[str, str]], domain: Domain | None = None
                   ) -> list[ImportResult]:
    """Every flow of several YAML files ((source, text) pairs, e.g. a project's data folder).
    Files that hold a domain (`responses:` / `slots:`) are merged into the domain unless one is
    given; other YAML files (NLU data, tests, config) are skipped. Flow ids are unique."""
    flows: dict[str, dict] = {}
    found = Domain()
    for source, text in sources:
        data = read_yaml(text, source)
        if isinstance(data, dict) and isinstance(data.get("stub_custom_actions"), dict):
            found.stubbed.update(stubbed_slots(data["stub_custom_actions"]))
        if looks_like(data):
            for flow_id, spec in data["flows"].items():
                if str(flow_id) in flows:
                    raise FormatError(f"flow '{flow_id}' is defined twice", source=source)
                flows[str(flow_id)] = spec
        elif isinstance(data, dict) and ("responses" in data or "slots" in data):
            found.merge(load_domain(text, source))
    if not flows:
        raise FormatError("no Rasa flows found (no YAML file with a top-level 'flows:')")
    use = domain if domain is not None else found
    use.stubbed = {**found.stubbed, **use.stubbed}
    return [import_flow(flow_id, spec, use) for flow_id, spec in flows.items()]


def import_rasa(text: str, source: str = "<paste>") -> ImportResult:
    """The registry's entry: the first flow that is not a pattern (the others are listed)."""
    results = import_flows(text, source)
    main = next((r for r in results if not r.sop.id.startswith("pattern_")), results[0])
    others = [r.sop.id for r in results if r is not main]
    if others:
        main.notes.append(f"the file holds {len(results)} flows; imported '{main.sop.id}' "
                          f"(import to a folder with --from rasa -o DIR for all: "
                          f"{', '.join(others)})")
    return main


def import_flow(flow_id: str, spec: dict, domain: Domain) -> ImportResult:
    if not isinstance(spec, dict) or not isinstance(spec.get("steps"), list):
        raise FormatError(f"flow '{flow_id}': 'steps' must be a list of steps")
    builder = _FlowBuilder(flow_id, spec, domain)
    sop = builder.build()
    return ImportResult(sop, builder.notes, "rasa")


def _intent_name(intent) -> str:
    """An `nlu_trigger` intent: a name, or {name, confidence_threshold} (the threshold kept in
    the text: `name (confidence at least 0.8)`)."""
    if not isinstance(intent, dict):
        return str(intent)
    threshold = intent.get("confidence_threshold")
    return str(intent.get("name")) + (f" (confidence at least {threshold})"
                                      if threshold is not None else "")


def _is_step(item) -> bool:
    return isinstance(item, dict) and any(kind in item for kind in STEP_KINDS)


class _FlowBuilder:
    def __init__(self, flow_id: str, spec: dict, domain: Domain):
        self.flow_id, self.spec, self.domain = flow_id, spec, domain
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.tools: dict[str, Tool] = {}
        self.collected: dict[str, Variable] = {}
        self.set_names: set[str] = set()
        self.taken: set[str] = set()
        self.node_of: dict[int, str] = {}   # id(step dict) -> node id
        self.by_step_id: dict[str, str] = {}
        self.notes: list[str] = []
        self.end_id: str | None = None

    def build(self) -> SOP:
        steps = self.spec["steps"]
        self._assign(steps)
        first = self._emit(steps, None) if steps else self._end()
        start = self._guard(first)
        self._infer_outputs()
        self._bound_loops(start)
        self._flow_properties()
        pattern = self.flow_id.startswith("pattern_")
        title = str(self.spec.get("name") or self.flow_id.replace("_", " "))
        description = str(self.spec.get("description") or "")
        if pattern:
            title, description = f"[pattern] {title}", f"Rasa pattern flow. {description}".strip()
        triggers = [_intent_name(t.get("intent")) for t in self.spec.get("nlu_trigger") or []
                    if isinstance(t, dict)]
        if triggers:
            description += " Started by the intents: " + ", ".join(map(str, triggers)) + "."
        return SOP(id=self.flow_id, title=title, description=description.strip(), start=start,
                   variables=self._variables(), tools=list(self.tools.values()),
                   nodes=self.nodes, edges=self.edges)

    # ids first, so `next: <step id>` can point forward
    def _assign(self, steps) -> None:
        if not isinstance(steps, list):
            raise FormatError(f"flow '{self.flow_id}': steps must be a list")
        for step in steps:
            if not isinstance(step, dict):
                raise FormatError(f"flow '{self.flow_id}': a step must be a mapping, got "
                                  f"{step!r}")
            node_id = unique(snake(str(step.get("id") or self._default_id(step)), "step"),
                             self.taken)
            self.node_of[id(step)] = node_id
            if step.get("id") is not None:
                self.by_step_id[str(step["id"])] = node_id
            nxt = step.get("next")
            if isinstance(nxt, list) and nxt and all(_is_step(item) for item in nxt):
                self._assign(nxt)
                continue
            for branch in nxt if isinstance(nxt, list) else []:
                for key in ("then", "else"):
                    if isinstance(branch, dict) and isinstance(branch.get(key), list):
                        self._assign(branch[key])

    @staticmethod
    def _default_id(step: dict) -> str:
        for kind in ("collect", "action", "call", "link"):
            if kind in step:
                return f"{'' if kind == 'action' else kind + '_'}{step[kind]}"
        if "set_slots" in step or "noop" in step:
            return "set_slots" if "set_slots" in step else "noop"
        return "branch" if "next" in step else "step"

    def _emit(self, steps: list, follow: str | None) -> str:
        """Nodes and edges of a step list; after its last step the flow goes to `follow`
        (None: the end of the flow). Returns the first node's id."""
        for index, step in enumerate(steps):
            default = self.node_of[id(steps[index + 1])] if index + 1 < len(steps) else follow
            self._step(step, default)
        return self.node_of[id(steps[0])]

    def _flow_properties(self) -> None:
        """Import notes for the flow's properties an SOP has no place for."""
        spec, flow = self.spec, self.flow_id
        if spec.get("always_include_in_prompt"):
            self.notes.append(f"flow '{flow}': always_include_in_prompt (Rasa always shows the "
                              f"flow to its command generator) has no meaning in an SOP; dropped")
        persisted = spec.get("persisted_slots")
        if persisted:
            names = ", ".join(map(str, persisted)) if isinstance(persisted, list) else persisted
            self.notes.append(f"flow '{flow}': persisted_slots ({names}) keep their values after "
                              f"the flow in Rasa; an SOP run ends with the flow, so nothing is "
                              f"reset within it either (kept as this note)")
        if spec.get("run_pattern_completed") is False:
            self.notes.append(f"flow '{flow}': run_pattern_completed: false (Rasa does not ask "
                              f"'anything else?' after it) is not part of the SOP; dropped")
        unknown = sorted(str(k) for k in spec if k not in _FLOW_KEYS)
        if unknown:
            self.notes.append(f"flow '{flow}': {', '.join(unknown)} not imported (unknown to "
                              f"this importer)")

    def _unknown_keys(self, node_id: str, kind: str | None, step: dict) -> None:
        unknown = sorted(str(k) for k in step if k not in _COMMON_KEYS | _STEP_KEYS[kind])
        if unknown and kind is not None:
            self.notes.append(f"step {node_id}: {', '.join(unknown)} not imported (not a key of "
                              f"a Rasa {kind} step this importer knows)")

    def _step(self, step: dict, default: str | None) -> None:
        node_id = self.node_of[id(step)]
        kind = next((k for k in STEP_KINDS if k in step), None)
        if kind is None and set(step) <= _COMMON_KEYS:
            kind = "noop"  # a step with only `next` (or an id) branches like a noop
        self._unknown_keys(node_id, kind, step)
        node = Node(id=node_id)
        self.nodes.append(node)  # before a collect's rejection nodes
        if kind == "collect":
            self._collect(node, step)
        elif kind == "action":
            self._action(node, str(step["action"]))
        elif kind == "set_slots":
            self._set_slots(node, step["set_slots"], step.get("reset_after_flow_ends"))
        elif kind == "call":
            node.kind, node.subflow = "subflow", f"{step['call']}.sop.json"
            node.title, node.notes = f"Call {step['call']}", [f"rasa: call {step['call']}"]
        elif kind == "link":
            node.kind, node.outcome = "end", "linked"
            node.title = f"Link to {step['link']}"
            node.instructions = f"The conversation continues with the flow '{step['link']}'."
            node.notes = [f"rasa: link {step['link']}"]
        elif kind == "noop":
            node.title, node.notes = "Decide", ["rasa: noop"]
        else:
            keys = ", ".join(map(str, step)) or "nothing"
            node.title, node.notes = "Unsupported step", [f"unsupported Rasa step ({keys})"]
            self.notes.append(f"step {node_id}: unsupported step kind ({keys}), kept as a note")
        if node.kind != "end":
            self._exits(node, step.get("next"), default)

    def _collect(self, node: Node, step: dict) -> None:
        slot = str(step["collect"])
        utter = str(step.get("utter") or f"utter_ask_{slot}")
        node.title, node.ask = f"Collect {slot}", [slot]
        node.instructions = str(step.get("description") or "")
        node.say = self.domain.responses.get(utter)
        node.notes = [f"rasa: collect {slot} {utter}"]
        self._response(node, utter)
        if step.get("ask_before_filling"):
            node.notes.append("ask_before_filling: asked even when the slot is already filled")
            self.notes.append(f"step {node.id}: ask_before_filling is not kept: Rasa asks even "
                              f"when '{slot}' is filled, the SOP asks only for a value it does "
                              f"not have (a note on the node says so)")
        if step.get("reset_after_flow_ends") is False:
            node.notes.append("reset_after_flow_ends: false (the slot keeps its value)")
            self.notes.append(f"step {node.id}: reset_after_flow_ends: false ('{slot}' outlives "
                              f"the flow in Rasa) kept as a node note; an SOP run ends with the "
                              f"flow")
        if step.get("force_slot_filling"):
            self.notes.append(f"step {node.id}: force_slot_filling (Rasa ignores every other "
                              f"command while asking) dropped; the SOP's agent stays at the "
                              f"node until '{slot}' is given anyway")
        if utter not in self.domain.responses and f"action_ask_{slot}" in self.domain.actions:
            node.notes.append(f"rasa: asked by action_ask_{slot}")
            self.notes.append(f"step {node.id}: Rasa asks with the custom action "
                              f"action_ask_{slot}, which the SOP cannot run; the node asks "
                              f"for '{slot}' in its own words")
        self.collected.setdefault(slot, self._variable(slot, str(step.get("description") or "")))
        for number, rejection in enumerate(step.get("rejections") or [], 1):
            self._rejection(node, slot, number, rejection)

    def _rejection(self, node: Node, slot: str, number: int, rejection) -> None:
        """Rasa rejects the value when the condition holds: say why and ask again. A rejection
        of every value that does not match a pattern is the variable's `pattern` instead."""
        if not isinstance(rejection, dict) or "if" not in rejection:
            return
        unmatched = not_matching(str(rejection["if"]))
        if unmatched and unmatched[0] == slot and not self.collected[slot].pattern:
            self.collected[slot].pattern = unmatched[1]
            utter = str(rejection.get("utter") or "")
            message = self.domain.responses.get(utter, utter)
            node.instructions += f"\nA value that does not match is refused: {message}".rstrip()
            node.instructions = node.instructions.strip()
            return
        when = self._condition(rejection["if"], node)
        reject = Node(id=unique(f"{node.id}_rejected_{number}", self.taken),
                      title=f"Reject {slot}", notes=[f"rasa: utter {rejection.get('utter', '')}"])
        utter = str(rejection.get("utter") or "")
        reject.say = self.domain.responses.get(utter, utter or f"That {slot} is not valid.")
        self._response(reject, utter)
        self.nodes.append(reject)
        node.max_attempts = node.max_attempts or 3  # bounds the re-ask loop
        self._edge(node.id, reject.id, when)
        self._edge(reject.id, node.id, None)

    def _action(self, node: Node, name: str) -> None:
        words = name.removeprefix("utter_").removeprefix("action_").replace("_", " ")
        node.title = f"Say: {words}" if name.startswith("utter_") else words.capitalize()
        if name.startswith("utter_"):
            node.say = self.domain.responses.get(name, name)
            node.notes = [f"rasa: utter {name}"]
            self._response(node, name)
            if name not in self.domain.responses:
                self.notes.append(f"{name}: no domain text (give --domain); the name is said")
        elif name in BUILTIN_ACTIONS:
            node.instructions = f"Rasa built-in action {name}."
            node.notes = [f"rasa: builtin {name}"]
        else:
            node.tools = [name]
            node.notes = [f"rasa: action {name}"]
            tool = self.tools.setdefault(name, Tool(name=name,
                                                    description=f"Rasa custom action {name}"))
            # A custom action reads the tracker: the slots collected so far are its inputs.
            for slot in self.collected:
                tool.parameters.setdefault("properties", {}).setdefault(
                    slot, {"type": self.collected[slot].type})

    def _response(self, node: Node, utter: str) -> None:
        """The rest of a response beside its text: its buttons (a `rasa: buttons` note that the
        e2e-test reader checks, and a line of instructions), and a note when Rasa would pick
        among several variants (the node says the first)."""
        buttons = self.domain.buttons.get(utter)
        if buttons:
            node.notes.append(f"rasa: buttons {utter} {json.dumps(buttons, ensure_ascii=False)}")
            shown = ", ".join(b["title"] + (f" ({b['payload']})" if "payload" in b else "")
                              for b in buttons)
            node.instructions = f"{node.instructions}\nOffer the buttons: {shown}".strip()
        count = self.domain.variants.get(utter, 1)
        note = (f"{utter}: {count} response variants (Rasa picks one by its conditions or at "
                f"random); step {node.id} says the first")
        if count > 1 and note not in self.notes:
            self.notes.append(note)

    def _set_slots(self, node: Node, items, reset=None) -> None:
        pairs = items if isinstance(items, list) else [items]
        node.notes = ["rasa: set_slots"]
        if reset is False:
            self.notes.append(f"step {node.id}: reset_after_flow_ends: false (the slots outlive "
                              f"the flow in Rasa) has no meaning in an SOP run; dropped")
        for pair in pairs:
            for name, value in (pair.items() if isinstance(pair, dict) else []):
                node.set[str(name)] = quote(value)
                self.set_names.add(str(name))
        node.title = "Set " + ", ".join(node.set) if node.set else "Set slots"

    def _exits(self, node: Node, nxt, default: str | None) -> None:
        if nxt is None:
            self._edge(node.id, self._target(default), None)
        elif isinstance(nxt, str):
            self._edge(node.id, self._target(nxt, node), None)
        elif isinstance(nxt, list) and nxt and all(_is_step(item) for item in nxt):
            self._edge(node.id, self._emit(nxt, None), None)  # nested steps, no condition
        elif isinstance(nxt, list):
            for branch in nxt:
                self._branch(node, branch)
        else:
            raise FormatError(f"flow '{self.flow_id}', step {node.id}: 'next' must be a step "
                              f"id, END or a list of if/then/else")

    def _branch(self, node: Node, branch) -> None:
        if not isinstance(branch, dict) or not ("then" in branch or "else" in branch):
            raise FormatError(f"flow '{self.flow_id}', step {node.id}: each 'next' entry needs "
                              f"'if' and 'then', or 'else'")
        is_else = "else" in branch and "if" not in branch
        target = branch["else"] if is_else else branch.get("then")
        when = "else" if is_else else self._condition(branch.get("if"), node)
        if isinstance(target, list):
            dest = self._emit(target, None) if target else self._end()
        else:
            dest = self._target(None if target is None else str(target), node)
        self._edge(node.id, dest, when)

    def _target(self, name: str | None, node: Node | None = None) -> str:
        if name is None or name == END:
            return self._end()
        if name in self.by_step_id:
            return self.by_step_id[name]
        if name in self.node_of.values():
            return name  # a default successor (already a node id)
        where = f", step {node.id}" if node else ""
        raise FormatError(f"flow '{self.flow_id}'{where}: 'next' names no step '{name}'")

    def _condition(self, text, node: Node) -> str:
        when, ok = translate_condition(text)
        if not ok:
            node.notes.append(f"untranslated Rasa condition: {text}")
            self.notes.append(f"step {node.id}: condition {quoted(str(text))} kept as written "
                              f"(not in the expression language; validation flags it)")
        return when

    def _edge(self, source: str, target: str, when: str | None) -> None:
        self.edges.append(Edge(id=f"e{len(self.edges) + 1}", source=source, target=target,
                               when=when))

    def _end(self) -> str:
        if self.end_id is None:
            self.end_id = unique("end_of_flow", self.taken)  # `end` is a Mermaid keyword
            self.nodes.append(Node(id=self.end_id, kind="end", title="End of flow",
                                   outcome="resolved", notes=["rasa: end"]))
        return self.end_id

    def _guard(self, first: str) -> str:
        guard = self.spec.get("if")
        if guard is None or guard is True:
            return first
        if guard is False:
            self.notes.append(f"flow '{self.flow_id}' has `if: false`: it starts only by a call "
                              f"or link")
            return first
        node = Node(id=unique("flow_guard", self.taken), title="Flow guard", notes=["rasa: if"],
                    instructions="Rasa starts the flow only when this guard holds; its slots "
                                 "come from the conversation so far.")
        when = self._condition(guard, node)
        node.ask = [n for n in names_read(when) if n not in self.collected]  # known beforehand
        closed = Node(id=unique("not_started", self.taken), kind="end", outcome="not-started",
                      title="Flow not started (guard false)")
        self.nodes[:0] = [node, closed]
        self.edges[:0] = [Edge(id="g1", source=node.id, target=first, when=when),
                          Edge(id="g2", source=node.id, target=closed.id, when="else")]
        return node.id

    def _variable(self, name: str, description: str) -> Variable:
        kind, enum = self._slot_type(name)
        return Variable(name=name, type=kind, enum=enum, description=description, source="user")

    def _slot_type(self, name: str):
        spec = self.domain.slots.get(name) or {}
        values = spec.get("values")
        return (_SLOT_TYPES.get(str(spec.get("type")), "string"),
                list(values) if isinstance(values, list) and values else None)

    def _infer_outputs(self) -> None:
        """Where the slots that conditions read come from. Read on the way out of a custom
        action (and not collected): that action's output (Rasa actions return slot events).
        Read elsewhere and set by nothing: the custom action before it in the flow, else asked
        where it is read (Rasa fills such slots from the conversation or its dialogue context)."""
        order = {n.id: i for i, n in enumerate(self.nodes)}
        by_id = {n.id: n for n in self.nodes}
        reads: dict[str, str] = {}  # slot -> the first node (in flow order) that reads it
        for source, expression in [(e.source, e.when) for e in self.edges] + [
                (n.id, x) for n in self.nodes for x in n.set.values()]:
            for name in names_read(expression):
                tools = by_id[source].tools
                if tools and name not in self.collected and expression is not None:
                    self._output(tools[0], name, "")
                if name not in reads or order[source] < order[reads[name]]:
                    reads[name] = source
        known = set(self.collected) | self.set_names | {
            o.name for tool in self.tools.values() for o in tool.outputs}
        for name, reader in sorted(reads.items(), key=lambda item: order[item[1]]):
            if name in known:
                continue
            at = order[reader]
            action = next((n.tools[0] for n in reversed(self.nodes[:at + 1]) if n.tools), None)
            if action:
                self._output(action, name, "")
            else:
                kind, enum = self._slot_type(name)
                self.collected[name] = Variable(name=name, type=kind, enum=enum, source="user")
                if name not in by_id[reader].ask:
                    by_id[reader].ask.append(name)
                    self.notes.append(f"slot '{name}' is read before the flow sets it: asked in "
                                      f"step {reader} (Rasa fills it from the conversation)")
            known.add(name)
        for tool in list(self.tools.values()):  # slots the tests' stubs show the action setting
            for name in self.domain.stubbed.get(tool.name, []):
                if name not in self.collected:
                    self._output(tool.name, name, " (its test stub sets it)")

    def _output(self, action: str, name: str, why: str) -> None:
        tool = self.tools[action]
        if any(o.name == name for o in tool.outputs):
            return
        kind, enum = self._slot_type(name)
        tool.outputs.append(ToolOutput(name=name, type=kind, enum=enum))
        self.notes.append(f"slot '{name}' taken as an output of action '{action}'{why}")

    def _bound_loops(self, start: str) -> None:
        """Rasa loops (a `next` back to an earlier step) are unbounded; each gets
        `max_attempts` 3 on the step it returns to (the target of a depth-first back edge)."""
        out: dict[str, list[str]] = {}
        for edge in self.edges:
            out.setdefault(edge.source, []).append(edge.target)
        by_id = {n.id: n for n in self.nodes}
        state = {start: 1}  # 1: on the depth-first stack, 2: done
        stack = [(start, iter(out.get(start, [])))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1 and by_id[child].max_attempts is None:
                by_id[child].max_attempts = 3
                self.notes.append(f"step {child}: a loop returns here; bounded to 3 visits")
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(out.get(child, []))))

    def _variables(self) -> list[Variable]:
        found = list(self.collected.values())
        found += [Variable(name=n, source="set", type=self._slot_type(n)[0])
                  for n in sorted(self.set_names - set(self.collected))]
        for variable in found:
            self._initial_value(variable)
        return found

    def _initial_value(self, variable: Variable) -> None:
        """A domain `initial_value` is what the slot holds until something sets it, which may
        happen anywhere in the conversation (other flows, custom actions): the SOP keeps it in
        the variable's description, and the note says so, rather than fixing the value."""
        value = self.domain.slots.get(variable.name, {}).get("initial_value")
        if value is None:
            return
        variable.description = f"{variable.description} (Rasa's initial value: {value!r})".strip()
        self.notes.append(f"slot '{variable.name}' has the initial value {value!r} in the domain; "
                          f"the SOP does not preset it (its source stays "
                          f"'{variable.source}'; the value is in the variable's description)")
