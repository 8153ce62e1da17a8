"""The scripted agent: the offline oracle that performs a node's actions exactly as the SOP says.

Stateless: every decision is derived from the context (what happened in this node visit), so a run
can be stepped, paused, replayed and resumed at any point. Order in a node: say, ask (all missing
answers at once; a knowledge question is answered, then the ask is repeated), tools in order
(skipping a tool whose `tool_when` is false; a failed tool is called again — the orchestrator
bounds the attempts), then finish. A value the user does not have, or a required tool parameter
that nothing supplies, makes it halt with reason "blocked" instead of calling the tool.
"""

from __future__ import annotations

from ..compiled import CompiledSop, guard_holds, tool_arguments
from ..users import spoken_name
from .base import Action, AgentContext, ask, call, finish, halt, say

BLOCKED_TEXT = "I'm sorry, I can't continue without your {name}. Please come back when you have it."


class ScriptedAgent:
    name = "scripted"
    static = False

    def __init__(self, compiled: CompiledSop):
        self.compiled = compiled

    def next_action(self, ctx: AgentContext) -> Action:
        node = ctx.node
        said = False
        answered: set[str] = set()
        done_tools: set[str] = set()
        pending_question = None
        for event in ctx.visit:
            kind = event.type
            if kind == "say" and not event.knowledge:
                said = True
            elif kind == "user":
                if event.missing:
                    return halt("blocked", BLOCKED_TEXT.format(name=spoken_name(event.missing[0])))
                answered.update(event.values or ())
                pending_question = event.question
            elif kind == "say" and event.knowledge:
                pending_question = None
            elif kind == "tool_result" and event.tool and "error" not in (event.result or {}):
                done_tools.add(event.tool)
        if node.say and not said:
            return say(node.say)
        if pending_question:
            answer = ctx.knowledge(pending_question)
            return say(answer, knowledge=pending_question)
        wanted = [v for v in node.ask if v not in answered]
        if wanted:  # a partial answer is asked again; the turn limit bounds a silent user
            return ask(wanted, question_text(ctx.sop, wanted))
        return self._tools_or_finish(ctx, done_tools)

    def _tools_or_finish(self, ctx: AgentContext, done: set[str]) -> Action:
        cnode = self.compiled.cnode(ctx.node.id)
        for tool in ctx.tools:
            if tool.name in done or not guard_holds(cnode, tool.name, ctx.variables):
                continue
            arguments, missing = tool_arguments(self.compiled, cnode, tool, ctx.variables)
            if missing:
                return halt("blocked", BLOCKED_TEXT.format(name=spoken_name(missing[0])))
            return call(tool.name, arguments)
        return finish()


def question_text(sop, names: list[str]) -> str:
    """"Could you tell me ...?" from each variable's description (else its name, spoken), in
    plain English: a noun phrase gets its article ("the OTP received ..."), a yes/no value is
    asked with "whether" ("whether your status bar shows no service")."""
    specs = {v.name: v for v in sop.variables}
    parts = [_phrase(specs.get(name), name) for name in names]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Could you tell me {listed}?"


# Words that open a phrase that needs no article ("what the customer reports", "your plan").
_OPENERS = frozenset("the a an your my his her their our its this that these those which what "
                     "whether if how when where who why any some each every all".split())
# Verbs that make a name or description a clause ("status bar shows no service").
_VERBS = frozenset("is are was were has have had shows show can could does do did works work "
                   "needs need uses use wants want accepts allows contains includes appears "
                   "seems will should".split())


def _phrase(spec, name: str) -> str:
    text = ((spec.description if spec is not None else "") or "").strip().rstrip(".?!").strip()
    described = bool(text)
    if not described:
        text = "your " + spoken_name(name)
    elif not _is_proper(text):
        text = text[0].lower() + text[1:]
    words = [w.lower() for w in text.replace("/", " ").split()]
    if words[0] in ("whether", "if"):
        return text
    # A yes/no value, or a bare name that reads as a clause ("status bar shows no service"):
    # ask whether it holds. (A description's verbs may be a relative clause: "the email
    # address the seller wants to use" stays a noun phrase.)
    yes_no = spec is not None and spec.type == "boolean"
    if (yes_no or not described) and any(w in _VERBS for w in words[1:]):
        return "whether " + (text if words[0] in _OPENERS else "the " + text)
    if yes_no:
        return f"whether this applies to you: {text}"
    return text if words[0] in _OPENERS else "the " + text


def _is_proper(text: str) -> bool:
    """Keep the capital of an acronym ("SKU of the item") or a title-cased name
    ("Clinical Risk Index"); an ordinary first word is lower-cased mid-sentence."""
    words = text.split()
    if len(words[0]) > 1 and words[0][1].isupper():
        return True
    return any(w[:1].isupper() for w in words[1:3])
