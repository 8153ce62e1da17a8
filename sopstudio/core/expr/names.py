"""Name helpers: the 'unknown name ... did you mean ...?' error and the suggestions behind it."""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ExprEvalError, quoted

log = logging.getLogger(__name__)

MAX_CANDIDATES = 2_000
MAX_CANDIDATE_DEPTH = 4


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``name`` (difflib), or None if nothing is close."""
    pool = [c for c in candidates if isinstance(c, str) and c != name]
    folded = [c for c in pool if c.lower() == name.lower()]
    if folded:
        return folded[0]
    matches = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    return matches[0] if matches else None


def env_names(env: Mapping[str, Any]) -> list[str]:
    """Top-level keys of ``env`` and dotted paths into nested objects (bounded)."""
    found: list[str] = []
    stack = [(key, value, 1) for key, value in reversed(list(env.items())) if isinstance(key, str)]
    while stack and len(found) < MAX_CANDIDATES:
        key, value, level = stack.pop()
        found.append(key)
        if isinstance(value, Mapping) and level < MAX_CANDIDATE_DEPTH:
            stack.extend((f"{key}.{k}", v, level + 1)
                         for k, v in reversed(list(value.items())) if isinstance(k, str))
    return found


def lookup_failure(env: Mapping[str, Any], path: tuple[str, ...], pos: int, text: str) -> ExprEvalError:
    """The error for a name (or dotted path) that ``env`` does not have."""
    name = ".".join(path)
    try:
        hint = suggest(name, env_names(env))
    except Exception:
        log.debug("no name suggestion for %r", name, exc_info=True)
        hint = None
    message = f"unknown name {quoted(name)}" + (f" — did you mean {quoted(hint)}?" if hint else "")
    return ExprEvalError(message, pos, text, name=name)
