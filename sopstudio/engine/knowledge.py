"""Answering a user's question from the SOP's knowledge entries (Agent-S external knowledge)."""

from __future__ import annotations

import re

from ..core.model import Knowledge

NO_ANSWER = "I'm sorry, I don't have information about that."
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def find_answer(entries: list[Knowledge], question: str) -> str | None:
    """The answer whose question matches best (exact, else most shared words), or None."""
    wanted = question.strip().lower()
    for entry in entries:
        if entry.question.strip().lower() == wanted:
            return entry.answer
    asked = _words(question)
    best, score = None, 0.0
    for entry in entries:
        words = _words(entry.question)
        if words and asked:
            overlap = len(words & asked) / len(words | asked)
            if overlap > score:
                best, score = entry.answer, overlap
    return best
