"""The parts of a Rasa project that flows refer to: the domain's responses (texts, buttons,
variants), slots and custom actions, and the slots that e2e tests' `stub_custom_actions` set.
formats/rasa.py reads the flows themselves with these at hand."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.inputs import InputError
from ..core.yaml_input import loads_yaml
from .base import FormatError


@dataclass
class Domain:
    """What the flows need from a Rasa domain: response texts and slot declarations."""

    responses: dict[str, str] = field(default_factory=dict)
    buttons: dict[str, list[dict]] = field(default_factory=dict)  # response -> [{title, payload}]
    variants: dict[str, int] = field(default_factory=dict)        # response -> how many variants
    actions: set[str] = field(default_factory=set)                # the domain's custom actions
    slots: dict[str, dict] = field(default_factory=dict)
    # action -> slots its e2e-test stubs set (`stub_custom_actions` of test files beside the flows)
    stubbed: dict[str, list[str]] = field(default_factory=dict)

    def merge(self, other: "Domain") -> None:
        self.responses.update(other.responses)
        self.buttons.update(other.buttons)
        self.variants.update(other.variants)
        self.actions |= other.actions
        self.slots.update(other.slots)


def load_domain(text: str, source: str) -> Domain:
    data = read_yaml(text, source) or {}
    if not isinstance(data, dict):
        raise FormatError("a Rasa domain is a mapping (responses:, slots:)", source=source)
    domain = Domain()
    responses, slots = data.get("responses") or {}, data.get("slots") or {}
    if not isinstance(responses, dict) or not isinstance(slots, dict):
        raise FormatError("a domain's 'responses' and 'slots' are mappings", source=source)
    for name, variants in responses.items():
        variants = variants if isinstance(variants, list) else []
        texts = [v for v in variants if isinstance(v, dict) and v.get("text")]
        if texts:
            domain.responses[str(name)] = str(texts[0]["text"])
            domain.variants[str(name)] = len(variants)
            buttons = _buttons(texts[0].get("buttons"))
            if buttons:
                domain.buttons[str(name)] = buttons
    for name, spec in slots.items():
        domain.slots[str(name)] = spec if isinstance(spec, dict) else {}
    actions = data.get("actions")
    domain.actions = {str(a) for a in actions if isinstance(a, str)} \
        if isinstance(actions, list) else set()
    return domain


def _buttons(raw) -> list[dict]:
    """A response variant's buttons as [{title, payload}] (payload omitted when absent)."""
    found = []
    for button in raw if isinstance(raw, list) else []:
        if isinstance(button, dict) and button.get("title") is not None:
            found.append({"title": str(button["title"])} | (
                {} if button.get("payload") is None else {"payload": str(button["payload"])}))
    return found


def stubbed_slots(stubs: dict) -> dict[str, list[str]]:
    """{action: [slot, ...]} from e2e tests' `stub_custom_actions` (`<test>::<action>` too)."""
    found: dict[str, list[str]] = {}
    for key, stub in stubs.items():
        action = str(key).split("::")[-1]
        for event in (stub or {}).get("events") or [] if isinstance(stub, dict) else []:
            if isinstance(event, dict) and event.get("event") == "slot" and event.get("name"):
                names = found.setdefault(action, [])
                if str(event["name"]) not in names:
                    names.append(str(event["name"]))
    return found


def read_yaml(text: str, source: str):
    """A Rasa YAML file's data (safe_load, aliases refused: core/yaml_input.py)."""
    try:
        return loads_yaml(text, source)
    except InputError as error:
        raise FormatError(error.reason, source=source) from None
