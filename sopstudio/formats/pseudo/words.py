"""Reading the wording of one pseudocode line: what kind of action it is, and the names in it.

Agent-S action types: ask_user_input (ask), api_call (tool), message_to_user (message),
external_knowledge (knowledge); "terminate the flow" ends. Names are derived, never guessed
silently: the builder lists every derived name for the author to confirm.
"""

from __future__ import annotations

import re

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
                    r"verify|display|say|set|terminate)\b)", re.IGNORECASE)


_QUOTED = re.compile(r'"[^"]*"|(?<=\bsay\s)\'[^\']*\'', re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SET = re.compile(r"^set\s+([A-Za-z_][\w.]*)\s*=\s*(.+)$", re.IGNORECASE)
_GOTO = re.compile(r"^(?:go\s+(?:back\s+)?to|goto|jump\s+to|loop\s+back\s+to|return\s+to|"
                   r"repeat\s+from)\s+(?:step\s+)?\[([\w.\-]+)\]\.?$", re.IGNORECASE)
_ATTEMPTS = re.compile(r"\s*\((?:max(?:imum)?|at\s+most|up\s+to)\s+(\d+)\s+"
                       r"(?:attempts?|tries|times)\)\s*$", re.IGNORECASE)
_SAY = re.compile(r"""^say\s+(?:"([^"]*)"|'([^']*)')\.?$""", re.IGNORECASE)


def split_compound(text: str) -> list[str]:
    """`send otp and ask for otp` -> two actions; their order matters (a node asks first).

    Quoted text (`say "..."`, our export) and our export's `step: <title>` (a step with no
    action, whose title may say "and check ...") are never split."""
    if re.match(r"^step\s*:", text, re.IGNORECASE):
        return [text.strip()]
    quoted: list[str] = []

    def hide(match: re.Match) -> str:
        quoted.append(match.group(0))
        return f"\x00{len(quoted) - 1}\x00"
    hidden = _QUOTED.sub(hide, text)
    parts = [part.strip() for part in _SPLIT.split(hidden) if part.strip()]
    return [re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], p) for p in parts]


def is_identifier(token: str, known: set[str] | frozenset = frozenset()) -> bool:
    """Already a name (`date_of_birth`, `applicantId`, a declared parameter): keep verbatim."""
    return bool(_IDENT.fullmatch(token)) and (
        "_" in token.strip("_") or bool(re.search(r"[a-z0-9][A-Z]", token)) or token in known)


def goto_target(text: str) -> str | None:
    """`go to [ask_listing]` -> `ask_listing` (a loop back or a jump to a marked step)."""
    match = _GOTO.match(text.strip())
    return match.group(1) if match else None


def set_assignment(text: str) -> tuple[str, str] | None:
    """`set score = a + b` -> (`score`, `a + b`)."""
    match = _SET.match(text.strip())
    return (match.group(1), match.group(2).strip()) if match else None


def kind_of(text: str) -> str:
    """One of: end, ask, message, knowledge, tool, set, step, instruction."""
    if _SAY.match(text):
        return "message"
    if is_terminate(text):
        return "end"
    if _SET.match(text):
        return "set"
    if re.match(r"^step\s*:", text, re.IGNORECASE):
        return "step"  # our export's step with no action (a decision point)
    if _KNOWLEDGE.search(text):
        return "knowledge"
    if _ASK.match(text) and re.match(r"^(?:ask|request|collect|prompt)\b", text, re.I):
        return "ask"
    if _MESSAGE.match(text):
        return "message"
    if _TOOL_VERB.match(text):
        return "tool"
    return "instruction"


def name_from(words: str, fallback: str = "value", known: frozenset | set = frozenset()) -> str:
    """Snake-case name without filler words: `access to the old email` -> `access_old_email`.

    A word that is already an identifier (`date_of_birth`, `loanAmount`) is kept verbatim."""
    words = re.sub(r"['’]s\b", "", words)  # possessives: "customer's status"
    tokens = words.split()
    bare = [w.strip(".,;:!?'\"`") for w in tokens]
    if len(tokens) == 1 and is_identifier(bare[0], known):
        return bare[0]
    kept = [b if is_identifier(b, known) else re.sub(r"[^0-9a-z]+", "_", w.lower()).strip("_")
            for w, b in zip(tokens, bare) if w and w.lower() not in _FILLER]
    name = "_".join(k for k in kept if k)
    if name and not (name[0].isalpha() or name[0] == "_"):
        name = f"{fallback}_{name}"
    return name[:48].strip("_") or fallback


def asked_variables(text: str, known: frozenset | set = frozenset()) -> list[str]:
    """`ask user to provide applicantId and loanAmount` -> [`applicantId`, `loanAmount`]."""
    match = _ASK.match(text)
    phrase = (match.group(1) if match else text).strip().rstrip(".")
    tokens = [t for t in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", phrase) if t]
    if len(tokens) > 1 and all(is_identifier(t, known) for t in tokens):
        return tokens
    return [name_from(phrase, "answer", known)]


def split_annotation(text: str) -> tuple[str, str | None, int | None]:
    """`call check_user  [check_user] (max 3 attempts)` -> (`call check_user`, `check_user`, 3):
    our export's ids; the attempt limit may also follow an unmarked step."""
    attempts = _ATTEMPTS.search(text)
    if attempts:
        text = text[:attempts.start()]
    # a count of more than 9 digits is no count (and int() refuses 4,300+ digits)
    limit = int(attempts.group(1)) if attempts and len(attempts.group(1)) <= 9 else None
    match = re.match(r"^(.*?)\s+\[([\w.\-]+)\]$", text.strip())
    return (match.group(1), match.group(2), limit) if match else (text.strip(), None, limit)


def tool_name(text: str) -> str:
    """`check if listing can be reactivated` -> `check_listing_can_be_reactivated`;
    `call check_user` (our own export) -> `check_user`."""
    call = re.match(r"^(?:call|use)\s+([A-Za-z_][\w\-]*)$", text.strip(), re.IGNORECASE)
    return call.group(1) if call else name_from(text, "tool")




def tool_subject(text: str) -> str:
    """The output a check produces: `check user status` -> `user_status`."""
    if re.match(r"^(?:call|use)\s+[A-Za-z_][\w\-]*$", text.strip(), re.IGNORECASE):
        return "result"
    body = re.sub(r"^\s*\S+(?:\s+up)?\s+", "", text, count=1)
    return name_from(body or text, "result")


def message_text(text: str) -> str:
    """`show message email updated` -> `Email updated.`; `say "Hi, there"` -> `Hi, there`."""
    said = _SAY.match(text.strip())
    if said:
        return said.group(1) if said.group(1) is not None else said.group(2)
    body = re.sub(r"^(?:show|display|say|send)\s+(?:a\s+|the\s+)?message\s*(?:that\s+)?",
                  "", text, flags=re.IGNORECASE).strip()
    body = body or text
    return body[0].upper() + body[1:] + ("" if body.endswith((".", "!", "?")) else ".")
