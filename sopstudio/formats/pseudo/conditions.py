"""Branch wording -> a condition in our expression language (DESIGN §3), never evaluated here.

`if its active or on-hold` after `check user status` -> `user_status in ['active', 'on-hold']`;
`if yes` -> `<subject> == true`; `if less than or equal to 72 hrs` -> `elapsed_hours <= 72`;
`if block reason is seller state change` -> `block_reason == 'seller state change'`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import _expr
from ..base import quote
from .words import name_from

_YES = re.compile(r"^(?:yes|true|ok|okay|success(?:ful)?|valid|passed|it\s+(?:can|is|does))\b",
                  re.IGNORECASE)
_NO = re.compile(r"^(?:no|false|fail(?:s|ed|ure)?|invalid|not|it\s+(?:cannot|can't|is\s+not|"
                 r"isn't|does\s+not|doesn't))\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|doesn't|don't|isn't|hasn't|haven't|"
                       r"without|lacks?)\b", re.IGNORECASE)
_COMPARISONS = [  # longest phrases first
    (r"(?:less\s+than\s+or\s+equal\s+to|at\s+most|no\s+more\s+than|up\s+to|within|<=|≤)", "<="),
    (r"(?:greater\s+than\s+or\s+equal\s+to|more\s+than\s+or\s+equal\s+to|at\s+least|"
     r"no\s+less\s+than|>=|≥)", ">="),
    (r"(?:less\s+than|fewer\s+than|under|below|<)", "<"),
    (r"(?:greater\s+than|more\s+than|over|above|exceeds?|>)", ">"),
    (r"(?:equal\s+to|equals|exactly|==|=)", "=="),
]
_NUMBER = r"(-?\d+(?:\.\d+)?)\s*([A-Za-z%$]+)?"
_UNITS = {"hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours", "h": "hours",
          "day": "days", "days": "days", "min": "minutes", "mins": "minutes",
          "minute": "minutes", "minutes": "minutes", "week": "weeks", "weeks": "weeks",
          "month": "months", "months": "months"}
_ITS = re.compile(r"^(?:it'?s|it\s+is|its|is|status\s+is|the\s+status\s+is)\s+(.+)$", re.I)
_IS = re.compile(r"^(.+?)\s+(?:is\s+equal\s+to|equals|is|==|=)\s+(.+)$", re.IGNORECASE)


@dataclass
class Condition:
    expr: str
    var: str | None = None
    var_type: str = "string"
    values: list = field(default_factory=list)
    kind: str = "equality"  # else, boolean, comparison, equality, phrase
    verbatim: bool = False  # already in our expression language (e.g. our own export)


def split_values(text: str) -> list[str]:
    parts = re.split(r"\s*,\s*(?:or\s+)?|\s+and/or\s+|\s+or\s+|\s*/\s*", text.strip())
    return [p.strip().strip("'\"`").strip() for p in parts if p.strip().strip("'\"`")]


_OPERATOR = re.compile(r"==|!=|<=|>=|[<>]|&&|\|\||\bin\s*\[")
_LITERAL = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def translate(words: str, subject: str | None) -> Condition:
    text = words.strip().rstrip(".:").strip()
    if text.lower() == "else":
        return Condition("else", kind="else")
    for parse in (_expression, _boolean, _comparison, _equality):
        found = parse(text, subject)
        if found is not None:
            return found
    var = name_from(_NEGATION.sub(" ", text), "condition")
    negative = bool(_NEGATION.search(text))
    return Condition(f"{var} == {'false' if negative else 'true'}", var, "boolean", kind="phrase")


def _expression(text: str, subject: str | None) -> Condition | None:
    """Already our expression language (e.g. our own `text` export): kept verbatim. Besides
    operators, that is a literal (`if true:`) or a call (`if matches(pid, '^P'):`), which
    must not become a test of the step's subject."""
    if _expr.syntax_error(text):
        return None
    names = _expr.names_read(text)
    if not _OPERATOR.search(text):
        if names and not re.match(r"^[A-Za-z_]\w*\(", text):
            return None  # a bare word is a phrase ("approved"), read by the rules below
        return Condition(text, names[0] if len(names) == 1 else None, kind="expression",
                         verbatim=True)
    var = names[0] if len(names) == 1 else None
    if re.search(r"==\s*(?:true|false)\s*$", text):
        return Condition(text, var, "boolean", kind="boolean")
    if re.search(r"[<>]", text):
        return Condition(text, var, "number", kind="comparison", verbatim=True)
    values = [a or b for a, b in _LITERAL.findall(text)]  # findall gives '' for no match
    simple = re.match(r"^[\w.]+\s*(?:==|in)\s", text) is not None
    return Condition(text, var, values=values, kind="equality" if simple else "expression")


def _boolean(text: str, subject: str | None) -> Condition | None:
    if _NO.match(text) and not _ITS.match(text):
        value = "false"
    elif _YES.match(text) and len(text.split()) <= 3:
        value = "true"
    else:
        return None
    var = subject or "confirmed"
    return Condition(f"{var} == {value}", var, "boolean", kind="boolean")


def _comparison(text: str, subject: str | None) -> Condition | None:
    for phrase, op in _COMPARISONS:
        match = re.search(rf"(?:^|\s){phrase}\s*{_NUMBER}", text, re.IGNORECASE)
        if match is None:
            continue
        left = text[: match.start()].strip()
        left = re.sub(r"\s+(?:is|are|was)$", "", left, flags=re.IGNORECASE).strip()
        number, unit = match.group(1), (match.group(2) or "").lower()
        if left and not re.fullmatch(r"(?:it|its|it's|it\s+is)", left, re.IGNORECASE):
            var = name_from(left, "value")
        elif unit in _UNITS:
            var = f"elapsed_{_UNITS[unit]}"
        else:
            var = subject or "value"
        literal = number if "." in number else _integer_literal(number)
        return Condition(f"{var} {op} {literal}", var, "number", kind="comparison")
    return None


def _integer_literal(number: str) -> str:
    """`-007` -> `-7` as int() would print it, without int() for long ones (Python refuses to
    convert 4,300+ digits; the expression language reports a too-long number itself)."""
    if len(number) <= 18:
        return str(int(number))
    digits = number.lstrip("-").lstrip("0") or "0"
    return ("-" if number.startswith("-") and digits != "0" else "") + digits


def _equality(text: str, subject: str | None) -> Condition | None:
    its = _ITS.match(text)
    if its:
        var, values = subject or "status", split_values(its.group(1))
    else:
        match = _IS.match(text)
        if match and not _NEGATION.search(match.group(1)):
            var, values = _explicit_subject(match.group(1), subject), split_values(match.group(2))
        elif subject and _short_values(text):
            var, values = subject, split_values(text)
        else:
            return None
    if not values:
        return None
    if len(values) == 1:
        return Condition(f"{var} == {quote(values[0])}", var, values=values)
    listed = ", ".join(quote(v) for v in values)
    return Condition(f"{var} in [{listed}]", var, values=values)


def _explicit_subject(left: str, subject: str | None) -> str:
    name = name_from(left, "value")
    if subject and (subject.endswith("_" + name) or name.endswith("_" + subject)):
        return subject
    return name


def _short_values(text: str) -> bool:
    values = split_values(text)
    return bool(values) and all(len(v.split()) <= 2 for v in values) \
        and not _NEGATION.search(text) and len(text.split()) <= 8


def unify_phrases(conditions: list[Condition], subject: str | None) -> list[Condition]:
    """`if user has access` / `if user does not have access` -> one boolean, true and false."""
    phrases = [c for c in conditions if c.kind == "phrase"]
    if not phrases or len(phrases) + sum(c.kind == "else" for c in conditions) != len(conditions):
        return conditions
    polarities = {c.expr.rsplit(" ", 1)[1] for c in phrases}
    if len(phrases) > 2 or len(polarities) < len(phrases):
        return conditions
    positive = next((c for c in phrases if c.expr.endswith("true")), phrases[0])
    var = subject or positive.var
    result = []
    for cond in conditions:
        if cond.kind == "phrase":
            value = cond.expr.rsplit(" ", 1)[1]
            cond = Condition(f"{var} == {value}", var, "boolean", kind="boolean")
        result.append(cond)
    return result


def failure_when(wording: str) -> str | None:
    """`error == 'invalid_id'` kept; `invalid id` -> `error == 'invalid_id'`; `` -> None."""
    if not wording.strip():
        return None
    if _expr.syntax_error(wording) is None and _expr.names_read(wording):
        return wording.strip()
    return f"error == {quote(name_from(wording, 'error'))}"


def literals(when: str | None) -> list[str]:
    return [a or b for a, b in re.findall(r"'([^']*)'|\"([^\"]*)\"", when or "")]


def needs_default(conds: list[Condition]) -> bool:
    if all(c.kind == "equality" for c in conds) or any(c.kind == "expression" for c in conds) \
            or all(c.verbatim for c in conds):  # written as expressions: the author's choice
        return False  # the values become the variable's enum, so the chain covers them all
    polarities = {c.expr.rsplit(" ", 1)[1] for c in conds if c.kind == "boolean"}
    return not (len(conds) == len(polarities) == 2)


def widen(target, cond: Condition) -> None:
    """Set the type of a variable or output and add the values a condition compares it with."""
    if cond.var_type != "string" and target.type == "string":
        target.type = cond.var_type
    if cond.values and cond.var_type == "string":
        target.enum = list(dict.fromkeys([*(target.enum or []), *cond.values]))
