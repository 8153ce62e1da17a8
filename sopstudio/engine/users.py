"""Simulated users: the interface, the scripted user driven by a scenario, and replay.

A user is asked for a reply whenever the agent asks for values, and once at the start (`opening`,
which may return None). A reply is a `UserTurn`: free text plus, for scripted users, the
structured `values` given and the `missing` (withheld) names; `question` marks a knowledge question
(Agent-S Table 6). An LLM user (llm_user.py) returns text only and lets the agent extract values.
A reply containing the `QUIT` token ends the run (outcome stopped, see the orchestrator).

A chat agent's plain-text message also gets a reply (turn-taking as in a chat): it reaches
`reply` with no variables. The scripted user then works out what the text asks for
(`asked_names`: a request naming a variable by name, spoken name or description, else the values
the current node still asks for when the text is a question) and answers those from its seed
like an ask; a text that asks for nothing gets a short neutral reply (`NEUTRAL_REPLY`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

QUIT = "<quit>"  # JourneyBench Appendix F: the user ends the conversation (any user, any time)
NEUTRAL_REPLY = "Okay, please go on."
# Words that make a message a request even without a question mark ("Please share your id.")
REQUEST_WORDS = ("please", "provide", "share", "tell me", "give me", "send me", "need your",
                 "enter", "confirm")


def is_quit(text: str | None) -> bool:
    return QUIT in (text or "").lower()


@dataclass
class UserTurn:
    text: str
    values: dict = field(default_factory=dict)
    missing: list = field(default_factory=list)
    question: str | None = None

    def to_dict(self) -> dict:
        return {"text": self.text, "values": dict(self.values), "missing": list(self.missing),
                "question": self.question}

    @classmethod
    def from_dict(cls, data: dict) -> "UserTurn":
        return cls(data.get("text") or "", dict(data.get("values") or {}),
                   list(data.get("missing") or []), data.get("question"))


class SimulatedUser(Protocol):
    def opening(self, sop) -> UserTurn | None: ...

    def reply(self, variables: list[str], text: str | None, ctx: Any) -> UserTurn: ...


class ScriptedUser:
    """Answers from the scenario's user seed; withholds what the scenario withholds; asks its
    knowledge question (once) the first time it is asked for `question_at` (or for anything)."""

    def __init__(self, seed: dict, withheld: list[str] | None = None,
                 question: str | None = None, question_at: str | None = None,
                 opening: str | None = None):
        self.seed = dict(seed)
        self.withheld = set(withheld or [])
        self.question = question
        self.question_at = question_at
        self.opening_text = opening
        self._asked_question = False

    @classmethod
    def from_scenario(cls, scenario) -> "ScriptedUser":
        user = scenario.user
        return cls(user.get("seed", {}), [scenario.withheld] if scenario.withheld else [],
                   user.get("question"), user.get("question_at"), user.get("opening"))

    def opening(self, sop) -> UserTurn | None:
        return UserTurn(self.opening_text) if self.opening_text else None

    def reply(self, variables: list[str], text: str | None, ctx: Any) -> UserTurn:
        if not variables:  # a plain message, or an ask that names nothing: read the text
            variables = asked_names(text, ctx, [*self.seed, *self.withheld])
            if not variables:
                return UserTurn(NEUTRAL_REPLY)
        if self.question and not self._asked_question and (
                self.question_at is None or self.question_at in variables):
            self._asked_question = True
            return UserTurn(self.question, question=self.question)
        missing = [v for v in variables if v in self.withheld or v not in self.seed]
        if missing:
            return UserTurn(f"Sorry, I don't have my {spoken_name(missing[0])}.",
                            missing=missing)
        values = {v: self.seed[v] for v in variables}
        return UserTurn(answer_text(values), values=values)


def asked_names(text: str | None, ctx: Any, held: list[str]) -> list[str]:
    """The variables a free-text agent message asks for: named (as written, spoken, or by the
    variable's description) in a request, else, for a question, what the node still asks."""
    lowered = " ".join((text or "").lower().split())
    if not ("?" in lowered or any(word in lowered for word in REQUEST_WORDS)):
        return []
    sop = getattr(ctx, "sop", None)
    described = {v.name: v.description for v in getattr(sop, "variables", None) or []}
    names = list(dict.fromkeys([*described, *held]))
    found = [n for n in names if _mentions(lowered, n, described.get(n))]
    if found:
        return found
    node = getattr(ctx, "node", None)
    known = getattr(ctx, "variables", None) or {}
    return [n for n in getattr(node, "ask", None) or [] if n not in known] if "?" in lowered else []


def _mentions(lowered: str, name: str, description: str | None) -> bool:
    phrases = {name.lower(), spoken_name(name).lower()}
    if description:
        phrases.add(description.lower().strip().rstrip(".?!"))
    return any(p and p in lowered for p in phrases)


def spoken_name(name: str) -> str:
    """A variable name as a person says it: underscores as spaces."""
    return name.replace("_", " ").strip()


def spoken_value(value: Any) -> str:
    """Booleans as Yes/No, everything else as it reads (no Python reprs)."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if value is None:
        return "I don't know"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def answer_text(values: dict) -> str:
    """What a plain-spoken user says when giving `values` (deterministic)."""
    if len(values) == 1:
        value = next(iter(values.values()))
        if isinstance(value, bool):
            return spoken_value(value) + "."
        return f"It's {spoken_value(value)}."
    text = "; ".join(f"{spoken_name(k)}: {spoken_value(v)}" for k, v in values.items())
    return text[:1].upper() + text[1:] + "."
