"""Reading the wording of one pseudocode line: what kind of action it is, and the names in it.

Agent-S action types: ask_user_input (ask), api_call (tool), message_to_user (message),
external_knowledge (knowledge); "terminate the flow" ends. Names are derived, never guessed
silently: the builder lists every derived name for the author to confirm.
"""

from __future__ import annotations

import re

from ..base import snake
from .lines import is_terminate

_ASK = re.compile(r"^(?:ask|request|collect|get|obtain|prompt)\b(?:\s+(?:the\s+)?(?:user|customer|"
                  r"seller|caller|client))?(?:\s+(?:to\s+(?:provide|enter|share|give|confirm|"
                  r"supply|type)|for|about|regarding|whether|if))?\s+(.*)$", re.IGNORECASE)
_MESSAGE = re.compile(r"^(?:show|display|say|tell|inform|notify|send\s+message|reply|respond|"
                      r"explain|let\s+the\s+user\s+know|message|greet|thank|apologi[sz]e)\b",
                      re.IGNORECASE)
_KNOWLEDGE = re.compile(r"\b(?:external\s+knowledge|knowledge\s*base|faq|search\s+(?:the\s+)?"
                        r"(?:docs|documentation|help)|look\s+up\s+(?:the\s+)?(?:docs|policy))\b",
                        re.IGNORECASE)
_TOOL_VERB = re.compile(r"^(?:call|use|check|verify|validate|send|create|fetch|get|look\s*up|"
                        r"lookup|"
                        r"update|submit|cancel|reset|process|calculate|compute|call|open|raise|"
                        r"file|escalate|transfer|issue|refund|resume|suspend|block|unblock|"
                        r"reactivate|activate|deactivate|generate|run|query|retrieve|search|"
                        r"book|schedule|register|record|log|charge|apply|approve|reject|close|"
                        r"initiate|start|trigger|notify\s+team|assign|route)\b", re.IGNORECASE)
_FILLER = {"the", "a", "an", "to", "of", "for", "on", "in", "their", "your", "its", "his", "her",
           "if", "whether", "received", "provided", "given", "that",
           "this", "from", "with", "by", "is", "are", "please"}
_SPLIT = re.compile(r"\s+and\s+(?=(?:call|ask|inform|show|tell|notify|send|create|validate|check|"
                    r"verify|display|say|terminate)\b)", re.IGNORECASE)


def split_compound(text: str) -> list[str]:
    """`send otp and ask for otp` -> two actions; their order matters (a node asks first)."""
    return [part.strip() for part in _SPLIT.split(text) if part.strip()]


def kind_of(text: str) -> str:
    """One of: end, ask, message, knowledge, tool, instruction."""
    if is_terminate(text):
        return "end"
    if _KNOWLEDGE.search(text):
        return "knowledge"
    if _ASK.match(text) and re.match(r"^(?:ask|request|collect|prompt)\b", text, re.I):
        return "ask"
    if _MESSAGE.match(text):
        return "message"
    if _TOOL_VERB.match(text):
        return "tool"
    return "instruction"


def name_from(words: str, fallback: str = "value") -> str:
    """Snake-case name without filler words: `access to the old email` -> `access_old_email`."""
    words = re.sub(r"['’]s\b", "", words.lower())  # possessives: "customer's status"
    kept = [w for w in re.split(r"[\s_]+", words) if w and w not in _FILLER]
    return snake(" ".join(kept), fallback)[:48].strip("_") or fallback


def asked_variable(text: str) -> str:
    match = _ASK.match(text)
    return name_from(match.group(1) if match else text, "answer")


def tool_name(text: str) -> str:
    """`check if listing can be reactivated` -> `check_listing_can_be_reactivated`;
    `call check_user` (our own export) -> `check_user`."""
    call = re.match(r"^(?:call|use)\s+([A-Za-z_][\w\-]*)$", text.strip(), re.IGNORECASE)
    return call.group(1) if call else name_from(text, "tool")


def split_annotation(text: str) -> tuple[str, str | None]:
    """`call check_user  [check_user]` -> (`call check_user`, `check_user`): our export's ids."""
    match = re.match(r"^(.*?)\s+\[([\w.\-]+)\]$", text.strip())
    return (match.group(1), match.group(2)) if match else (text, None)


def tool_subject(text: str) -> str:
    """The output a check produces: `check user status` -> `user_status`."""
    if re.match(r"^(?:call|use)\s+[A-Za-z_][\w\-]*$", text.strip(), re.IGNORECASE):
        return "result"
    body = re.sub(r"^\s*\S+(?:\s+up)?\s+", "", text, count=1)
    return name_from(body or text, "result")


def message_text(text: str) -> str:
    """`show message email updated` -> `Email updated.`"""
    body = re.sub(r"^(?:show|display|say|send)\s+(?:a\s+|the\s+)?message\s*(?:that\s+)?",
                  "", text, flags=re.IGNORECASE).strip()
    body = body or text
    return body[0].upper() + body[1:] + ("" if body.endswith((".", "!", "?")) else ".")
