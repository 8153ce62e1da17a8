"""Scenarios from Rasa e2e test cases (`test_cases:` YAML, Rasa Pro): one scenario per test case
that only involves the SOP's flow; the others are listed as not applicable, with the reason.

Read from a test case, in both of Rasa's step styles (plain steps and `assertions` under `user`):
- `slot_was_set` values (and `fixtures` the case uses) → the user's values (the slots the flow
  collects) and, for a custom action without a stub, its outputs; a slot the test does not
  assert takes the user's reply to the question that collects it (`yes`/`no` for booleans);
- `stub_custom_actions` (`<action>` or `<test case>::<action>`, `events` of `event: slot`) → the
  tool responses;
- `utter` / `bot_uttered` / `bot` and `action_executed` → the utterances and actions, in order,
  that the flow's reference run (walk.py) must produce. As in Rasa, `bot_uttered` checks each
  property it has: `utter_name` (the response's name), `text_matches` (a regular expression that
  must be found somewhere in the text of a message the bot sends: Rasa's `search`, not a full
  match) and `buttons` (the response's buttons, in order, each title and payload). When it does, that run is the expected
  path and tool trace; when it does not, the scenario is unrealised (a failed run) and the note
  says which assertion the flow misses; `slot_was_not_set` must hold at the end of that run.
  A test that starts or completes another flow, asserts Rasa's patterns (`flow_cancelled`,
  `pattern_clarification_contains`), or utters, runs or sets what this flow does not know, is not
  applicable.

`text_matches` patterns run on RE2 (linear time whatever the pattern, as `matches()` in
conditions). Rasa runs them with Python's `re`, which accepts more (look-arounds, back
references): a pattern RE2 refuses makes its case not applicable, with RE2's reason. It is not
a failure: the assistant may well pass that assertion in Rasa, and a failed case must mean the
flow does something other than what the test says.

Utterances and actions are matched through the nodes' `rasa: <kind> <name>` notes that the Rasa
importer writes (formats/rasa.py); `bot` texts are matched against the nodes' `say` texts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.expr import ExprEvalError, quoted
from ..core.expr.functions import compiled_pattern
from ..core.inputs import InputError, read_text
from ..core.yaml_input import loads_yaml
from ..core.journeys import iter_journeys
from .compiled import CompiledSop, EngineError
from .scenarios import Scenario
from .values import journey_values
from .walk import expected_run

TYPE = "rasa-e2e"
JOURNEYS = 200  # journeys tried when choosing the outputs of actions the test does not stub
# Rasa's own actions: e2e tests may assert them, they are never part of a flow's tools.
_BUILTIN = re.compile(r"^action_(listen|restart|session_start|default_fallback|"
                      r"deactivate_loop|extract_slots|cancel_flow|clean_stack|"
                      r"run_slot_rejections|correct_flow_slot|trigger_\w+|hangup|"
                      r"reset_routing|repeat_bot_messages|block_digressions|"
                      r"continue_digression)$")
# Slots Rasa itself keeps (routing, the dialogue stack): tests may assert them, no flow uses them.
_INTERNAL_SLOTS = frozenset(("route_session_to_calm", "requested_slot", "dialogue_stack",
                             "flow_hashes", "session_started_metadata"))
_NOTE = re.compile(r"^rasa: (\w+)(?: (\S+))?(?: (\S+))?$")
_BUTTONS = re.compile(r"^rasa: buttons (\S+) (.*)$")   # rasa: buttons <utter> <JSON list>
_SET = object()  # "the slot was set", value not asserted


@dataclass
class RasaTests:
    scenarios: list[Scenario] = field(default_factory=list)
    not_applicable: list[dict] = field(default_factory=list)   # [{"test_case", "reason"}]


@dataclass
class _Case:
    name: str
    # ("utter"|"action"|"bot"|"text"|"buttons"|"flow", value); "text" holds a text_matches
    # pattern, "buttons" a tuple of (title, payload) pairs
    events: list = field(default_factory=list)
    slots: dict = field(default_factory=dict)     # slot -> value (or _SET)
    not_set: dict = field(default_factory=dict)   # slot_was_not_set: slot -> value (or _SET)
    answers: list = field(default_factory=list)   # (utter asked just before, the user's text)
    other: str | None = None                      # an assertion about Rasa's patterns
    unchecked: list = field(default_factory=list)  # assertions this reader cannot check


def load_tests_path(path: str | Path) -> dict:
    """The test cases of a file, or of every .yml/.yaml file under a folder (Rasa's `tests/`
    layout), merged: test cases in file order, stubs and fixtures together. Files without
    `test_cases` (e.g. a conftest-like stub file) still give their stubs and fixtures."""
    path = Path(path)
    if not path.is_dir():
        return load_tests(_read(path), str(path))
    merged: dict = {"test_cases": [], "stub_custom_actions": {}, "fixtures": []}
    files = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".yml", ".yaml"))
    for file in files:
        try:
            data = loads_yaml(_read(file), str(file))
        except InputError as error:
            raise EngineError(str(error)) from None
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("test_cases"), list):
            merged["test_cases"] += data["test_cases"]
        if isinstance(data.get("stub_custom_actions"), dict):
            merged["stub_custom_actions"].update(data["stub_custom_actions"])
        if isinstance(data.get("fixtures"), list):
            merged["fixtures"] += data["fixtures"]
    if not merged["test_cases"]:
        raise EngineError(f"{path}: no Rasa e2e test cases in the folder")
    return merged


def _read(path: Path) -> str:
    """The file's text; a file that cannot be read raises InputError (exit code 2)."""
    return read_text(path)


def load_tests(text: str, source: str) -> dict:
    try:
        data = loads_yaml(text, source)
    except InputError as error:
        raise EngineError(f"{source}: {error.reason}") from None
    if not isinstance(data, dict) or not isinstance(data.get("test_cases"), list):
        raise EngineError(f"{source}: not a Rasa e2e test file (no 'test_cases:' list)")
    return data


def scenarios_from_rasa_tests(cs: CompiledSop, data: dict) -> RasaTests:
    flow = _FlowFacts(cs)
    fixtures = _fixtures(data.get("fixtures"))
    stubs = data.get("stub_custom_actions")
    stubs = stubs if isinstance(stubs, dict) else {}
    out = RasaTests()
    for number, raw in enumerate(data["test_cases"]):
        case = _read_case(raw, number, fixtures)
        reason = flow.foreign(case)
        if reason:
            out.not_applicable.append({"test_case": case.name, "reason": reason})
        else:
            out.scenarios.append(_scenario(cs, flow, case, stubs))
    return out


def passed(row: dict) -> bool:
    """A test case passes when the run's tool trace, path and end are the expected ones."""
    return bool(row.get("tta") and row.get("path") and row.get("correct"))


def summary(tests: RasaTests, rows: list[dict]) -> dict:
    """{"passed", "failed", "not_applicable", "cases": [{"test_case", "result", "reason"?}]}
    over the batch's per-run metric rows (a run that raised has no row: failed)."""
    by_id = {row["scenario"]: row for row in rows}
    cases = [{"test_case": s.id, "result": "passed" if passed(by_id.get(s.id, {})) else "failed"}
             | ({"reason": "; ".join(s.notes)} if s.notes else {}) for s in tests.scenarios]
    cases += [dict(item, result="not applicable") for item in tests.not_applicable]
    count = sum(c["result"] == "passed" for c in cases)
    return {"passed": count, "failed": len(tests.scenarios) - count,
            "not_applicable": len(tests.not_applicable), "cases": cases}


# --- reading test cases ------------------------------------------------------------------------

def _fixtures(raw) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for item in raw if isinstance(raw, list) else []:
        for name, slots in (item.items() if isinstance(item, dict) else []):
            found[str(name)] = _pairs(slots)
    return found


def _pairs(items) -> dict:
    """`[{slot: value}, "slot", {name: slot, value: v}]` → {slot: value or _SET}."""
    pairs: dict = {}
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, str):
            pairs[item] = _SET
        elif isinstance(item, dict) and "name" in item and set(item) <= {"name", "value"}:
            pairs[str(item["name"])] = item.get("value", _SET)
        elif isinstance(item, dict):
            pairs.update({str(k): v for k, v in item.items()})
    return pairs


def _read_case(raw, number: int, fixtures: dict) -> _Case:
    if not isinstance(raw, dict) or not isinstance(raw.get("steps"), list):
        raise EngineError(f"test case {number + 1}: needs 'test_case' and a 'steps' list")
    case = _Case(str(raw.get("test_case") or f"case{number + 1}"))
    names = raw.get("fixtures")
    for name in names if isinstance(names, list) else []:
        if str(name) not in fixtures:
            raise EngineError(f"test case {case.name}: no fixture named '{name}'")
        case.slots.update(fixtures[str(name)])
    turn = 0  # where the events since the last user message start
    for step in raw["steps"]:
        if isinstance(step, dict):
            if "user" in step:
                asked = _last_utter(case.events[turn:])
                if asked:
                    case.answers.append((asked, str(step["user"])))
                turn = len(case.events)
            _read_step(case, step)
            assertions = step.get("assertions")
            for assertion in assertions if isinstance(assertions, list) else []:
                if isinstance(assertion, dict):
                    _read_step(case, assertion)
    return case


def _read_step(case: _Case, step: dict) -> None:
    if "utter" in step:
        case.events.append(("utter", str(step["utter"])))
    if "bot" in step:
        case.events.append(("bot", str(step["bot"])))
    if "action_executed" in step:
        case.events.append(("action", str(step["action_executed"])))
    if "flow_started" in step:
        case.events.append(("flow", str(step["flow_started"])))
    uttered = step.get("bot_uttered")
    if isinstance(uttered, dict):
        _read_uttered(case, uttered)
    if "slot_was_set" in step:
        case.slots.update(_pairs(step["slot_was_set"]))
    if "slot_was_not_set" in step:
        case.not_set.update(_pairs(step["slot_was_not_set"]))
    completed = step.get("flow_completed")
    if isinstance(completed, dict) and completed.get("flow_id"):
        case.events.append(("flow", str(completed["flow_id"])))
    if "bot_did_not_utter" in step:
        case.unchecked.append("bot_did_not_utter (Rasa checks it within one user turn; a "
                              "scenario has no turns to check it in)")
    for key in ("generative_response_is_relevant", "generative_response_is_grounded"):
        if key in step:
            case.unchecked.append(f"{key} (Rasa asks an LLM judge)")
    for key in ("flow_cancelled", "pattern_clarification_contains"):
        if key in step:
            case.other = case.other or key


def _last_utter(events: list) -> str | None:
    """The response the bot sent last, if nothing but its own text or buttons came after it."""
    for kind, value in reversed(events):
        if kind == "utter":
            return value
        if kind not in ("text", "buttons"):
            return None
    return None


def _read_uttered(case: _Case, uttered: dict) -> None:
    """A `bot_uttered` assertion: each property it has is one event to find, in this order."""
    if uttered.get("utter_name"):
        case.events.append(("utter", str(uttered["utter_name"])))
    if uttered.get("text_matches") is not None:
        case.events.append(("text", str(uttered["text_matches"])))
    buttons = uttered.get("buttons")
    if isinstance(buttons, list) and buttons:
        case.events.append(("buttons", tuple(
            (str(b.get("title")), None if b.get("payload") is None else str(b["payload"]))
            for b in buttons if isinstance(b, dict))))


def _text_matches(pattern: str, text: str) -> bool:
    """Rasa's `text_matches`: the pattern is found somewhere in the text (RE2's search)."""
    return compiled_pattern(pattern).search(text) is not None


def _pattern_problem(pattern: str) -> str | None:
    try:
        compiled_pattern(pattern)
    except ExprEvalError as error:
        return error.message
    return None


# --- the flow's side ---------------------------------------------------------------------------

class _FlowFacts:
    """What the SOP's flow can utter, run and set, read from the importer's `rasa:` notes."""

    def __init__(self, cs: CompiledSop):
        self.cs = cs
        self.flow = cs.sop.id
        self.utters: dict[str, list[str]] = {}    # node id -> utter names in order
        self.collects: dict[str, str] = {}        # the utter that asks -> the slot it collects
        self.actions: dict[str, list[str]] = {}   # node id -> custom action names
        self.buttons: dict[str, list[tuple]] = {}  # node id -> its responses' buttons
        for node in cs.sop.nodes:
            for note in node.notes:
                buttons = _buttons_note(note)
                if buttons is not None:
                    self.buttons.setdefault(node.id, []).append(buttons)
                match = _NOTE.match(note)
                if not match:
                    continue
                kind, name, extra = match.groups()
                if kind == "utter" and name:
                    self.utters.setdefault(node.id, []).append(name)
                elif kind == "collect" and extra:
                    self.utters.setdefault(node.id, []).append(extra)
                    self.collects[extra] = str(name)
                elif kind == "action" and name:
                    self.actions.setdefault(node.id, []).append(name)
        self.says = {n.say.strip() for n in cs.sop.nodes if n.say}
        self.slots = ({v.name for v in cs.sop.variables} | set(cs.outputs)
                      | {k for n in cs.sop.nodes for k in n.set})

    def foreign(self, case: _Case) -> str | None:
        """Why the case involves more than this flow (None: it only involves this flow)."""
        if case.other:
            return f"asserts {case.other}, which involves Rasa's conversation patterns"
        known_utters = {u for names in self.utters.values() for u in names}
        known_actions = {a for names in self.actions.values() for a in names}
        for kind, value in case.events:
            if kind == "flow" and value != self.flow:
                return f"starts the flow '{value}'"
            if kind == "utter" and value not in known_utters:
                return f"expects the response '{value}', which flow '{self.flow}' never utters"
            if (kind == "action" and not value.startswith("utter_") and not _BUILTIN.match(value)
                    and value not in known_actions):
                return f"expects the action '{value}', which flow '{self.flow}' never runs"
            if kind == "action" and value.startswith("utter_") and value not in known_utters:
                return f"expects the response '{value}', which flow '{self.flow}' never utters"
            if kind == "bot" and not any(_same_text(value, s) for s in self.says):
                return f"expects the bot to say {value!r}, which flow '{self.flow}' never says"
            problem = _pattern_problem(value) if kind == "text" else None
            if problem:
                return f"its text_matches pattern cannot be checked here: {problem}"
        unknown = sorted(set(case.slots) - self.slots - _INTERNAL_SLOTS)
        if unknown:
            return f"sets the slot '{unknown[0]}', which flow '{self.flow}' does not use"
        return None

    def produced(self, path: list[str], values: dict) -> list[tuple[str, Any]]:
        """The utterances, actions and texts a run along `path` produces, in order."""
        events: list[tuple[str, Any]] = []
        for node_id in path:
            events += [("utter", u) for u in self.utters.get(node_id, [])]
            events += [("action", a) for a in self.actions.get(node_id, [])]
            say = self.cs.nodes[node_id].node.say if node_id in self.cs.nodes else None
            if say:
                events.append(("bot", _fill(say, values)))
            events += [("buttons", b) for b in self.buttons.get(node_id, [])]
        return events


def _buttons_note(note: str) -> tuple | None:
    """The ((title, payload), ...) of a `rasa: buttons <utter> <JSON>` note (importer)."""
    match = _BUTTONS.match(note)
    if not match:
        return None
    try:
        items = json.loads(match.group(2))
    except ValueError:
        return None
    return tuple((str(b.get("title")), None if b.get("payload") is None else str(b["payload"]))
                 for b in items if isinstance(b, dict)) if isinstance(items, list) else None


def _buttons_match(expected: tuple, actual: tuple) -> bool:
    """Rasa's check: the response has buttons and they agree, pairwise in order, in title and
    payload (over the shorter of the two lists, as Rasa compares them)."""
    return bool(actual) and all(a == e for a, e in zip(actual, expected))


def _same_text(expected: str, say: str) -> bool:
    """A `bot` text matches a say text; `{slot}` placeholders match any value."""
    pattern = re.escape(say.strip())
    pattern = re.sub(r"\\\{\w+\\\}", ".+", pattern)
    return re.fullmatch(pattern, expected.strip(), re.DOTALL) is not None


def _fill(text: str, values: dict) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), text)


# --- one scenario --------------------------------------------------------------------------------

def _scenario(cs: CompiledSop, flow: _FlowFacts, case: _Case, stubs: dict) -> Scenario:
    user_vars = {v.name: v for v in cs.sop.variables if v.source == "user"}
    seed = {k: v for k, v in case.slots.items() if k in user_vars and v is not _SET}
    for utter, text in case.answers:  # the reply to a collect's question fills its slot
        slot = flow.collects.get(utter)
        if slot in user_vars and slot not in case.slots:
            seed[slot] = _typed(text, user_vars[slot].type)
    responses = {tool: [{"outputs": _outputs(cs, tool, case, stubs)}] for tool in cs.tools}
    walked = expected_run(cs, seed, responses)
    missing = _first_missing(case.events, flow.produced(walked.path, walked.variables))
    unstubbed = [t for t in cs.tools if _stub(stubs, case, t) is None
                 and not responses[t][0]["outputs"] and cs.tools[t].outputs]
    notes = list(walked.notes) + [f"not checked: {what}" for what in dict.fromkeys(case.unchecked)]
    if missing and unstubbed:  # actions run real code in Rasa: choose outputs the test implies
        chosen = _outputs_following_the_test(cs, flow, case, seed, responses, unstubbed)
        if chosen is not None:
            responses, walked = chosen
            missing = None
            notes.append("outputs of " + ", ".join(unstubbed) + " (no stub) chosen so the run "
                         "does what the test expects")
    expected = walked.to_dict()
    scenario = Scenario(case.name, TYPE, {"nodes": expected["path"], "edges": expected["edges"]},
                        {"seed": seed}, responses, expected, notes=notes)
    if missing:
        scenario.realized = False
        scenario.notes.append(f"the flow's run does not produce the expected "
                              f"{_described(*missing)} (in the test's order)")
    for name, value in case.not_set.items():
        got = walked.variables.get(name)
        if got is not None and (value is _SET or got == value):
            scenario.realized = False
            scenario.notes.append(f"the flow's run sets the slot '{name}' to {got!r}, which the "
                                  f"test says is not set")
    return scenario


def _typed(text: str, kind: str) -> object:
    """A user's reply as the collected slot's type (`yes` is true for a boolean slot)."""
    word = text.strip().lower().rstrip(".!")
    if kind == "boolean":
        if word in ("yes", "y", "true", "sure", "yes please", "correct"):
            return True
        if word in ("no", "n", "false", "nope", "no thanks"):
            return False
    if kind in ("integer", "number"):
        try:
            return int(word) if kind == "integer" else float(word)
        except ValueError:
            return text
    return text


def _outputs_following_the_test(cs, flow, case, seed, responses, unstubbed):
    """(responses, walk) where the unstubbed actions answer with values that make the flow
    produce the test's events, from the first of its journeys (at most JOURNEYS) that does."""
    for journey in iter_journeys(cs.sop, limit=JOURNEYS):
        if _first_missing(case.events, flow.produced(journey.nodes, seed)) is not None:
            continue
        solved = journey_values(cs, journey).responses
        trial = dict(responses)
        trial.update({t: solved[t] for t in unstubbed if t in solved})
        walked = expected_run(cs, seed, trial)
        if _first_missing(case.events, flow.produced(walked.path, walked.variables)) is None:
            return trial, walked
    return None


def _stub(stubs: dict, case: _Case, tool: str):
    return stubs.get(f"{case.name}::{tool}") or stubs.get(tool)


def _outputs(cs: CompiledSop, tool: str, case: _Case, stubs: dict) -> dict:
    stub = _stub(stubs, case, tool)
    names = [o.name for o in cs.tools[tool].outputs]
    if isinstance(stub, dict):
        return {str(e["name"]): e.get("value") for e in stub.get("events") or []
                if isinstance(e, dict) and e.get("event") == "slot" and "name" in e}
    return {n: case.slots[n] for n in names if n in case.slots and case.slots[n] is not _SET}


def _described(kind: str, value) -> str:
    if kind == "text":
        return f"message matching {quoted(value)}"
    if kind == "buttons":
        return "buttons " + ", ".join(f"{t!r} ({p!r})" if p is not None else repr(t)
                                      for t, p in value)
    return f"{kind} {value!r}"


def _found(kind: str, value, got: tuple) -> bool:
    """Whether one produced event satisfies one of the test's events."""
    if kind == "bot":
        return got[0] == "bot" and _same_text(value, got[1])
    if kind == "text":
        return got[0] == "bot" and _text_matches(value, got[1])
    if kind == "buttons":
        return got[0] == "buttons" and _buttons_match(value, got[1])
    return got == (kind, value)


def _first_missing(wanted: list, produced: list) -> tuple[str, Any] | None:
    """The first of the test's utterances/actions/texts that the run does not produce in order
    (built-in actions and flow starts are not part of a flow's run)."""
    remaining = iter(produced)
    for kind, value in wanted:
        if kind == "flow" or (kind == "action" and _BUILTIN.match(value)):
            continue
        if kind == "action" and value.startswith("utter_"):
            kind = "utter"
        if not any(_found(kind, value, got) for got in remaining):
            return kind, value
    return None
