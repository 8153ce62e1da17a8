"""Pseudocode text -> statement tree (actions and if/else chains), tolerant of messy pasting.

Nesting comes from indentation, where a bullet counts as half a level deeper than an unbulleted
line at the same column (Agent-S A.4 writes `if its active:` then `- ask user ...` at column 0).
Where the text is flat (Agent-S Table 1 lost its indentation in a table), an `if` line without an
indented body takes the following lines up to and including a "terminate" line; a later `if` then
continues the innermost chain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BULLET = re.compile(r"^(?:[-*•+·–—▪◦]|\d+(?:\.\d+)*[.)]|[a-zA-Z][.)](?=\s)|"
                     r"step\s+\d+[.:)]?)\s*", re.IGNORECASE)
_ALWAYS = re.compile(r"^always\b\s*[:,]?\s*", re.IGNORECASE)
_SEPARATOR = re.compile(r"^[\s|:\-+=]*$")
_HEADER = re.compile(r"^(?:if|else\s+if|elif|else|otherwise|when|in\s+case|on\s+failure)\b",
                     re.IGNORECASE)
# `on failure:` / `on failure if error == 'invalid_id':` (our export): the tool-failure branch
_FAILURE = re.compile(r"^on\s+failure\b(?:\s*(?:if|when)\s+(.+?))?\s*:?$", re.IGNORECASE)
_TERMINATE = re.compile(r"\b(?:terminate|end|stop|close|exit)\b.*\b(?:flow|conversation|chat|"
                        r"process|sop|call)\b|^(?:end|stop|terminate|done)\.?$", re.IGNORECASE)


@dataclass
class Line:
    lineno: int
    level: int
    text: str
    children: list["Line"] = field(default_factory=list)


@dataclass
class Action:
    lineno: int
    text: str


@dataclass
class Branch:
    lineno: int
    condition: str  # the wording after "if" ("else" for else/otherwise)
    body: list = field(default_factory=list)
    on: str = "success"  # "failure" for an `on failure` branch


@dataclass
class Chain:
    branches: list[Branch] = field(default_factory=list)


@dataclass
class Note:
    lineno: int
    text: str


def clean_lines(text: str) -> list[Line]:
    """Non-blank lines with their nesting level; table pipes, bullets and numbering removed."""
    result = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        raw = raw.expandtabs(4).rstrip()
        body = raw.strip()
        if body.startswith("|"):  # a markdown table row (Agent-S Table 1)
            body = body.strip("|").strip()
            if _SEPARATOR.match(body):
                continue
        if not body or _SEPARATOR.match(body):
            continue
        indent = len(raw) - len(raw.lstrip())
        stripped = _BULLET.sub("", body, count=1)
        bulleted = stripped != body
        # SOP-Agent writes unconditional steps as `ALWAYS: ...`: simply the next step
        text = _ALWAYS.sub("", stripped.strip())
        result.append(Line(lineno, indent * 2 + (1 if bulleted else 0), text))
    return [line for line in result if line.text]


def tree(lines: list[Line]) -> list[Line]:
    roots: list[Line] = []
    stack: list[Line] = []
    for line in lines:
        while stack and stack[-1].level >= line.level:
            stack.pop()
        (stack[-1].children if stack else roots).append(line)
        stack.append(line)
    return roots


def is_header(text: str) -> bool:
    return bool(_HEADER.match(text)) and (text.endswith(":") or not _looks_like_sentence(text))


def _looks_like_sentence(text: str) -> bool:
    return len(text.split()) > 12


def is_terminate(text: str) -> bool:
    return bool(_TERMINATE.search(text.rstrip(".")))


def header_condition(text: str) -> str:
    """`if its active:` -> `its active`; `else:` / `otherwise` -> `else`."""
    body = text.rstrip().rstrip(":").strip()
    lowered = body.lower()
    if re.match(r"^(?:else|otherwise)$", lowered):
        return "else"
    body = re.sub(r"^(?:else\s+if|elif|if|when|in\s+case)\s+", "", body, flags=re.IGNORECASE)
    return body.split(" then", 1)[0].strip().rstrip(",")


def statements(items: list[Line], pos: int = 0, flat_body: bool = False) -> tuple[list, int]:
    """Parse `items[pos:]` into statements; a flat if-body stops after its terminate line."""
    out: list = []
    while pos < len(items):
        item = items[pos]
        if is_header(item.text):
            chain, pos = _chain(items, pos)
            out.append(chain)
            continue
        pos += 1
        out.append(Action(item.lineno, item.text))
        if item.children:
            out += statements(item.children)[0]
        if flat_body and is_terminate(item.text):
            break
    return out, pos


def failure_condition(text: str) -> str | None:
    """`on failure if X:` -> `X`; `on failure:` -> ``; None when not a failure header."""
    match = _FAILURE.match(text.strip())
    return None if match is None else (match.group(1) or "").strip()


def _chain(items: list[Line], pos: int) -> tuple[Chain, int]:
    chain, closed = Chain(), False
    while pos < len(items) and is_header(items[pos].text):
        head = items[pos]
        failure = failure_condition(head.text)
        if closed and failure is None:
            break  # after `else`, only failure branches still belong to the same step
        condition = header_condition(head.text) if failure is None else failure
        pos += 1
        if head.children:
            body = statements(head.children)[0]
        else:
            body, pos = statements(items, pos, flat_body=True)
        chain.branches.append(Branch(head.lineno, condition, body,
                                     "success" if failure is None else "failure"))
        closed = closed or (failure is None and condition == "else")
    return chain, pos
