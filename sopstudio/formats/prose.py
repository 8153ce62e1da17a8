"""Free prose -> SOP through an LLM with a validate -> feedback -> repair loop (JourneyBench
Appendix C). The model is reached only through a `complete(messages) -> str` callable supplied by
the caller (the engine's LLM client in the application; a fake in tests), at most `max_rounds`
calls. The result opens for review: remaining issues are listed in the notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .base import FormatError, ImportResult
from .journeybench import import_journeybench

Complete = Callable[[list[dict]], str]
MAX_ROUNDS = 3

SYSTEM = """You turn a standard operating procedure written in prose into a JourneyBench graph.
Answer with one JSON object only: {"title", "description", "nodes", "edges"}.
Each node: "id" (string; the start node is "1"), "task_name", "task_description", "steps" (list of
strings), "tools" (list of {"method", "url", "body", "name", "tool_description", "condition",
"extractVars": [{"variableName", "type", "description"}], "responseData": [{"name", "context"}]}),
"responsePathways" (list of {"conditions": [{"algebraicExpression"}], "nextNodeId"}).
Conditions compare tool outputs or user values, e.g. "{riskLevel} == 'acceptable'"; allowed:
== != < <= > >= in, && || !, and or not. Every node except the start has an incoming edge, there
are no cycles, and nodes with no pathways are end nodes. Each edge: "source", "target", "label"."""


def _extract_json(reply: str) -> str | None:
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", reply, re.DOTALL)
    if fenced:
        return fenced.group(1)
    start, end = reply.find("{"), reply.rfind("}")
    return reply[start:end + 1] if 0 <= start < end else None


def _issues(result: ImportResult) -> list[str]:
    try:
        from ..core.validate import validate
    except ImportError:  # pragma: no cover - the validator ships with the core
        return []
    return [f"{i.code}: {i.message}" for i in validate(result.sop) if i.severity == "error"]


def import_prose(text: str, complete: Complete, max_rounds: int = MAX_ROUNDS) -> ImportResult:
    if not text.strip():
        raise FormatError("prose: the text is empty", 1)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
    result, remaining, problems = None, [], ["no answer"]
    for _ in range(max_rounds):
        reply = complete(list(messages)) or ""
        messages.append({"role": "assistant", "content": reply})
        try:
            result = import_journeybench(_extract_json(reply) or "", "<llm>")
            problems = remaining = _issues(result)
        except FormatError as error:  # keep the last usable graph, ask for a fix
            problems = [f"the answer is not a usable JourneyBench graph: {error}"]
        if result is not None and not problems:
            break
        messages.append({"role": "user", "content": "Validation found these problems; answer "
                         "with the corrected JSON graph only:\n- " + "\n- ".join(problems)})
    if result is None:
        raise FormatError(f"prose: the model gave no usable graph in {max_rounds} rounds "
                          f"({problems[0]})")
    result.format = "prose"
    result.notes += [f"still to fix after {max_rounds} rounds: {p}" for p in remaining]
    return result
