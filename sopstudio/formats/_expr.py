"""Adapter over `sopstudio.core.expr`: syntax checks and read names for translated conditions.

Importers only need to know whether a translated condition parses and which names it reads (to
declare variables). Nothing here evaluates anything.
"""

from __future__ import annotations

from ..core import expr as _core


def syntax_error(text: str) -> str | None:
    """A plain message when `text` is not a valid condition, else None."""
    if _core.is_else(text):
        return None
    try:
        _core.parse(text)
    except _core.ExprError as error:
        return str(error)
    return None


def names_read(text: str | None) -> list[str]:
    """Root variable names a condition reads (sorted); [] for `else` or text that does not parse."""
    if not text or _core.is_else(text):
        return []
    try:
        return sorted({name.split(".")[0] for name in _core.names_read(text)})
    except _core.ExprError:
        return []


def braced(text: str) -> str:
    """`riskLevel == 'high' && len(items) > 0` -> `{riskLevel} == 'high' && len({items}) > 0`:
    JourneyBench writes variables in braces. Names are found by our tokenizer (so words inside
    strings stay as they are); function names and text that does not parse are left alone."""
    from ..core.expr.tokenizer import tokenize
    try:
        tokens = tokenize(text)
    except _core.ExprError:
        return text
    out, last = [], 0
    for token, following in zip(tokens, tokens[1:]):
        if token.kind != "name" or (following.kind == "op" and following.value == "("):
            continue
        end = token.pos + len(".".join(token.value))
        out += [text[last:token.pos], "{", text[token.pos:end], "}"]
        last = end
    return "".join(out) + text[last:]
